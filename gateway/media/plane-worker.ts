import dgram from 'node:dgram';
import dns from 'node:dns';
import { isIPv4 } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { Batcher } from './batch.ts';
import { JitterBuffer } from './jitter.ts';
import { decodeG711, encodeG711, FRAME_SAMPLES, parseDtmf, parseRtp, RtpSender } from './rtp.ts';
import { OutgoingQueue } from './outgoing.ts';
import { bedFrame, layBed, type Beds } from './bed.ts';
import type { Negotiated } from './sdp.ts';
import type { PlaneCommand, PlaneEvent, StreamStats } from './plane.ts';
import { Hearing } from './hearing.ts';
import { ENERGY_RMS, type VoiceDetector } from './vad.ts';
import { ThreadedDetector } from './vad-thread.ts';
import { BargeIn, type Barge } from './barge-in.ts';
import { AnsweringMachineDetector, type AmdVerdict } from './amd.ts';

// The media plane's thread: every RTP stream of the process, paced by one
// 20 ms clock (performance.now, corrected for drift each tick) so no packet
// waits behind the main event loop's work. Per stream: an RTP socket and the
// RTCP one beside it (port + 1), what is queued to send, the jitter buffer of
// what comes in. Symmetric RTP: once the peer's packets arrive, replies go to
// where they come from, whatever its SDP said.

const TICK_MS = 20;
/** A frame that never came, to answering-machine detection (only read). */
const SILENT_FRAME = new Int16Array(FRAME_SAMPLES);
const SR_EVERY_MS = 5000;
/**
 * An utterance's audio goes to the main thread while it is said (for a streaming recognizer's
 * partials) in parts of this many frames (100 ms): fewer messages than a frame each, later by
 * at most a part.
 */
const AUDIO_EVERY = 5;

type Stream = {
  key: string;
  rtp: dgram.Socket;
  rtcp: dgram.Socket;
  port: number;
  remote: Negotiated | null;
  /** Where packets go: the SDP's address until the peer's own packets show theirs. */
  to: { address: string; port: number } | null;
  latched: boolean;
  sender: RtpSender | null;
  /** What it is to say, framed as it goes out (outgoing.ts). */
  queue: OutgoingQueue;
  playing: string | null;
  /** Frames sent of each utterance started and not yet finished or dropped (spoken_ms = frames × 20). */
  spoken: Map<string, number>;
  /** Utterances dropped by a barge-in: their later parts (`more`) are not queued. */
  dropped: Set<string>;
  /** The callee talking over the agent (streams opened to hear): pauses, resumes or drops what is queued (barge-in.ts). */
  barge: BargeIn | null;
  /** The detector's decision on the last frame heard (what barge-in reads, frame by frame). */
  voiced: boolean;
  jitter: JitterBuffer;
  lastDtmf: { ts: number; digit: string } | null;
  stats: StreamStats;
  lastSr: number;
  /** Cuts what the peer says into utterances (streams opened to hear). */
  hearing: Hearing | null;
  /** The utterance under way's audio not yet posted (`audio` events, every AUDIO_EVERY frames), and whether its first part was. */
  audio: { frames: Int16Array[]; started: boolean } | null;
  /** Audio mixed under what is played (plane.ts bed), a queue of 20 ms frames per source. */
  beds: Beds;
  /** Answering-machine detection under way: the command to answer with its verdict, then the beep watch. */
  amd: { detector: AnsweringMachineDetector; replyTo: number | null; ms: number; noMediaMs: number; receivedAtStart: number } | null;
};

const streams = new Map<string, Stream>();
const port = parentPort!;
// Events and replies go back in batches, one per turn of this thread's loop (batch.ts).
const events = new Batcher<PlaneEvent>((es, transfer) => port.postMessage(es, transfer));
const post = (e: PlaneEvent, transfer: ArrayBuffer[] = []) => events.post(e, transfer);

/** How late each packet left (ms after its tick's time), kept for the percentiles the main thread asks for. */
let lateness: number[] = [];
let ticks = 0;
let tickTimer: NodeJS.Timeout | null = null;
let nextTick = 0;

/**
 * The sockets' address lookup: an IP address (what SDP and the peer's packets give) answered at
 * once. dgram's own (dns.lookup) answers even an address on the next tick, a deferred call and
 * an async scope for every packet sent; anything else still goes to dns.lookup.
 */
const lookup = ((address: string, family: number, done: (err: Error | null, address: string, family: number) => void): void => {
  if (isIPv4(address)) done(null, address, 4);
  else dns.lookup(address, family, done);
}) as unknown as dgram.SocketOptions['lookup'];

function bindPair(host: string): Promise<{ rtp: dgram.Socket; rtcp: dgram.Socket; port: number }> {
  // RTP on an even port, RTCP on the next one (RFC 3550 section 11).
  const attempt = async (tries: number): Promise<{ rtp: dgram.Socket; rtcp: dgram.Socket; port: number }> => {
    const rtp = dgram.createSocket({ type: 'udp4', lookup });
    await new Promise<void>((ok, fail) => { rtp.once('error', fail); rtp.bind(0, host, () => { rtp.off('error', fail); ok(); }); });
    const p = rtp.address().port;
    const rtcp = dgram.createSocket({ type: 'udp4', lookup });
    const bound = p % 2 === 0 && (await new Promise<boolean>((ok) => {
      rtcp.once('error', () => ok(false));
      rtcp.bind(p + 1, host, () => ok(true));
    }));
    if (bound) return { rtp, rtcp, port: p };
    rtp.close();
    try { rtcp.close(); } catch { /* never bound */ }
    if (tries <= 0) throw new Error('media plane: no free RTP/RTCP port pair');
    return attempt(tries - 1);
  };
  return attempt(50);
}

function onPacket(s: Stream, buf: Buffer, from: dgram.RemoteInfo): void {
  const p = parseRtp(buf);
  if (!p) return;
  if (!s.latched) {
    s.to = { address: from.address, port: from.port };
    s.latched = true;
  }
  s.stats.received++;
  s.stats.heardAt = Date.now();
  if (s.remote && s.remote.dtmfPayloadType !== null && p.payloadType === s.remote.dtmfPayloadType) {
    const d = parseDtmf(p.payload);
    // An event is sent several times (and its end three times): one report per event, at its end.
    if (d && d.end && !(s.lastDtmf && s.lastDtmf.ts === p.timestamp)) {
      s.lastDtmf = { ts: p.timestamp, digit: d.digit };
      post({ type: 'dtmf', key: s.key, digit: d.digit, durationMs: Math.round(d.duration / 8) });
    }
    return;
  }
  if (s.remote && p.payloadType !== s.remote.payloadType) return;
  s.jitter.push({ seq: p.seq, timestamp: p.timestamp, payload: p.payload });
}

function tick(): void {
  const now = performance.now();
  const due = nextTick;
  ticks++;
  if (lateness.length > 200_000) lateness = lateness.slice(-100_000);
  for (const s of streams.values()) {
    // In: one frame of what the peer says, in order.
    const f = s.jitter.pop();
    let heard: Int16Array | null = null;
    let heardRms = 0;
    let echoed = false;
    if (f && s.remote) {
      echoed = s.barge?.isOwnEcho(f.payload) ?? false;
      const pcm = decodeG711(s.remote.codec, f.payload);
      heard = pcm;
      let sum = 0;
      for (const x of pcm) sum += x * x;
      s.stats.played++;
      heardRms = Math.sqrt(sum / pcm.length);
      s.stats.energy.push(Math.round(heardRms));
      if (s.stats.energy.length > 3000) s.stats.energy.shift();
    }
    if (s.remote) listen(s, heard);
    // Heard before this tick's frame goes out: a voice that pauses the agent stops this very frame.
    if (s.barge && s.remote) {
      const b = s.barge.hear({ speech: s.voiced, loud: heardRms > ENERGY_RMS, rms: heardRms, echoed, interruptible: s.queue.nextInterruptible });
      act(s, b);
    }
    // Out: one frame of the current utterance, with the bed under it (plane.ts bed).
    // Paused by the callee's voice (barge-in.ts): nothing leaves, the queue waits where it stopped.
    const bed = s.remote && s.beds.size > 0 ? bedFrame(s.beds) : null;
    const item = s.barge?.paused ? undefined : s.queue.shift(bed);
    if (!item && bed && s.to && s.sender) {
      if (s.remote!.direction !== 'sendonly' && s.remote!.direction !== 'inactive') {
        s.rtp.send(s.sender.packet(encodeG711(s.remote!.codec, bed)), s.to.port, s.to.address);
        lateness.push(performance.now() - due);
        s.stats.sent++;
      }
    } else if (item && s.to && s.sender) {
      if (s.playing !== item.utterance) {
        s.playing = item.utterance;
        post({ type: 'started', key: s.key, utterance: item.utterance });
      }
      // On hold (the far end's SDP says sendonly or inactive: it takes no audio), the frame is
      // played out in time, and not sent.
      const held = s.remote?.direction === 'sendonly' || s.remote?.direction === 'inactive';
      s.spoken.set(item.utterance, (s.spoken.get(item.utterance) ?? 0) + 1);
      s.barge?.sent(item.frame, item.rms);
      if (!held) {
        s.rtp.send(s.sender.packet(item.frame), s.to.port, s.to.address);
        lateness.push(performance.now() - due);
        s.stats.sent++;
      }
      if (item.last) {
        s.playing = null;
        post({ type: 'finished', key: s.key, utterance: item.utterance, spokenMs: (s.spoken.get(item.utterance) ?? 0) * TICK_MS });
        s.spoken.delete(item.utterance);
      }
    } else if (s.sender && !item) {
      s.sender.skip(FRAME_SAMPLES);
    }
    // RTCP sender reports, to the RTCP port beside the peer's RTP port.
    if (s.sender && s.to && now - s.lastSr >= SR_EVERY_MS && s.stats.sent > 0) {
      s.lastSr = now;
      s.rtcp.send(s.sender.senderReport(), s.to.port + 1, s.to.address);
    }
  }
  nextTick += TICK_MS;
  // Behind by more than a tick (the thread was stopped): start again from now rather than burst.
  if (performance.now() - nextTick > TICK_MS) nextTick = performance.now() + TICK_MS;
  tickTimer = setTimeout(tick, Math.max(0, nextTick - performance.now()));
}

/**
 * What barge-in decided on this tick: `interrupt` drops the rest of the utterance under way and
 * every queued utterance the callee may talk over (the others, the disclosure, stay in order),
 * each reported `interrupted` with what of it was sent.
 */
function act(s: Stream, b: Barge): void {
  if (b !== 'interrupt') return;
  const gone = s.queue.dropInterruptible();
  for (const u of gone) {
    s.dropped.add(u);
    if (s.playing === u) s.playing = null;
    post({ type: 'interrupted', key: s.key, utterance: u, spokenMs: (s.spoken.get(u) ?? 0) * TICK_MS });
    s.spoken.delete(u);
  }
  // A long call says many things: only the recent drops can still get parts.
  if (s.dropped.size > 64) s.dropped.delete(s.dropped.values().next().value!);
}

/** The utterance under way's audio not yet posted, as one part. */
function postAudio(s: Stream): void {
  const a = s.audio!;
  if (a.frames.length === 0) return;
  let n = 0;
  for (const f of a.frames) n += f.length;
  const pcm = new Int16Array(n);
  let at = 0;
  for (const f of a.frames) { pcm.set(f, at); at += f.length; }
  post({ type: 'audio', key: s.key, pcm, start: !a.started }, [pcm.buffer as ArrayBuffer]);
  a.started = true;
  a.frames = [];
}

/** A tick's frame of the peer's audio (null: none arrived) to the stream's hearing and answering-machine detection. */
function listen(s: Stream, frame: Int16Array | null): void {
  if (s.hearing) {
    const was = s.hearing.speaking;
    const u = s.hearing.push(frame);
    if (s.hearing.speaking) {
      // Under way: its start (the preroll and the first voiced frame), then each frame as it comes.
      if (!was) s.audio = { frames: [s.hearing.current()!], started: false };
      else s.audio?.frames.push(frame ? frame.slice() : new Int16Array(FRAME_SAMPLES));
      if (s.audio && s.audio.frames.length >= AUDIO_EVERY) postAudio(s);
    } else if (was) {
      // Ended: what is left of it goes first, then the utterance (or, too short to be one, its end).
      if (u && s.audio) postAudio(s);
      s.audio = null;
      if (!u) post({ type: 'unheard', key: s.key });
    }
    if (u) post({ type: 'heard', key: s.key, pcm: u.pcm, audioMs: u.audioMs, voicedMs: u.voicedMs, at: Date.now() }, [u.pcm.buffer as ArrayBuffer]);
  }
  const a = s.amd;
  if (!a) return;
  a.ms += TICK_MS;
  // Nothing at all from the far end: no audio to judge (a peer that sends no media).
  if (a.replyTo !== null && s.stats.received === a.receivedAtStart && a.ms >= a.noMediaMs) {
    answerAmd(s, { kind: 'unknown', atMs: a.ms, voiceMs: 0, reason: `no media in ${a.ms} ms` });
    s.amd = null;
    return;
  }
  for (const e of a.detector.push(frame ?? SILENT_FRAME)) {
    if (e.type === 'verdict') answerAmd(s, e.verdict);
    else post({ type: 'beep', key: s.key, hz: e.hz, atMs: e.atMs });
  }
  // The beep is watched for a while after the verdict, then detection stops.
  if (a.replyTo === null && a.ms > 30_000) s.amd = null;
}

function answerAmd(s: Stream, verdict: AmdVerdict): void {
  if (!s.amd || s.amd.replyTo === null) return;
  post({ type: 'reply', id: s.amd.replyTo, verdict });
  s.amd.replyTo = null;
}

function ensureClock(): void {
  if (tickTimer) return;
  nextTick = performance.now() + TICK_MS;
  tickTimer = setTimeout(tick, TICK_MS);
}

/** The detector, its every decision told to `seen` too. */
function watched(d: VoiceDetector, seen: (voiced: boolean) => void): VoiceDetector {
  return {
    kind: d.kind,
    push: (frame) => { const r = d.push(frame); seen(r.speech); return r; },
    reset: () => d.reset(),
  };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.max(0, Math.ceil(p * v.length) - 1))]!;
}

async function handle(c: PlaneCommand): Promise<void> {
  switch (c.op) {
    case 'open': {
      const { rtp, rtcp, port: p } = await bindPair(c.host);
      const s: Stream = {
        key: c.key, rtp, rtcp, port: p, remote: null, to: null, latched: false, sender: null, queue: new OutgoingQueue(), playing: null,
        spoken: new Map(), dropped: new Set(), barge: c.hear ? new BargeIn() : null, voiced: false,
        jitter: new JitterBuffer({ depth: 3 }), lastDtmf: null, lastSr: 0,
        stats: { sent: 0, received: 0, played: 0, energy: [], heardAt: null, openedAt: Date.now() },
        hearing: null, audio: null, amd: null, beds: new Map(),
      };
      if (c.hear) {
        // Silero in the voice thread (vad-thread.ts): run in this thread, its model's first load
        // and its windows would hold up every stream's 20 ms tick (a second's stall measured at a
        // call's first words). Its frame-by-frame decision is kept for barge-in (barge-in.ts:
        // Hearing's onset waits minVoiceMs); onset and offset become speech events.
        const detector = watched(new ThreadedDetector(), (v) => { s.voiced = v; });
        s.hearing = new Hearing({
          detector,
          onSpeech: (kind, ms) => post({ type: 'speech', key: s.key, kind, ms, at: Date.now() }),
        });
      }
      rtp.on('message', (buf, from) => onPacket(s, buf, from));
      rtp.on('error', () => {});
      // RTCP alone keeps a call alive too (a far end on hold sends reports, no audio).
      rtcp.on('message', () => { s.stats.heardAt = Date.now(); });
      rtcp.on('error', () => {});
      streams.set(c.key, s);
      ensureClock();
      post({ type: 'reply', id: c.id, port: p });
      return;
    }
    case 'connect': {
      const s = streams.get(c.key);
      if (!s) return post({ type: 'reply', id: c.id, error: `no stream ${c.key}` });
      s.remote = c.remote;
      if (!s.latched) s.to = { address: c.remote.address, port: c.remote.port };
      s.sender ??= new RtpSender(c.remote.payloadType);
      return post({ type: 'reply', id: c.id });
    }
    case 'play': {
      const s = streams.get(c.key);
      if (!s || !s.remote) return post({ type: 'reply', id: c.id, error: `stream ${c.key} is not connected` });
      const queuedMs = s.queue.frames * TICK_MS;
      // The rest of an utterance the callee talked over: dropped with it.
      if (s.dropped.has(c.utterance)) return post({ type: 'reply', id: c.id, queuedMs, dropped: true });
      s.queue.push(s.remote.codec, c.pcm, c.utterance, { more: c.more === true, interruptible: c.interruptible === true });
      return post({ type: 'reply', id: c.id, queuedMs });
    }
    case 'amd': {
      const s = streams.get(c.key);
      if (!s) return post({ type: 'reply', id: c.id, verdict: { kind: 'unknown', atMs: 0, voiceMs: 0, reason: 'no stream' } });
      if (!s.remote) return post({ type: 'reply', id: c.id, verdict: { kind: 'unknown', atMs: 0, voiceMs: 0, reason: 'no media negotiated' } });
      if (s.amd) answerAmd(s, { kind: 'unknown', atMs: s.amd.ms, voiceMs: 0, reason: 'detection restarted' });
      s.amd = { detector: new AnsweringMachineDetector(c.options), replyTo: c.id, ms: 0, noMediaMs: c.noMediaMs, receivedAtStart: s.stats.received };
      return;
    }
    case 'close': {
      const s = streams.get(c.key);
      if (!s) return post({ type: 'reply', id: c.id, stats: null });
      if (s.amd) answerAmd(s, { kind: 'unknown', atMs: s.amd.ms, voiceMs: 0, reason: 'the stream closed' });
      streams.delete(c.key);
      s.rtp.close();
      s.rtcp.close();
      if (streams.size === 0 && tickTimer) {
        clearTimeout(tickTimer);
        tickTimer = null;
      }
      return post({ type: 'reply', id: c.id, stats: { ...s.stats, jitter: s.jitter.stats } });
    }
    case 'bed': {
      const s = streams.get(c.key);
      if (!s) return;
      layBed(s.beds, c.source, c.pcm);
      return;
    }
    case 'hush': {
      const s = streams.get(c.key);
      if (s) act(s, 'interrupt');
      return post({ type: 'reply', id: c.id });
    }
    case 'stats': {
      const s = streams.get(c.key);
      return post({ type: 'reply', id: c.id, stats: s ? { ...s.stats, energy: [...s.stats.energy], jitter: { ...s.jitter.stats } } : null });
    }
    case 'lateness': {
      const out = { p50: percentile(lateness, 0.5), p99: percentile(lateness, 0.99), max: lateness.reduce((a, b) => Math.max(a, b), 0), packets: lateness.length, ticks };
      if (c.reset) { lateness = []; ticks = 0; }
      return post({ type: 'reply', id: c.id, lateness: out });
    }
  }
}

port.on('message', (cs: PlaneCommand[]) => {
  for (const c of cs) handle(c).catch((err: Error) => post({ type: 'reply', id: c.id, error: err.message }));
});
