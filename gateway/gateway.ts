import { createSipSignaling, type SipLog } from './sip-stack.ts';
import { startSimulatedCallee, type SimulatedCallee } from './callee.ts';
import type { DialogEvent, InboundListener, SipSignaling } from './signaling.ts';
import { MediaPlane } from './media/plane.ts';
import type { SpeechSynthesizer } from '../src/engines/speech/synthesizer.ts';
import { NoRecognizer, type SpeechRecognizer } from '../src/engines/speech/recognizer.ts';
import { startSynthesizers, type SpeechConfig } from '../src/engines/speech/index.ts';

// The SIP gateway of one process, assembled: the media plane (every call's
// RTP in one thread), the speech engines that speak on the lines, the SIP
// signaling (the embedded stack, or drachtio-server with DRACHTIO_HOST), and
// in test mode the built-in simulated callee (unless TOLK_SIM_SIP_PEER sends
// test calls to a real peer). It knows SIP and audio, not calls: the platform
// starts it and src/calls/dialer.ts binds it to the call actors.

export type GatewayConfig = SpeechConfig & {
  /** TOLK_SIP_LISTEN, and whether it is the default (then a taken port falls back to a free one). */
  sipListen: string;
  sipListenIsDefault: boolean;
  /** TOLK_SIM_SIP_PEER: test calls go there instead of to the built-in callee. */
  simSipPeer: string | undefined;
  simSpeed: number;
  ringTimeoutSeconds: number;
  mediaTimeoutSeconds: number;
  drachtio: { host: string; port: number; secret: string; connectTimeoutMs?: number } | undefined;
};

export type Gateway = {
  /** The SIP address the signaling bound (`host:port`). */
  address: string;
  signaling: SipSignaling;
  /** The RTP streams of this gateway's calls, by call id. */
  media: MediaPlane;
  /** TOLK_SPEECH_ENGINES: what is said on a line. */
  speech: SpeechSynthesizer;
  /** Test mode's built-in callee (null with TOLK_SIM_SIP_PEER). */
  callee: SimulatedCallee | null;
  /**
   * What reads the far end's words: the built-in callee knows its own (test
   * mode's recognizer); a real peer's are read by the service's recognizers
   * (TOLK_RECOGNIZE); none: heard with its length and no text.
   */
  recognizer: SpeechRecognizer;
  /** The Request-URI that dials `e164`: at the peer (TOLK_SIM_SIP_PEER) or the built-in callee. */
  target(e164: string): string;
  /** The INVITE's extra headers for a call: the built-in callee is told which call it is and the language to speak; a real peer gets none. */
  inviteHeaders(callId: string, lang: string): Record<string, string> | undefined;
  /** Every dialog event of the calls placed goes to this listener (one: the calls' binding). */
  onDialog(listener: (key: string, e: DialogEvent) => void): void;
  /**
   * The calls our trunks send (one listener: the rooms' dial-in, rooms/phone/): each INVITE from a
   * trunk is decided there, and its dialog's events go there. Until one is set, they are answered 480.
   */
  onInbound(listener: InboundListener): void;
  stop(): Promise<void>;
};

/**
 * Starts the gateway. An engine that is not installed, a SIP address that
 * cannot be bound or a drachtio-server that does not answer stops the start
 * here, with everything opened so far closed again.
 */
export async function startGateway(c: GatewayConfig, o: { recognizer?: SpeechRecognizer; log: SipLog; fromTrunk?: (source: { address: string; port: number }) => boolean }): Promise<Gateway> {
  const { log } = o;
  const speech = startSynthesizers(c);
  const mediaHost = c.sipListen.slice(0, c.sipListen.lastIndexOf(':'));
  const media = await MediaPlane.start(mediaHost);
  let callee: SimulatedCallee | null = null;
  let listener: (key: string, e: DialogEvent) => void = (key, e) => log.warn({ key, event: e.type }, 'dialog event with nobody listening');
  const onEvent = (key: string, e: DialogEvent) => listener(key, e);
  let inboundListener: InboundListener | undefined;
  const inbound: InboundListener = {
    decide: (inv) => inboundListener?.decide(inv) ?? { status: 480, reason: 'Temporarily Unavailable' },
    onEvent: (key, e) => inboundListener?.onEvent(key, e),
  };
  const open = async (listen: string): Promise<SipSignaling> => {
    const so = { listen, ringTimeoutSeconds: c.ringTimeoutSeconds, mediaTimeoutSeconds: c.mediaTimeoutSeconds, onEvent, log, media };
    if (!c.drachtio) return createSipSignaling({ ...so, inbound, ...(o.fromTrunk ? { fromTrunk: o.fromTrunk } : {}) });
    // With DRACHTIO_HOST the SIP goes through that drachtio-server; the media stays here.
    // Its client library is loaded only then.
    const { createDrachtioSignaling } = await import('./drachtio.ts');
    return createDrachtioSignaling({ ...so, drachtio: c.drachtio, mediaHost });
  };
  let signaling: SipSignaling;
  try {
    callee = c.simSipPeer ? null : await startSimulatedCallee({ listen: '127.0.0.1:0', speed: c.simSpeed, log, media: { plane: media, speech } });
    try {
      signaling = await open(c.sipListen);
    } catch (err) {
      // Several server processes on one machine: the first has the default
      // port; the others take a free one (calls are outbound: the callee
      // answers to the address in Via, whatever its port).
      if (!c.sipListenIsDefault || !/in use/i.test((err as Error).message)) throw err;
      signaling = await open(`${mediaHost}:0`);
      log.warn({ wanted: c.sipListen, bound: signaling.address }, 'the default SIP port is taken; the gateway listens on a free one (set TOLK_SIP_LISTEN to choose)');
    }
  } catch (err) {
    await callee?.close();
    await media.stop();
    await speech.close();
    throw err;
  }
  const recognizer = callee?.recognizer ?? o.recognizer ?? new NoRecognizer();
  // The speech engine's thread started before the gateway takes calls, not at the first call's pick-up:
  // its start (a third of a second for Pico) would be silence on that line. Each call's disclosure is
  // then made while it rings. Waited for at most 2 s: an engine slow to start only costs that first call.
  const warm = ['en', 'es', 'de', 'fr', 'it', 'pt'].find((l) => speech.speaks(l));
  if (warm) {
    const started = speech.synthesize('Hello.', warm).then(() => {}, (err) => log.warn({ err: String(err) }, 'the speech engine did not start'));
    await Promise.race([started, new Promise((r) => setTimeout(r, 2000).unref())]);
  }
  const peerHost = c.simSipPeer ? c.simSipPeer.replace(/^sips?:/, '').replace(/^[^@]*@/, '') : null;
  return {
    address: signaling.address,
    signaling,
    media,
    speech,
    callee,
    recognizer,
    target: (e164) => `sip:${e164}@${peerHost ?? callee!.address}`,
    inviteHeaders: (callId, lang) => (callee ? { 'X-Tolk-Call': callId, 'X-Tolk-Lang': lang } : undefined),
    onDialog: (l) => { listener = l; },
    onInbound: (l) => { inboundListener = l; },
    stop: async () => {
      await signaling.close();
      await callee?.close();
      await media.stop();
      await speech.close();
      // The service's recognizers outlive the gateway (the platform closes them); the callee's go with it.
      if (recognizer !== o.recognizer) await recognizer.close();
    },
  };
}
