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

import sip from 'sip';
import { audioSdp, headerText, openSipEndpoint, randomToken, tagOf, type SipLog } from './sip-stack.ts';
import type { MediaPlane } from './media/plane.ts';
import { answer as sdpAnswer, negotiate } from './media/sdp.ts';
import type { SpeechSynthesizer } from '../src/engines/speech/synthesizer.ts';
import type { HeardUtterance, SpeechRecognizer } from '../src/engines/speech/recognizer.ts';

/** What the callee says when it picks up, per language. */
const HELLO: Record<string, string> = { en: 'Hello?', es: '¿Diga?', pt: 'Alô?', fr: 'Allô ?', de: 'Hallo?', it: 'Pronto?', nl: 'Hallo?' };
/** Its voicemail's greeting, long enough to be a recording. */
const GREETING: Record<string, string> = {
  en: 'Hi, you have reached the voicemail of Alex. I cannot take your call right now. Please leave a message after the tone.',
  es: 'Hola, ha llamado al buzón de voz de Alex. Ahora no puedo atenderle. Deje su mensaje después de la señal.',
  pt: 'Olá, ligou para a caixa de correio de Alex. Não posso atender agora. Deixe a sua mensagem depois do sinal.',
  fr: 'Bonjour, vous êtes sur la messagerie d’Alex. Je ne peux pas répondre pour le moment. Laissez un message après le bip.',
  de: 'Hallo, Sie sind mit der Mailbox von Alex verbunden. Ich kann gerade nicht rangehen. Bitte sprechen Sie nach dem Signalton.',
  it: 'Ciao, hai raggiunto la segreteria di Alex. Non posso rispondere adesso. Lascia un messaggio dopo il segnale acustico.',
  nl: 'Hallo, u spreekt met de voicemail van Alex. Ik kan nu niet opnemen. Spreek een bericht in na de pieptoon.',
};
const BEEP_HZ = 1000;
/** The pause after each phrase, longer than the silence that ends an utterance the gateway hears. */
const PAUSE_MS = 1000;
const BEEP_MS = 500;

/** A voicemail's beep: a 1 kHz tone, 8 kHz PCM, after a short pause. */
export function beep(): Int16Array {
  const pause = 8 * 300;
  const pcm = new Int16Array(pause + 8 * BEEP_MS);
  for (let i = 0; i < 8 * BEEP_MS; i++) pcm[pause + i] = Math.round(8000 * Math.sin((2 * Math.PI * BEEP_HZ * i) / 8000));
  return pcm;
}

/** The voicemail's recording: its greeting in `lang` (as the engine says it), then the beep. */
export async function voicemailAudio(speech: SpeechSynthesizer, lang: string): Promise<Int16Array> {
  const { pcm } = await speech.synthesize(GREETING[baseLang(lang)] ?? GREETING.en!, speech.speaks(lang) ? lang : 'en');
  const b = beep();
  const out = new Int16Array(pcm.length + b.length);
  out.set(pcm);
  out.set(b, pcm.length);
  return out;
}

const baseLang = (lang: string) => lang.toLowerCase().split('-')[0]!;

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

type Outcome =
  | { kind: 'reject'; status: number; reason: string }
  | { kind: 'ring_then_reject'; afterMs: number; status: number; reason: string }
  | { kind: 'answer'; afterMs: number; voicemail: boolean };

/** The behaviour for a dialed user part: its last four digits ('+' and other non-digits ignored). */
export function outcomeFor(user: string): Outcome {
  const last4 = user.replace(/\D/g, '').slice(-4);
  switch (last4) {
    case '0100':
      return { kind: 'reject', status: 486, reason: 'Busy Here' };
    case '0101':
      return { kind: 'ring_then_reject', afterMs: 5_000, status: 480, reason: 'Temporarily Unavailable' };
    case '0102':
      return { kind: 'answer', afterMs: 1_000, voicemail: true };
    case '0103':
      return { kind: 'reject', status: 503, reason: 'Service Unavailable' };
    default:
      return { kind: 'answer', afterMs: 1_000, voicemail: false };
  }
}

type Call = {
  callId: string;
  invite: sip.Message;
  /** Our To tag, the same in every response of the call. */
  tag: string;
  /** 'ringing' until the final response; 'answered' until ACKed; then 'confirmed' until BYE. */
  state: 'ringing' | 'answered' | 'confirmed' | 'done';
  timers: Set<NodeJS.Timeout>;
  /** The gateway's call id (X-Tolk-Call) and the language to speak (X-Tolk-Lang). */
  key: string | null;
  lang: string;
  /** Its RTP stream on the plane (connected once answered), or null without audio. */
  stream: string | null;
  /** What it said, in order: the text, when its audio started playing (null: not yet), whether a recognition took it. */
  said: Array<{ utterance: string; text: string; startedAt: number | null; taken: boolean }>;
  /** Utterances queued or playing. */
  speaking: number;
  /** It does not start a new phrase before this (epoch ms): a pause after each, as people leave. */
  quietUntil: number;
};

const T1 = 500;
const T2 = 4_000;
/** How long a 2xx is retransmitted without an ACK (64*T1). */
const TIMER_H = 32_000;

/** Starts the simulated callee; resolves once it listens. */
export async function startSimulatedCallee(opts: SimulatedCalleeOptions): Promise<SimulatedCallee> {
  if (!(opts.speed > 0)) throw new Error(`simulated callee: speed must be a positive number (got ${opts.speed})`);
  const log = opts.log ?? { info() {}, warn() {}, error() {} };
  const calls = new Map<string, Call>();
  /** Calls by the gateway's key, and by their stream on the plane. */
  const byKey = new Map<string, Call>();
  const streams = new Map<string, Call>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const onStarted = (stream: string, utterance: string) => {
    const u = streams.get(stream)?.said.find((x) => x.utterance === utterance);
    if (u) u.startedAt = Date.now();
  };
  const onFinished = (stream: string) => {
    const call = streams.get(stream);
    if (!call) return;
    call.speaking = Math.max(0, call.speaking - 1);
    call.quietUntil = Date.now() + PAUSE_MS;
  };
  opts.media?.plane.on('started', onStarted);
  opts.media?.plane.on('finished', onFinished);

  const endpoint = await openSipEndpoint(opts.listen, onRequest, log);
  const contact = `<sip:callee@${endpoint.address}>`;

  function later(call: Call, ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      call.timers.delete(t);
      timers.delete(t);
      if (!closed) fn();
    }, ms);
    call.timers.add(t);
    timers.add(t);
  }

  function clearCallTimers(call: Call): void {
    for (const t of call.timers) {
      clearTimeout(t);
      timers.delete(t);
    }
    call.timers.clear();
  }

  function finish(call: Call): void {
    call.state = 'done';
    clearCallTimers(call);
    calls.delete(call.callId);
    if (call.key && byKey.get(call.key) === call) byKey.delete(call.key);
    if (call.stream && opts.media) {
      streams.delete(call.stream);
      opts.media.plane.close(call.stream).catch(() => {});
    }
  }

  /** A response to `rq` carrying our tag when in a call (makeResponse shares the request's headers: copy To). */
  function response(rq: sip.Message, status: number, reason: string, tag: string | undefined, extra?: { headers?: sip.Headers; content?: string }): sip.Message {
    const rs = sip.makeResponse(rq, status, reason, extra);
    const to = rq.headers.to;
    if (tag && to && typeof to === 'object' && !to.params.tag) rs.headers.to = { ...to, params: { ...to.params, tag } };
    return rs;
  }

  function sendFinal(call: Call, status: number, reason: string): void {
    clearCallTimers(call);
    log.info({ callId: call.callId, status }, 'callee: final answer');
    endpoint.respond(response(call.invite, status, reason, call.tag));
    // `sip`'s INVITE server transaction now retransmits it and absorbs the ACK.
    finish(call);
  }

  /** Its SDP answer: with a media plane, a stream of its own connected to the offer; else the discard port, no audio. */
  async function mediaAnswer(call: Call): Promise<string> {
    const sessionId = String(Date.now());
    if (!opts.media || typeof call.invite.content !== 'string' || call.invite.content === '') return audioSdp(endpoint.host, 9, sessionId, 'answer');
    try {
      const remote = negotiate(call.invite.content);
      const stream = `callee:${call.callId}`;
      const { port } = await opts.media.plane.open(stream);
      if (call.state === 'done' || closed) {
        await opts.media.plane.close(stream);
        return '';
      }
      call.stream = stream;
      streams.set(stream, call);
      await opts.media.plane.connect(stream, remote);
      return sdpAnswer({ host: endpoint.host, port, sessionId }, remote);
    } catch (err) {
      log.warn({ callId: call.callId, err: String(err) }, 'callee: no audio for this call');
      return audioSdp(endpoint.host, 9, sessionId, 'answer');
    }
  }

  /** Plays `pcm` on the call's stream as utterance `text`. */
  async function play(call: Call, text: string, pcm: Int16Array): Promise<void> {
    const utterance = `u${call.said.length}`;
    call.said.push({ utterance, text, startedAt: null, taken: false });
    call.speaking++;
    try {
      await opts.media!.plane.play(call.stream!, utterance, pcm);
    } catch (err) {
      call.speaking--;
      throw err;
    }
  }

  /** The text in the call's language, as its engine speaks it (the engine's English for a language it lacks). */
  async function speech(call: Call, text: string): Promise<Int16Array> {
    const sp = opts.media!.speech;
    return (await sp.synthesize(text, sp.speaks(call.lang) ? call.lang : 'en')).pcm;
  }

  /** Picked up: a person says hello; a voicemail plays its greeting and beep. */
  async function greet(call: Call, voicemail: boolean): Promise<void> {
    if (!call.stream || !opts.media || call.state === 'done') return;
    const lang = baseLang(call.lang);
    if (voicemail) await play(call, GREETING[lang] ?? GREETING.en!, await voicemailAudio(opts.media.speech, call.lang));
    else await play(call, HELLO[lang] ?? HELLO.en!, await speech(call, HELLO[lang] ?? HELLO.en!));
  }

  async function answer(call: Call, voicemail: boolean): Promise<void> {
    const content = await mediaAnswer(call);
    // CANCELed (487 sent) while the stream was being set up: nothing to answer.
    if (closed || call.state !== 'ringing') return;
    clearCallTimers(call);
    call.state = 'answered';
    const headers: sip.Headers = { contact, 'content-type': 'application/sdp' };
    const ok = response(call.invite, 200, 'OK', call.tag, { headers, content });
    log.info({ callId: call.callId, voicemail }, 'callee: answered');
    greet(call, voicemail).catch((err) => log.warn({ callId: call.callId, err: String(err) }, 'callee: cannot greet'));
    endpoint.respond(ok);
    // Retransmit the 2xx, T1 doubling up to T2, until the ACK (or Timer H).
    let interval = T1;
    let waited = 0;
    const again = () => {
      if (call.state !== 'answered') return;
      if (waited >= TIMER_H) {
        log.warn({ callId: call.callId }, 'callee: no ACK for the 200 OK');
        return;
      }
      endpoint.respond(ok);
      waited += interval;
      interval = Math.min(interval * 2, T2);
      later(call, interval, again);
    };
    waited += interval;
    later(call, interval, again);
  }

  function onInvite(rq: sip.Message): void {
    const callId = rq.headers['call-id'] ?? '';
    if (tagOf(rq.headers.to)) {
      // A re-INVITE: not supported by the simulation (481 if the call is unknown).
      const known = calls.has(callId);
      endpoint.respond(response(rq, known ? 488 : 481, known ? 'Not Acceptable Here' : 'Call/Transaction Does Not Exist', undefined));
      return;
    }
    if (calls.has(callId)) {
      // Same Call-ID, another branch: a merged request (RFC 3261 8.2.2.2).
      endpoint.respond(response(rq, 482, 'Loop Detected', randomToken(4)));
      return;
    }
    const uri = sip.parseUri(rq.uri ?? '');
    const outcome = outcomeFor(uri?.user ?? '');
    const key = headerText(rq, 'x-tolk-call')?.trim() || null;
    const call: Call = {
      callId, invite: rq, tag: randomToken(4), state: 'ringing', timers: new Set(),
      key, lang: headerText(rq, 'x-tolk-lang')?.trim() || 'en', stream: null, said: [], speaking: 0, quietUntil: 0,
    };
    calls.set(callId, call);
    if (key) byKey.set(key, call);
    log.info({ callId, user: uri?.user, outcome: outcome.kind }, 'callee: INVITE');
    if (outcome.kind === 'reject') {
      sendFinal(call, outcome.status, outcome.reason);
      return;
    }
    endpoint.respond(response(rq, 180, 'Ringing', call.tag, { headers: { contact } }));
    const delay = outcome.afterMs / opts.speed;
    if (outcome.kind === 'ring_then_reject') later(call, delay, () => sendFinal(call, outcome.status, outcome.reason));
    else later(call, delay, () => { answer(call, outcome.voicemail).catch((err) => log.error({ callId, err: String(err) }, 'callee: cannot answer')); });
  }

  function onRequest(rq: sip.Message): void {
    const method = rq.method ?? '';
    const callId = rq.headers['call-id'] ?? '';
    const call = calls.get(callId);
    switch (method) {
      case 'INVITE':
        return onInvite(rq);
      case 'ACK':
        // The ACK of our 2xx (`sip` absorbs those of non-2xx): the call is up.
        if (call?.state === 'answered') {
          clearCallTimers(call);
          call.state = 'confirmed';
        }
        return;
      case 'CANCEL': {
        // Matches the INVITE by Call-ID and branch (RFC 3261 9.2).
        const branch = rq.headers.via?.[0]?.params.branch;
        const same = call && call.invite.headers.via?.[0]?.params.branch === branch;
        if (!call || !same) {
          endpoint.respond(response(rq, 481, 'Call/Transaction Does Not Exist', undefined));
          return;
        }
        log.info({ callId }, 'callee: CANCEL');
        endpoint.respond(response(rq, 200, 'OK', call.tag));
        if (call.state === 'ringing') sendFinal(call, 487, 'Request Terminated');
        return;
      }
      case 'BYE':
        if (!call || (call.state !== 'answered' && call.state !== 'confirmed') || tagOf(rq.headers.to) !== call.tag) {
          endpoint.respond(response(rq, 481, 'Call/Transaction Does Not Exist', undefined));
          return;
        }
        log.info({ callId }, 'callee: BYE');
        endpoint.respond(response(rq, 200, 'OK', undefined));
        finish(call);
        return;
      case 'OPTIONS':
        endpoint.respond(response(rq, 200, 'OK', randomToken(4), { headers: { allow: 'INVITE, ACK, CANCEL, BYE, OPTIONS' } }));
        return;
      default:
        if (tagOf(rq.headers.to) && !call) endpoint.respond(response(rq, 481, 'Call/Transaction Does Not Exist', undefined));
        else endpoint.respond(response(rq, 405, 'Method Not Allowed', randomToken(4), { headers: { allow: 'INVITE, ACK, CANCEL, BYE, OPTIONS' } }));
    }
  }

  log.info({ address: endpoint.address, speed: opts.speed }, 'callee: listening');
  return {
    address: endpoint.address,
    async say(key, text, lang) {
      const call = byKey.get(key);
      if (!call || !call.stream || !opts.media || (call.state !== 'answered' && call.state !== 'confirmed')) return false;
      if (call.speaking > 0 || Date.now() < call.quietUntil) return false;
      if (lang) call.lang = lang;
      await play(call, text, await speech(call, text));
      return true;
    },
    recognizer: {
      name: 'simulated callee',
      // It knows its own words, in whatever language it spoke them.
      hears: () => true,
      // The heard utterance covers what the callee started saying before it
      // ended and no earlier utterance was given: those texts, joined. A
      // sound it did not make (nothing it said started by then) has no text.
      async recognize(u: HeardUtterance) {
        const call = byKey.get(u.key);
        const mine = (call?.said ?? []).filter((x) => !x.taken && x.startedAt !== null && x.startedAt <= u.at);
        for (const x of mine) x.taken = true;
        return { text: mine.length > 0 ? mine.map((x) => x.text).join(' ') : null };
      },
      async close() {},
    },
    async close() {
      if (closed) return;
      closed = true;
      opts.media?.plane.off('started', onStarted);
      opts.media?.plane.off('finished', onFinished);
      for (const c of calls.values()) if (c.stream) opts.media?.plane.close(c.stream).catch(() => {});
      for (const t of timers) clearTimeout(t);
      timers.clear();
      calls.clear();
      await endpoint.settle();
      endpoint.destroy();
    },
  };
}
