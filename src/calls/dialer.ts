import { maskNumber } from '../../policies/evaluate.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBase62 } from '../ids.ts';
import { prepared, withTx } from '../db/pool.ts';
import { now, type CallGateway, type Services } from '../services.ts';
import type { CallEvent, TrunkFailure } from '../../machines/call.ts';
import type { DialogEvent } from '../../gateway/signaling.ts';
import type { Gateway } from '../../gateway/gateway.ts';
import { ENDED } from './calls.ts';
import { applyCallEvent, applyCallEventAlone, type ApplyOpts, type CallState } from './events.ts';
import { claimCalls, type Claimed } from './claims.ts';
import { callEventOf, sipAnswerOf } from './dialog-events.ts';
import { CallLines } from './lines.ts';
import type { Log } from './line-deps.ts';
import { DatabaseBack, whenDatabaseBack } from './outage.ts';
import { writeMaxDurationJob } from './jobs.ts';

// The calls' side of this process's SIP gateway (gateway/gateway.ts, which the
// platform starts): which calls it dials, and what SIP's answers mean for them
// (dialog-events.ts). Each call dialed here has its line (call-line.ts, in
// the registry of lines.ts) from its dial to its end.
//
// - A call is dialed by the process that claims it (calls.gateway_id): the
//   API process right after POST /v1/calls commits (place.ts). If that
//   process died before it claimed the call, every gateway's sweep
//   (sweep.ts) claims and dials it. A process that runs no gateway writes a
//   dial job instead, in the call's transaction, for any gateway to take. A
//   committed call is always dialed, and only once.
// - Dialog events become the call machine's events (events.ts), applied one
//   call at a time in the order SIP reported them.
// - What the service tells the gateway holding a call's dialog comes on
//   CALLS_CHANNEL (notices.ts); the gateway beats in `gateways`
//   (heartbeat.ts), and the calls of gateways that stopped beating end
//   failed/gateway_lost (sweep.ts).
// - While PostgreSQL is away, what SIP says about a call (answered, hung up,
//   a digit, a phrase heard) waits in the call's chain, with the moment it
//   happened, and is written in order once the database is back
//   (outage.ts): the call is answered and billed from its real pick-up to
//   its real end. The per-call limit is a timer on the line too, beside the
//   durable job: the line is hung up at the limit whatever the database
//   does, and never billed past it.

/**
 * How long a call answered while the database is away stays on the line with
 * its answer unwritten (CallLine.unwrittenFrom). Ten minutes: a database restart or a
 * failover is over well within it, so calls ride it out; an outage longer
 * than that is not one to keep people on unbilled lines through. (An object
 * so that a test in the gateway's process can shorten it.)
 */
export const UNWRITTEN_ANSWER = { seconds: 600 };

/** How long a 2xx's far end may send no audio at all before the call is taken as answered by a person. */
const AMD_NO_MEDIA_MS = 1000;

/** A gateway bound to the calls, with what its heartbeat, sweep and notices (started beside it by the platform) work on. */
export type Dialer = CallGateway & {
  gateway: Gateway;
  lines: CallLines;
  /** Woken when the heartbeat or LISTEN sees the database back. */
  back: DatabaseBack;
  /** Dials calls claimed for this gateway (claims.ts). */
  place(rows: Claimed[]): Promise<void>;
};

/**
 * Binds a started gateway to the calls: from here the gateway dials the calls
 * this process claims, and its dialog events move the call actors. Stopping
 * the binding ends the calls whose dialog is here (failed/gateway_lost); the
 * platform stops the gateway itself after it.
 */
export async function bindGateway(s: Services, gw: Gateway, log: Log): Promise<Dialer> {
  const id = `gw_${randomBase62(16)}`;
  const { signaling: sip, media } = gw;
  const trunks = s.reactions.trunkDialer(s.pool, s.config.secretKey);
  /** Live calls on their way to an INVITE, to wait for at stop. */
  const pacing = new Set<Promise<void>>();
  /** Aborts the calls-per-second waits at stop: those calls stay queued for another gateway (sweep.ts). */
  const stopping = new AbortController();
  /** Wakes the writes waiting for the database when the heartbeat or LISTEN sees it back. */
  const back = new DatabaseBack();
  /** Aborted at stop: a write still waiting for the database gives up (and is logged) instead of holding the stop. */
  const closing = new AbortController();
  const lines: CallLines = new CallLines({
    s, gw, log, back, signal: closing.signal, unspoken: new Set(),
    apply: (callId, event, endedAt) => apply(callId, event, undefined, undefined, endedAt),
  });

  const apply = async (callId: string, event: CallEvent, answeredAt?: Date, answer?: { code: number; reason: string }, endedAt?: Date) => {
    const line = lines.get(callId);
    const opts: ApplyOpts = {
      // The simulated callee talks with the call's agent in its log; a call into a room has none.
      simulatedCallee: gw.callee !== null && !line?.live && !line?.room,
      answeredAt,
      ...(endedAt ? { endedAt } : {}),
      ...(answer ? { sip: answer } : {}),
      maxDurationJob: (t, cid, seconds) => writeMaxDurationJob(s, t, cid, seconds),
      last: true,
    };
    // Written once the database can be reached; the events behind it in the
    // call's chain wait for it (a refused transition is not retried: the
    // machine already said no).
    const r = await whenDatabaseBack(async () => {
      const cached = line?.state;
      return (cached ? await applyCallEventAlone(s, cached, event, opts) : undefined)
        ?? await withTx(s.pool, (tx) => applyCallEvent(s, tx, callId, event, opts));
    }, back, {
      signal: closing.signal,
      waiting: (err) => {
        log.warn({ callId, event: event.type, err: String(err) }, 'the database is away: this call\'s events wait, in order, to be written');
        // A person answered: the line hears them from now on, though the answer is not written yet.
        if (event.type === 'ANSWERED' && sip.active().includes(callId)) line?.answer();
        if (event.type === 'ANSWERED' && answeredAt) line?.unwrittenFrom(answeredAt, UNWRITTEN_ANSWER.seconds);
      },
      written: (waitedMs) => {
        log.info({ callId, event: event.type, waitedMs }, 'this call\'s events were written once the database came back');
        if (event.type === 'ANSWERED') line?.answerWritten();
      },
    });
    if (line) line.state = r.state ?? undefined;
    // The call ended with this event (a voicemail answered, a failure), or had
    // ended before SIP got this far (hung up while the INVITE was on its way,
    // before this gateway held the dialog): the dialog goes too.
    const dialogUp = sip.active().includes(callId);
    if (dialogUp && (r.hangUp || (!r.changed && ENDED.has(r.row.status)))) await sip.hangup(callId);
    if (ENDED.has(r.row.status)) lines.dispose(callId);
    if (!dialogUp && line) line.state = undefined;
    // Answered: the first thing on the line is the AI disclosure, in the callee's language.
    if (dialogUp && r.changed && r.row.status === 'answered') line?.answer();
  };
  /**
   * A 2xx is a person or a machine: the first seconds of the far end's audio
   * decide (answering-machine detection, gateway/media/amd.ts), before the
   * call is answered or ends as voicemail. A peer that sends no audio at all
   * within AMD_NO_MEDIA_MS, or says it is a voicemail system
   * (X-Tolk-Answered-By), is taken at its word at once.
   */
  const judge = async (callId: string, e: DialogEvent): Promise<DialogEvent> => {
    if (e.type !== 'answered' || e.voicemail || e.human) return e;
    const verdict = await media.detectMachine(callId, { noMediaMs: AMD_NO_MEDIA_MS });
    log.info({ callId, verdict }, 'answering-machine detection');
    return verdict.kind === 'machine' ? { ...e, voicemail: true } : e;
  };
  const onEvent = (callId: string, e: DialogEvent) => {
    const line = lines.get(callId);
    // The moment the far end picked up, before answering-machine detection listens.
    const pickedUp = e.type === 'answered' ? now(s) : undefined;
    // The moment a dialog ended (its BYE, its silence, its final answer): the call ends then, however late it is written.
    const endedAt = e.type === 'answered' || e.type === 'ringing' ? undefined : now(s);
    if (pickedUp && e.type === 'answered' && !e.voicemail) line?.limitFrom(pickedUp);
    if (endedAt) line?.clearTimers();
    const answer = sipAnswerOf(e);
    // The disclosure starts at the pick-up, while answering-machine detection listens (asynchronous AMD):
    // a person who picks up and waits hears it at once. A machine still ends the call as voicemail.
    if (e.type === 'answered' && !e.voicemail && sip.hasMedia(callId)) line?.pickedUp();
    // A 2xx without usable media never comes as `answered`: the signaling hung it up and reports
    // no_media (failed, billed 0, no disclosure said); nor does a line gone silent, which it reports
    // as media_timeout (operator.md). Both are events like the others.
    lines.run(callId, async () => {
      await apply(callId, callEventOf(await judge(callId, e)), pickedUp, answer, endedAt);
    }, e.type);
  };
  gw.onDialog(onEvent);
  // What the far end says and keys goes to the line of its call (heard only while the dialog is here).
  media.on('heard', (callId, u) => { if (sip.active().includes(callId)) lines.get(callId)?.hearing.hear(u); });
  // The utterance under way, as it is said: a streaming recognizer's partials (line-hearing.ts listen).
  media.on('audio', (callId, pcm, start) => lines.get(callId)?.hearing.listen(pcm, start));
  media.on('unheard', (callId) => lines.get(callId)?.hearing.unheard());
  media.on('dtmf', (callId, digit, durationMs) => { if (sip.active().includes(callId)) lines.get(callId)?.hearing.digit(digit, durationMs); });
  // What is said on it, as it is sent (a say's progress), and when the far end starts and stops talking.
  media.on('started', (callId, u) => lines.get(callId)?.progress(u, 'started', 0));
  media.on('finished', (callId, u, spokenMs) => lines.get(callId)?.progress(u, 'finished', spokenMs));
  media.on('interrupted', (callId, u, spokenMs) => lines.get(callId)?.progress(u, 'interrupted', spokenMs));
  media.on('speech', (callId, kind) => { if (sip.active().includes(callId)) lines.get(callId)?.hearing.speech(kind === 'onset' ? 'started' : 'stopped'); });
  await s.pool.query(`INSERT INTO gateways (id, sip_address) VALUES ($1, $2)`, [id, sip.address]);

  /** `written`: the call as this process just wrote it (placed here), kept to apply its ringing and answer in one statement each. */
  const place = async (rows: Claimed[], written?: CallState): Promise<void> => {
    for (const call of rows) {
      const voice = call.voice_id ? { id: call.voice_id, orgId: call.org_id, livemode: call.livemode } : undefined;
      const maxSeconds = call.max_answered_seconds === null ? null : Number(call.max_answered_seconds);
      const line = lines.open({
        id: call.id, lang: call.remote_lang, ...(voice ? { voice } : {}), maxSeconds, live: call.livemode && call.trunk_id !== null,
        ...(call.room_id ? { room: { id: call.room_id, phone: maskNumber(call.to_e164) } } : {}),
      });
      if (written?.call.id === call.id) line.state = written;
      // What the line says at the pick-up, before the call's answer is written: the disclosure, in its voice.
      line.prepare();
      // A live call goes out through its trunk, never to the simulated callee or the test peer.
      if (call.livemode) {
        if (!call.trunk_id) {
          lines.run(call.id, () => apply(call.id, { type: 'FAILED', reason: 'trunk_missing' }), 'trunk_missing');
          continue;
        }
        // A live call: through its trunk, paced by its calls-per-second limit (its wait holds up no other call).
        const p = placeThroughTrunk(call, call.trunk_id).finally(() => pacing.delete(p));
        pacing.add(p);
        continue;
      }
      try {
        await sip.place({ key: call.id, target: gw.target(call.to_e164), from: call.from_e164, headers: gw.inviteHeaders(call.id, call.remote_lang) });
      } catch (err) {
        log.error({ err, callId: call.id }, 'cannot place call');
        onEvent(call.id, { type: 'no_response' });
      }
    }
  };
  /**
   * A live call (trunks/dial.ts, through the trunkDialer port): a trunk down, removed, or with its pacing
   * queue full fails it at once; otherwise its INVITE leaves at its slot,
   * unless the call ended while it waited.
   */
  const placeThroughTrunk = async (call: Claimed, trunkId: string): Promise<void> => {
    const fail = (reason: TrunkFailure, detail: string) => {
      log.warn({ callId: call.id, trunk: trunkId, reason: detail }, 'live call failed before its INVITE');
      lines.run(call.id, () => apply(call.id, { type: 'FAILED', reason }), reason);
    };
    const line = lines.get(call.id);
    if (line) line.preparing = true;
    try {
      const d = await trunks.prepare(trunkId, call.to_e164);
      if (!d.ok) return fail(d.reason, d.detail);
      if (d.waitMs > 0) {
        try {
          await sleep(d.waitMs, undefined, { signal: stopping.signal });
        } catch {
          return; // stopping: the call stays queued, and another gateway dials it
        }
        const { rows } = await s.pool.query<{ status: string }>(prepared(`SELECT status FROM calls WHERE id = $1`, [call.id]));
        if (rows[0]?.status !== 'queued') return;
      }
      await sip.place({ key: call.id, target: d.target, from: call.from_e164, trunk: d.route });
    } catch (err) {
      // A stored password the key cannot read (TrunkDialer): its message says what to do, the stack adds nothing.
      log.error({ err: err instanceof Error && err.name === 'SecretKeyError' ? err.message : err, callId: call.id, trunk: trunkId }, 'cannot place live call');
      onEvent(call.id, { type: 'no_response' });
    } finally {
      if (line) line.preparing = false;
    }
  };

  return {
    id,
    address: sip.address,
    gateway: gw,
    lines,
    back,
    place,
    active: () => sip.active(),
    /** Claims the calls no gateway has dialed yet and dials them; the others were dialed by another gateway (most often: the one that accepted them), or ended before. */
    dial: async (...callIds: string[]) => {
      await place(await claimCalls(s, id, callIds));
    },
    /** A call this process placed and committed with this gateway's id: dialed at once, with what was written. */
    dialPlaced: async (state: CallState) => {
      const r = state.call.row;
      await place([{ id: r.id, to_e164: r.to_e164, from_e164: r.from_e164, remote_lang: r.remote_lang, trunk_id: r.trunk_id ?? null, livemode: r.livemode, voice_id: r.voice_id, org_id: r.org_id, max_answered_seconds: r.max_answered_seconds, room_id: r.room_id ?? null }], state);
    },
    media,
    stop: async () => {
      lines.clearTimers();
      // The dialogs this process holds cannot go on without it.
      for (const callId of sip.active()) {
        await withTx(s.pool, (tx) => applyCallEvent(s, tx, callId, { type: 'FAILED', reason: 'gateway_lost' })).catch(() => {});
      }
      await Promise.allSettled(sip.active().map((callId) => sip.hangup(callId)));
      stopping.abort();
      // What still waits for the database is given up now (each logged: 'call event not applied').
      closing.abort();
      await Promise.allSettled([...pacing]);
      await Promise.allSettled(lines.pending());
      await s.pool.query(`DELETE FROM gateways WHERE id = $1`, [id]).catch(() => {});
    },
  };
}
