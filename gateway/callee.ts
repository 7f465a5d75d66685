// The built-in simulated callee: a SIP user agent (UAS) on loopback, on its
// own `sip` stack, that answers the gateway's INVITEs the way a phone network
// would, chosen by the last four digits of the dialed number so that tests and
// the simulator can ask for each outcome:
//
//   ...0100  486 Busy Here
//   ...0101  180 Ringing, then 480 Temporarily Unavailable after 5 s
//   ...0102  180 Ringing, then after 1 s 200 OK from voicemail: a recorded
//            greeting, then a beep (the gateway tells it from the audio)
//   ...0103  503 Service Unavailable
//   other    180 Ringing, then after 1 s 200 OK and "Hello?"; up until BYE
//
// With a media plane and a speech engine it talks: its answer's SDP names an
// RTP stream of its own, and it speaks (in the language the gateway names in
// `X-Tolk-Lang`, English when the engine lacks it) its greeting and whatever
// the simulator gives it to say (say(), by the call id the gateway names in
// `X-Tolk-Call`). Because it knows what it said and when, it is also the
// test-mode speech recognizer of the calls it answers (`recognizer`).
//
// Every delay is divided by `speed` (TOLK_SIM_SPEED). `sip`'s server
// transactions absorb retransmitted INVITEs and retransmit our non-2xx finals
// until ACKed; the 2xx is retransmitted here until its ACK (RFC 3261 13.3.1.4),
// as `sip` leaves that to the user agent.
//
// callee-script.ts holds what each number does and what is said on pickup;
// callee-voice.ts what it says on its calls, and the recognizer of it.

import sip from 'sip';
import { audioSdp, headerText, openSipEndpoint, randomToken, tagOf, type SipEndpoint, type SipLog } from './sip-stack.ts';
import type { MediaPlane } from './media/plane.ts';
import { answer as sdpAnswer, negotiate } from './media/sdp.ts';
import { outcomeFor } from './callee-script.ts';
import { CalleeVoice, type CalleeCall } from './callee-voice.ts';
import type { SpeechSynthesizer } from '../src/engines/speech/synthesizer.ts';
import type { SpeechRecognizer } from '../src/engines/speech/recognizer.ts';

export { beep, outcomeFor, voicemailAudio } from './callee-script.ts';

export type SimulatedCalleeOptions = {
  /** `host:port` to listen on (loopback); port 0 picks a free one. */
  listen: string;
  /** TOLK_SIM_SPEED: every delay is divided by it (10 = ten times faster). */
  speed: number;
  log?: SipLog;
  /** Given both, it answers with a media stream of its own and speaks. */
  media?: { plane: MediaPlane; speech: SpeechSynthesizer };
};

export type SimulatedCallee = {
  /** `host:port` it listens on: dial `sip:+15550000000@<address>`. */
  address: string;
  /**
   * Says `text` on the call the gateway named `key` (X-Tolk-Call), in `lang`;
   * false when it has no such call with audio, or is speaking or pausing
   * after a phrase (a person does not queue up sentences: the simulator's
   * pace, faster with TOLK_SIM_SPEED, cannot make audio play faster).
   */
  say(key: string, text: string, lang: string): Promise<boolean>;
  /** The test-mode recognizer: the text of what it said on the call that the utterance heard covers. */
  recognizer: SpeechRecognizer;
  /** Clears every timer and closes the stack (calls still up are dropped silently). */
  close(): Promise<void>;
};

const T1 = 500;
const T2 = 4_000;
/** How long a 2xx is retransmitted without an ACK (64*T1). */
const TIMER_H = 32_000;

/** Starts the simulated callee; resolves once it listens. */
export async function startSimulatedCallee(opts: SimulatedCalleeOptions): Promise<SimulatedCallee> {
  const uas = await SimulatedCalleeUas.start(opts);
  // A plain object of its own properties, as callers may copy it ({ ...callee }).
  return {
    address: uas.address,
    say: (key, text, lang) => uas.say(key, text, lang),
    recognizer: uas.recognizer,
    close: () => uas.close(),
  };
}

/** The callee's user agent: its calls by Call-ID, the requests it answers, and what it says on them. */
class SimulatedCalleeUas implements SimulatedCallee {
  static async start(opts: SimulatedCalleeOptions): Promise<SimulatedCalleeUas> {
    if (!(opts.speed > 0)) throw new Error(`simulated callee: speed must be a positive number (got ${opts.speed})`);
    const callee = new SimulatedCalleeUas(opts);
    callee.endpoint = await openSipEndpoint(opts.listen, (rq) => callee.onRequest(rq), callee.log);
    callee.contact = `<sip:callee@${callee.endpoint.address}>`;
    callee.log.info({ address: callee.endpoint.address, speed: opts.speed }, 'callee: listening');
    return callee;
  }

  private readonly opts: SimulatedCalleeOptions;
  private readonly log: SipLog;
  private readonly calls = new Map<string, CalleeCall>();
  /** What its calls say, and the recognizer of it. */
  private readonly voice: CalleeVoice;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private endpoint!: SipEndpoint;
  private contact = '';

  private constructor(opts: SimulatedCalleeOptions) {
    this.opts = opts;
    this.log = opts.log ?? { info() {}, warn() {}, error() {} };
    this.voice = new CalleeVoice(opts.media);
  }

  get address(): string {
    return this.endpoint.address;
  }

  // --- The calls' timers and ends ---

  private later(call: CalleeCall, ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      call.timers.delete(t);
      this.timers.delete(t);
      if (!this.closed) fn();
    }, ms);
    call.timers.add(t);
    this.timers.add(t);
  }

  private clearCallTimers(call: CalleeCall): void {
    for (const t of call.timers) {
      clearTimeout(t);
      this.timers.delete(t);
    }
    call.timers.clear();
  }

  private finish(call: CalleeCall): void {
    call.state = 'done';
    this.clearCallTimers(call);
    this.calls.delete(call.callId);
    if (call.key && this.voice.byKey.get(call.key) === call) this.voice.byKey.delete(call.key);
    if (call.stream && this.opts.media) {
      this.voice.streams.delete(call.stream);
      this.opts.media.plane.close(call.stream).catch(() => {});
    }
  }

  // --- What it answers ---

  private onRequest(rq: sip.Message): void {
    const method = rq.method ?? '';
    const callId = rq.headers['call-id'] ?? '';
    const call = this.calls.get(callId);
    switch (method) {
      case 'INVITE':
        return this.onInvite(rq);
      case 'ACK':
        // The ACK of our 2xx (`sip` absorbs those of non-2xx): the call is up.
        if (call?.state === 'answered') {
          this.clearCallTimers(call);
          call.state = 'confirmed';
        }
        return;
      case 'CANCEL':
        return this.onCancel(rq, call);
      case 'BYE':
        return this.onBye(rq, call);
      case 'OPTIONS':
        this.endpoint.respond(response(rq, 200, 'OK', randomToken(4), { headers: { allow: 'INVITE, ACK, CANCEL, BYE, OPTIONS' } }));
        return;
      default:
        if (tagOf(rq.headers.to) && !call) this.endpoint.respond(response(rq, 481, 'Call/Transaction Does Not Exist', undefined));
        else this.endpoint.respond(response(rq, 405, 'Method Not Allowed', randomToken(4), { headers: { allow: 'INVITE, ACK, CANCEL, BYE, OPTIONS' } }));
    }
  }

  private onInvite(rq: sip.Message): void {
    const callId = rq.headers['call-id'] ?? '';
    if (tagOf(rq.headers.to)) {
      // A re-INVITE: not supported by the simulation (481 if the call is unknown).
      const known = this.calls.has(callId);
      this.endpoint.respond(response(rq, known ? 488 : 481, known ? 'Not Acceptable Here' : 'Call/Transaction Does Not Exist', undefined));
      return;
    }
    if (this.calls.has(callId)) {
      // Same Call-ID, another branch: a merged request (RFC 3261 8.2.2.2).
      this.endpoint.respond(response(rq, 482, 'Loop Detected', randomToken(4)));
      return;
    }
    const uri = sip.parseUri(rq.uri ?? '');
    const outcome = outcomeFor(uri?.user ?? '');
    const key = headerText(rq, 'x-tolk-call')?.trim() || null;
    const call: CalleeCall = {
      callId, invite: rq, tag: randomToken(4), state: 'ringing', timers: new Set(),
      key, lang: headerText(rq, 'x-tolk-lang')?.trim() || 'en', stream: null, said: [], speaking: 0, quietUntil: 0,
    };
    this.calls.set(callId, call);
    if (key) this.voice.byKey.set(key, call);
    this.log.info({ callId, user: uri?.user, outcome: outcome.kind }, 'callee: INVITE');
    if (outcome.kind === 'reject') {
      this.sendFinal(call, outcome.status, outcome.reason);
      return;
    }
    this.endpoint.respond(response(rq, 180, 'Ringing', call.tag, { headers: { contact: this.contact } }));
    const delay = outcome.afterMs / this.opts.speed;
    if (outcome.kind === 'ring_then_reject') this.later(call, delay, () => this.sendFinal(call, outcome.status, outcome.reason));
    else this.later(call, delay, () => { this.answer(call, outcome.voicemail).catch((err) => this.log.error({ callId, err: String(err) }, 'callee: cannot answer')); });
  }

  /** Matches the INVITE by Call-ID and branch (RFC 3261 9.2). */
  private onCancel(rq: sip.Message, call: CalleeCall | undefined): void {
    const branch = rq.headers.via?.[0]?.params.branch;
    const same = call && call.invite.headers.via?.[0]?.params.branch === branch;
    if (!call || !same) {
      this.endpoint.respond(response(rq, 481, 'Call/Transaction Does Not Exist', undefined));
      return;
    }
    this.log.info({ callId: call.callId }, 'callee: CANCEL');
    this.endpoint.respond(response(rq, 200, 'OK', call.tag));
    if (call.state === 'ringing') this.sendFinal(call, 487, 'Request Terminated');
  }

  private onBye(rq: sip.Message, call: CalleeCall | undefined): void {
    if (!call || (call.state !== 'answered' && call.state !== 'confirmed') || tagOf(rq.headers.to) !== call.tag) {
      this.endpoint.respond(response(rq, 481, 'Call/Transaction Does Not Exist', undefined));
      return;
    }
    this.log.info({ callId: call.callId }, 'callee: BYE');
    this.endpoint.respond(response(rq, 200, 'OK', undefined));
    this.finish(call);
  }

  private sendFinal(call: CalleeCall, status: number, reason: string): void {
    this.clearCallTimers(call);
    this.log.info({ callId: call.callId, status }, 'callee: final answer');
    this.endpoint.respond(response(call.invite, status, reason, call.tag));
    // `sip`'s INVITE server transaction now retransmits it and absorbs the ACK.
    this.finish(call);
  }

  private async answer(call: CalleeCall, voicemail: boolean): Promise<void> {
    const content = await this.mediaAnswer(call);
    // CANCELed (487 sent) while the stream was being set up: nothing to answer.
    if (this.closed || call.state !== 'ringing') return;
    this.clearCallTimers(call);
    call.state = 'answered';
    const headers: sip.Headers = { contact: this.contact, 'content-type': 'application/sdp' };
    const ok = response(call.invite, 200, 'OK', call.tag, { headers, content });
    this.log.info({ callId: call.callId, voicemail }, 'callee: answered');
    this.voice.greet(call, voicemail).catch((err) => this.log.warn({ callId: call.callId, err: String(err) }, 'callee: cannot greet'));
    this.endpoint.respond(ok);
    // Retransmit the 2xx, T1 doubling up to T2, until the ACK (or Timer H).
    let interval = T1;
    let waited = 0;
    const again = () => {
      if (call.state !== 'answered') return;
      if (waited >= TIMER_H) {
        this.log.warn({ callId: call.callId }, 'callee: no ACK for the 200 OK');
        return;
      }
      this.endpoint.respond(ok);
      waited += interval;
      interval = Math.min(interval * 2, T2);
      this.later(call, interval, again);
    };
    waited += interval;
    this.later(call, interval, again);
  }

  /** Its SDP answer: with a media plane, a stream of its own connected to the offer; else the discard port, no audio. */
  private async mediaAnswer(call: CalleeCall): Promise<string> {
    const { media } = this.opts;
    const host = this.endpoint.host;
    const sessionId = String(Date.now());
    if (!media || typeof call.invite.content !== 'string' || call.invite.content === '') return audioSdp(host, 9, sessionId, 'answer');
    try {
      const remote = negotiate(call.invite.content);
      const stream = `callee:${call.callId}`;
      const { port } = await media.plane.open(stream);
      if (call.state === 'done' || this.closed) {
        await media.plane.close(stream);
        return '';
      }
      call.stream = stream;
      this.voice.streams.set(stream, call);
      await media.plane.connect(stream, remote);
      return sdpAnswer({ host, port, sessionId }, remote);
    } catch (err) {
      this.log.warn({ callId: call.callId, err: String(err) }, 'callee: no audio for this call');
      return audioSdp(host, 9, sessionId, 'answer');
    }
  }

  say(key: string, text: string, lang: string): Promise<boolean> {
    return this.voice.say(key, text, lang);
  }

  get recognizer(): SpeechRecognizer {
    return this.voice.recognizer;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.voice.detach();
    for (const c of this.calls.values()) if (c.stream) this.opts.media?.plane.close(c.stream).catch(() => {});
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.calls.clear();
    await this.endpoint.settle();
    this.endpoint.destroy();
  }
}

/** A response to `rq` carrying our tag when in a call (makeResponse shares the request's headers: copy To). */
function response(rq: sip.Message, status: number, reason: string, tag: string | undefined, extra?: { headers?: sip.Headers; content?: string }): sip.Message {
  const rs = sip.makeResponse(rq, status, reason, extra);
  const to = rq.headers.to;
  if (tag && to && typeof to === 'object' && !to.params.tag) rs.headers.to = { ...to, params: { ...to.params, tag } };
  return rs;
}
