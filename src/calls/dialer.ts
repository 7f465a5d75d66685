import { randomBase62 } from '../ids.ts';
import { prepared, withTx, type Client } from '../db/pool.ts';
import { PgListener } from '../db/listener.ts';
import { inTx } from '../jobs/in-tx.ts';
import { now, type Services } from '../services.ts';
import { phraseIn } from '../sessions/translations.ts';
import type { CallEvent } from '../../machines/call.ts';
import { createSipSignaling } from '../../gateway/sip-stack.ts';
import { startSimulatedCallee, type SimulatedCallee } from '../../gateway/callee.ts';
import { NoRecognizer, type SpeechRecognizer } from '../engines/speech/recognizer.ts';
import { publishSegment, type Segment } from '../sessions/publish.ts';
import type { DialogEvent, SipSignaling } from '../../gateway/signaling.ts';
import { MediaPlane } from '../../gateway/media/plane.ts';
import type { SpeechSynthesizer } from '../engines/speech/synthesizer.ts';
import { startSynthesizers } from '../engines/speech/index.ts';
import { DISCLOSURE, fixedDisclosure } from './disclosure.ts';
import { fillName } from '../sim/phrasebook.ts';
import { CALLEE_NAME, CALLS_CHANNEL, CALL_AGENT_NAME, ENDED, applyCallEvent, endCall, parseCalleeNotice, parseSayNotice } from './calls.ts';

// The call gateway of one process: its SIP stack (gateway/), the built-in
// simulated callee (unless TOLK_SIM_SIP_PEER sends test calls elsewhere), and
// what ties them to the call actors.
//
// - A call is dialed by the process that claims it (calls.gateway_id): the
//   API process right after POST /v1/calls commits. If that process died
//   before it claimed the call, every gateway's sweep looks for calls still
//   queued and unclaimed DIAL_FALLBACK_SECONDS after they were placed, and
//   one of them claims and dials it. A process that runs no gateway writes a
//   dial job instead, in the call's transaction, for any gateway to take. A
//   committed call is always dialed, and only once.
// - Dialog events become the call machine's events, applied one call at a
//   time in the order SIP reported them.
// - A call ended elsewhere (the API's hangup, the per-call limit) is
//   announced on CALLS_CHANNEL; the process holding its dialog sends BYE or
//   CANCEL.
// - Each gateway beats in `gateways`; every gateway sweeps the calls of
//   gateways that stopped beating, which end failed/gateway_lost: a call is
//   never left ringing or answered by a process that died.

export const DIAL_QUEUE = 'call-dial';
export const MAX_DURATION_QUEUE = 'call-max-duration';

/** How long after it was placed an unclaimed call is dialed by any gateway's sweep (its own process normally dials it at once). */
export const DIAL_FALLBACK_SECONDS = 3;

export type CallGateway = {
  id: string;
  /** The SIP address this gateway's stack bound. */
  address: string;
  /** Dials the queued calls no gateway has claimed yet. */
  dial: (...callIds: string[]) => Promise<void>;
  /** The calls whose SIP dialog this gateway holds now. */
  active: () => string[];
  /** Ends the calls of lost gateways and dials the calls left unclaimed; returns how many calls it ended or dialed. */
  sweep: () => Promise<number>;
  /** The RTP streams of this gateway's calls (gateway/media/plane.ts), by call id. */
  media: MediaPlane;
  stop: () => Promise<void>;
};

type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

/**
 * What a placed call's transaction writes so that it is dialed: nothing when
 * this process has a gateway (it dials the call once committed, and the
 * gateways' sweep is the fallback); otherwise a dial job any gateway takes.
 * (A job per call cost the database more than the rest of the placing.)
 */
export async function writeDialJob(s: Services, tx: Client, callId: string): Promise<void> {
  if (s.gateway) return;
  await s.boss.send(DIAL_QUEUE, { callId }, inTx(tx));
}

/** The per-call limit's timer, written in the answer's transaction. */
export async function writeMaxDurationJob(s: Services, tx: Client, callId: string, seconds: number): Promise<void> {
  await s.boss.send(MAX_DURATION_QUEUE, { callId }, { ...inTx(tx), startAfter: Math.max(1, Math.ceil(seconds)) });
}

/** What a dialog event means for the call (operator.md: outcomes from a real peer's answers). */
export function callEventOf(e: DialogEvent): CallEvent {
  switch (e.type) {
    case 'ringing': return { type: 'RINGING' };
    case 'answered': return e.voicemail ? { type: 'VOICEMAIL' } : { type: 'ANSWERED' };
    case 'remote_hangup': return { type: 'REMOTE_HANGUP' };
    case 'no_media': return { type: 'FAILED', reason: 'no_media' };
    case 'media_timeout': return { type: 'MEDIA_TIMEOUT' };
    case 'ring_timeout': return { type: 'NO_ANSWER' };
    case 'no_response': return { type: 'FAILED', reason: 'failed' };
    case 'rejected':
      if ([486, 600, 603].includes(e.status)) return { type: 'BUSY' };
      // 487: the INVITE was canceled, which only we do (hangup, ring timeout): nobody answered.
      if ([480, 408, 487].includes(e.status)) return { type: 'NO_ANSWER' };
      return { type: 'FAILED', reason: 'failed' };
  }
}

/** The final SIP answer an event reports (a call records it: sip_code, sip_reason), if it is one. */
export function sipAnswerOf(e: DialogEvent): { code: number; reason: string } | undefined {
  switch (e.type) {
    case 'answered': return { code: e.status, reason: e.reason ?? 'OK' };
    case 'no_media': return { code: e.status, reason: e.reason };
    case 'rejected': return { code: e.status, reason: e.reason };
    // We CANCELed it: the INVITE's final answer is the 487 the far end owes us (RFC 3261 9.2).
    case 'ring_timeout': return { code: 487, reason: 'Request Terminated' };
    default: return undefined;
  }
}

/** The user part of the Request-URI: the number, as SIP trunks expect it. */
function targetOf(peer: string | null, calleeAddress: string | null, e164: string): string {
  if (peer) {
    const hostPort = peer.replace(/^sips?:/, '').replace(/^[^@]*@/, '');
    return `sip:${e164}@${hostPort}`;
  }
  return `sip:${e164}@${calleeAddress}`;
}

/**
 * Tasks run one after another per key (a call), each after the one before it
 * has settled; a failing task is reported to onError and does not stop the
 * next. `pending()` is what is still under way (to wait for at stop).
 */
function perKey(onError: (err: unknown, key: string, what?: string) => void) {
  const tails = new Map<string, Promise<void>>();
  return {
    /** Queues `task` behind the key's others; `what` names it in onError. */
    run(key: string, task: () => Promise<void>, what?: string): void {
      const next = (tails.get(key) ?? Promise.resolve())
        .then(task)
        .catch((err) => onError(err, key, what))
        .finally(() => { if (tails.get(key) === next) tails.delete(key); });
      tails.set(key, next);
    },
    pending: (): Array<Promise<void>> => [...tails.values()],
  };
}

/** How long a 2xx's far end may send no audio at all before the call is taken as answered by a person. */
const AMD_NO_MEDIA_MS = 1000;

export async function startCallGateway(s: Services, databaseUrl: string, log: Log): Promise<CallGateway> {
  const id = `gw_${randomBase62(16)}`;
  const peer = s.config.simSipPeer ?? null;
  // The calls' audio: RTP in a thread of its own, on the SIP stack's host;
  // speech by the engines of TOLK_SPEECH_ENGINES, a language by the first that
  // speaks it (their threads start at their first phrase). An engine that is
  // not installed stops the start here, before anything is opened.
  const speech: SpeechSynthesizer = startSynthesizers(s.config);
  const mediaHost = s.config.sipListen.slice(0, s.config.sipListen.lastIndexOf(':'));
  const media = await MediaPlane.start(mediaHost);
  let callee: SimulatedCallee | null = null;
  try {
    callee = peer ? null : await startSimulatedCallee({ listen: '127.0.0.1:0', speed: s.config.simSpeed, log, media: { plane: media, speech } });
  } catch (err) {
    await media.stop();
    throw err;
  }
  // What the far end says: the simulated callee knows its own words (test
  // mode's recognizer); a real peer's (TOLK_SIM_SIP_PEER, a trunk) is read by
  // the recognizers of TOLK_RECOGNIZE, the first that hears the call's
  // remote_lang; none: it is reported with its length and no text.
  const recognizer: SpeechRecognizer = callee?.recognizer ?? s.recognizer ?? new NoRecognizer();
  // One chain per call: its events are applied in the order SIP reported them.
  const chains = perKey((err, callId, event) => log.error({ err, callId, event }, 'call event not applied'));
  let signaling: SipSignaling | null = null;
  /** Calls answered (status answered) whose dialog is here: what is heard on their line goes to their session. */
  const talking = new Map<string, { lang: string }>();
  const unspoken = new Set<string>();
  /** Says `text` on the call's line in `lang`; a language no engine speaks stays text (logged once per language). */
  const speak = async (callId: string, utterance: string, text: string, lang: string) => {
    if (!speech.speaks(lang)) {
      if (!unspoken.has(lang)) log.warn({ lang, engine: speech.name }, 'no speech engine for this language: calls in it are silent on the line');
      unspoken.add(lang);
      return;
    }
    const { pcm } = await speech.synthesize(text, lang);
    await signaling?.play(callId, utterance, pcm);
  };
  // What is said on a line is queued in the order it was asked for (the
  // disclosure first): one chain per call, each link synthesizing its phrase
  // and queueing it on the stream, where the plane plays them one after another.
  const lines = perKey((err, callId, utterance) => log.warn({ err: String(err), callId, utterance }, 'a phrase could not be spoken on the line'));
  const onLine = (callId: string, utterance: string, what: () => Promise<{ text: string; lang: string } | null>) =>
    lines.run(callId, async () => {
      // A peer whose answer had no usable SDP hears nothing (the stack logged it once).
      if (!signaling?.hasMedia(callId)) return;
      const w = await what();
      if (w && signaling.active().includes(callId)) await speak(callId, utterance, w.text, w.lang);
    }, utterance);
  /** A `say` on the call's session (its log number `seq`): spoken to the callee in the call's remote language. */
  const sayOnLine = (callId: string, seq: number, utteranceId: string) =>
    onLine(callId, utteranceId, async () => {
      const { rows } = await s.pool.query<{ text: string; src_lang: string; remote_lang: string; livemode: boolean; kind: string; announced: string | null; created_at: Date }>(prepared(
        `SELECT g.text, g.src_lang, g.kind, g.announced, g.created_at, c.remote_lang, c.livemode
           FROM calls c JOIN room_segments g ON g.room_id = c.id AND g.seq = $2 WHERE c.id = $1`,
        [callId, seq],
      ));
      const r = rows[0];
      if (!r) return null;
      // The say in the callee's language, translated once (the session's listeners read the same); what no
      // engine could translate is spoken as it was written, in its own language: never a marked form aloud.
      const t = await phraseIn(s, callId, r.livemode, { seq, kind: r.kind, text: r.text, src_lang: r.src_lang, announced: r.announced, created_at: r.created_at }, r.remote_lang);
      return t.untranslated || t.text === null ? { text: r.text, lang: r.src_lang } : { text: t.text, lang: r.remote_lang };
    });

  /**
   * The disclosure as the callee hears it: its fixed wording in their language; else the English
   * wording translated by the engines, when one covers the pair; else the English wording, in English.
   */
  const disclosureOnLine = async (lang: string): Promise<{ text: string; lang: string }> => {
    const fixed = fixedDisclosure(CALL_AGENT_NAME, lang);
    if (fixed) return { text: fixed, lang };
    const english = fillName(DISCLOSURE.en!, CALL_AGENT_NAME);
    const t = s.translation?.chain.covers('en', lang) ? (await s.translation.chain.translate(english, 'en', [lang]))[lang] : null;
    return t ? { text: t.text, lang } : { text: english, lang: 'en' };
  };

  const apply = async (callId: string, event: CallEvent, answeredAt?: Date, sip?: { code: number; reason: string }) => {
    const r = await withTx(s.pool, (tx) =>
      applyCallEvent(s, tx, callId, event, {
        simulatedCallee: callee !== null,
        answeredAt,
        ...(sip ? { sip } : {}),
        maxDurationJob: (t, cid, seconds) => writeMaxDurationJob(s, t, cid, seconds),
        last: true,
      }));
    // The call ended with this event (a voicemail answered, a failure), or had
    // ended before SIP got this far (hung up while the INVITE was on its way,
    // before this gateway held the dialog): the dialog goes too.
    const dialogUp = signaling?.active().includes(callId) ?? false;
    if (dialogUp && (r.hangUp || (!r.changed && ENDED.has(r.row.status)))) await signaling?.hangup(callId);
    if (ENDED.has(r.row.status)) talking.delete(callId);
    // Answered: the first thing on the line is the AI disclosure, in the callee's language.
    if (dialogUp && r.changed && r.row.status === 'answered') {
      const lang = r.row.remote_lang;
      talking.set(callId, { lang });
      onLine(callId, 'disclosure', () => disclosureOnLine(lang));
    }
  };
  /**
   * A 2xx is a person or a machine: the first seconds of the far end's audio
   * decide (answering-machine detection, gateway/media/amd.ts), before the
   * call is answered or ends as voicemail. A peer that sends no audio at all
   * within AMD_NO_MEDIA_MS, or says it is a voicemail system
   * (X-Tolk-Answered-By), is taken at its word at once.
   */
  const judge = async (callId: string, e: DialogEvent): Promise<DialogEvent> => {
    if (e.type !== 'answered' || e.voicemail) return e;
    const verdict = await media.detectMachine(callId, { noMediaMs: AMD_NO_MEDIA_MS });
    log.info({ callId, verdict }, 'answering-machine detection');
    return verdict.kind === 'machine' ? { ...e, voicemail: true } : e;
  };
  const onEvent = (callId: string, e: DialogEvent) => {
    // The moment the far end picked up, before answering-machine detection listens.
    const pickedUp = e.type === 'answered' ? now(s) : undefined;
    const sip = sipAnswerOf(e);
    chains.run(callId, async () => {
      // A 2xx whose answer has no audio we can use (no SDP, no codec in common): ended at once with a
      // BYE, failed/no_media, billed 0, and no disclosure said (operator.md).
      if (e.type === 'answered' && signaling && !signaling.hasMedia(callId)) {
        log.warn({ callId, status: e.status }, 'answered without usable media: hung up');
        await apply(callId, { type: 'FAILED', reason: 'no_media' }, undefined, sip);
        if (signaling.active().includes(callId)) await signaling.hangup(callId);
        return;
      }
      await apply(callId, callEventOf(await judge(callId, e)), pickedUp, sip);
    }, e.type);
  };

  const open = async (listen: string): Promise<SipSignaling> => {
    const o = { listen, ringTimeoutSeconds: s.config.ringTimeoutSeconds, onEvent, log, media };
    if (!s.config.drachtio) return createSipSignaling(o);
    // With DRACHTIO_HOST the SIP goes through that drachtio-server; the media stays here.
    // Its client library is loaded only then.
    const { createDrachtioSignaling } = await import('../../gateway/drachtio.ts');
    return createDrachtioSignaling({ ...o, drachtio: s.config.drachtio, mediaHost });
  };
  try {
    try {
      signaling = await open(s.config.sipListen);
    } catch (err) {
      // Several server processes on one machine: the first has the default
      // port; the others take a free one (calls are outbound: the callee
      // answers to the address in Via, whatever its port).
      if (!s.config.sipListenIsDefault || !/in use/i.test((err as Error).message)) throw err;
      const host = s.config.sipListen.slice(0, s.config.sipListen.lastIndexOf(':'));
      signaling = await open(`${host}:0`);
      log.warn({ wanted: s.config.sipListen, bound: signaling.address }, 'the default SIP port is taken; the gateway listens on a free one (set TOLK_SIP_LISTEN to choose)');
    }
  } catch (err) {
    await callee?.close();
    await media.stop();
    throw err;
  }
  const sip = signaling;

  // What the far end says on an answered call becomes a phrase of its log
  // (segment.final on its session), in the order heard; a DTMF digit an
  // event of its own. Heard before the call is answered (the greeting that
  // answering-machine detection listens to) is not part of the conversation.
  const hearing = perKey((err, callId) => log.warn({ err: String(err), callId }, 'what was heard on the line was not published'));
  const publishHeard = (callId: string, what: (lang: string) => Promise<Segment | null>) =>
    hearing.run(callId, async () => {
      const line = talking.get(callId);
      const seg = await what(line?.lang ?? 'en');
      if (!seg || !talking.has(callId)) return;
      await withTx(s.pool, (tx) => publishSegment(s, tx, seg));
    });
  media.on('heard', (callId, u) => {
    if (!sip.active().includes(callId)) return;
    publishHeard(callId, async (lang) => {
      // Recognized even when it will not be published: the recognizer keeps its place in the conversation.
      const { text } = await recognizer.recognize({ key: callId, pcm: u.pcm, audioMs: u.audioMs, lang, at: u.at });
      return { roomId: callId, kind: 'person', speaker: CALLEE_NAME, participantId: 'callee', srcLang: lang, text, audioMs: u.audioMs, metered: false };
    });
  });
  media.on('dtmf', (callId, digit, durationMs) => {
    if (!sip.active().includes(callId)) return;
    publishHeard(callId, async (lang) => ({
      roomId: callId, kind: 'dtmf', speaker: CALLEE_NAME, participantId: 'callee', srcLang: lang, text: digit, audioMs: durationMs, metered: false,
    }));
  });
  await s.pool.query(`INSERT INTO gateways (id, sip_address) VALUES ($1, $2)`, [id, sip.address]);

  // Calls ended elsewhere: hang up the ones whose dialog is here. On
  // (re)connect, whatever was announced while down is found by asking.
  const hangUpEnded = async () => {
    const keys = sip.active();
    if (keys.length === 0) return;
    const { rows } = await s.pool.query<{ id: string }>(`SELECT id FROM calls WHERE id = ANY($1) AND status = ANY($2)`, [keys, [...ENDED]]);
    for (const r of rows) await sip.hangup(r.id);
  };
  const listener = new PgListener(databaseUrl, CALLS_CHANNEL, {
    onNotify: (payload) => {
      const said = parseSayNotice(payload);
      const callee_ = parseCalleeNotice(payload);
      if (said) {
        if (sip.active().includes(said.callId)) sayOnLine(said.callId, said.seq, said.utteranceId);
      } else if (callee_) {
        // The simulator gives the built-in callee its words; the one holding the call says them.
        if (callee && sip.active().includes(callee_.callId)) {
          callee.say(callee_.callId, callee_.text, callee_.lang).catch((err) => log.warn({ err: String(err), callId: callee_.callId }, 'the callee could not speak'));
        }
      } else if (sip.active().includes(payload)) void sip.hangup(payload);
    },
    onUp: () => { hangUpEnded().catch((err) => log.error({ err }, 'cannot check ended calls')); },
  });
  await listener.start();

  const sweep = async (): Promise<number> => {
    const dialed = await dialUnclaimed();
    // silent_s: how long ago the lost gateway last beat (null: its row is gone).
    const { rows } = await s.pool.query<{ id: string; silent_s: number | null }>(
      `SELECT c.id, extract(epoch FROM now() - g.heartbeat_at)::float8 AS silent_s
         FROM calls c LEFT JOIN gateways g ON g.id = c.gateway_id
        WHERE c.status IN ('queued', 'ringing', 'answered') AND c.gateway_id IS NOT NULL AND c.gateway_id <> $1
          AND (g.id IS NULL OR g.heartbeat_at < now() - make_interval(secs => $2))
        ORDER BY c.created_at LIMIT 100`,
      [id, s.config.gatewayLostSeconds],
    );
    for (const r of rows) {
      // The line is billed up to the gateway's last sign of life, not the
      // seconds it took to notice it was gone. endCall also tells the gateway,
      // should it only have been late, to hang up.
      const endedAt = r.silent_s === null ? undefined : new Date(now(s).getTime() - r.silent_s * 1000);
      await withTx(s.pool, (tx) => endCall(s, tx, r.id, { type: 'FAILED', reason: 'gateway_lost' }, { endedAt }));
    }
    return dialed + rows.length;
  };
  // The heartbeat and the sweep on timers of their own: a long sweep never
  // delays this gateway's own beat (and makes it look lost).
  const every = Math.max(200, (s.config.gatewayLostSeconds * 1000) / 4);
  let beating: Promise<unknown> | null = null;
  let sweeping: Promise<unknown> | null = null;
  const beat = setInterval(() => {
    // Calls whose dialog went without an event here (hung up through another process) stop being heard.
    if (talking.size > 0) {
      const up = new Set(sip.active());
      for (const k of talking.keys()) if (!up.has(k)) talking.delete(k);
    }
    beating ??= s.pool
      .query(`UPDATE gateways SET heartbeat_at = now() WHERE id = $1`, [id])
      .catch((err) => log.error({ err }, 'gateway heartbeat failed'))
      .finally(() => { beating = null; });
  }, every);
  beat.unref();
  // An answered call whose far end sends nothing (no RTP, no RTCP: gone without a BYE) for
  // TOLK_MEDIA_TIMEOUT_SECONDS is hung up: completed, media_timeout (operator.md).
  let watching: Promise<unknown> | null = null;
  const watchMedia = async () => {
    const limit = s.config.mediaTimeoutSeconds * 1000;
    for (const callId of [...talking.keys()]) {
      const st = await media.stats(callId);
      if (!st) continue;
      const quietFor = Date.now() - (st.heardAt ?? st.openedAt);
      if (quietFor < limit) continue;
      talking.delete(callId);
      log.warn({ callId, quietMs: quietFor }, 'no media from the far end: hung up');
      chains.run(callId, async () => {
        await apply(callId, { type: 'MEDIA_TIMEOUT' });
        if (sip.active().includes(callId)) await sip.hangup(callId);
      }, 'media_timeout');
    }
  };
  const mediaWatch = setInterval(() => {
    if (talking.size === 0) return;
    watching ??= watchMedia().catch((err) => log.error({ err }, 'media watch failed')).finally(() => { watching = null; });
  }, Math.min(1000, s.config.mediaTimeoutSeconds * 250));
  mediaWatch.unref();
  const sweeper = setInterval(() => {
    sweeping ??= sweep()
      .catch((err) => log.error({ err }, 'sweep of lost gateways failed'))
      .finally(() => { sweeping = null; });
  }, every);
  sweeper.unref();

  type Claimed = { id: string; to_e164: string; from_e164: string; remote_lang: string };
  /** Claims the calls no gateway has dialed yet (one statement for many: the dial jobs come in batches) and dials them. */
  const dial = async (...callIds: string[]): Promise<void> => {
    const { rows } = await s.pool.query<Claimed>(prepared(
      `UPDATE calls SET gateway_id = $2 WHERE id = ANY($1) AND gateway_id IS NULL AND status = 'queued' RETURNING id, to_e164, from_e164, remote_lang`,
      [callIds, id],
    ));
    // The others were dialed by another gateway (most often: the one that accepted them), or ended before.
    await place(rows);
  };
  /**
   * The fallback: calls placed DIAL_FALLBACK_SECONDS ago or more that no
   * gateway claimed (their process died between its commit and its dial),
   * oldest first, claimed by one gateway (SKIP LOCKED) and dialed. Found
   * through calls_open, whose unclaimed entries are the calls being placed
   * right now. The service clock's time: created_at is written with it.
   */
  const dialUnclaimed = async (): Promise<number> => {
    const { rows } = await s.pool.query<Claimed>(prepared(
      `UPDATE calls SET gateway_id = $1
        WHERE id IN (SELECT id FROM calls WHERE status = 'queued' AND gateway_id IS NULL AND created_at < $2
                      ORDER BY created_at LIMIT 100 FOR UPDATE SKIP LOCKED)
          AND gateway_id IS NULL
        RETURNING id, to_e164, from_e164, remote_lang`,
      [id, new Date(now(s).getTime() - DIAL_FALLBACK_SECONDS * 1000)],
    ));
    await place(rows);
    return rows.length;
  };
  const place = async (rows: Claimed[]): Promise<void> => {
    for (const call of rows) {
      try {
        // The built-in callee is told which call it is and the language to speak (never sent to a real peer).
        const headers = callee ? { 'X-Tolk-Call': call.id, 'X-Tolk-Lang': call.remote_lang } : undefined;
        await sip.place({ key: call.id, target: targetOf(peer, callee?.address ?? null, call.to_e164), from: call.from_e164, headers });
      } catch (err) {
        log.error({ err, callId: call.id }, 'cannot place call');
        onEvent(call.id, { type: 'no_response' });
      }
    }
  };

  return {
    id,
    address: sip.address,
    active: () => sip.active(),
    dial,
    sweep,
    media,
    stop: async () => {
      clearInterval(beat);
      clearInterval(sweeper);
      clearInterval(mediaWatch);
      await beating;
      await sweeping;
      await listener.close();
      // The dialogs this process holds cannot go on without it.
      for (const callId of sip.active()) {
        await withTx(s.pool, (tx) => applyCallEvent(s, tx, callId, { type: 'FAILED', reason: 'gateway_lost' })).catch(() => {});
      }
      await sip.close();
      await Promise.allSettled([...chains.pending(), ...lines.pending(), ...hearing.pending()]);
      await callee?.close();
      await media.stop();
      await speech.close();
      // The service's recognizers outlive the gateway (the platform closes them); the callee's go with it.
      if (recognizer !== s.recognizer) await recognizer.close();
      await s.pool.query(`DELETE FROM gateways WHERE id = $1`, [id]).catch(() => {});
    },
  };
}
