import { setTimeout as sleep } from 'node:timers/promises';
import { randomBase62 } from '../ids.ts';
import { prepared, withTx, type Client } from '../db/pool.ts';
import { PgListener } from '../db/listener.ts';
import { inTx } from '../jobs/in-tx.ts';
import { now, type CallGateway, type Services } from '../services.ts';
import type { CallEvent, TrunkFailure } from '../../machines/call.ts';
import type { DialogEvent } from '../../gateway/signaling.ts';
import type { Gateway } from '../../gateway/gateway.ts';
import { ENDED } from './calls.ts';
import { applyCallEvent, applyCallEventAlone, type ApplyOpts, type CallState } from './events.ts';
import { CALLS_CHANNEL, decodeNotice } from './channel.ts';
import { claimCalls, claimOrphans, claimUnclaimed, endCallsOfLostGateways, type Claimed } from './claims.ts';
import { callEventOf, sipAnswerOf } from './dialog-events.ts';
import { openLine, type CallVoice } from './line.ts';
import { perKey } from './per-key.ts';
import { DatabaseBack, whenDatabaseBack } from './outage.ts';
import { TrunkDialer } from './trunk-dial.ts';
import { SecretKeyError } from '../trunks/secret.ts';

// The calls' side of this process's SIP gateway (gateway/gateway.ts, which the
// platform starts): which calls it dials, what SIP's answers mean for them
// (dialog-events.ts), and the calls of gateways that died (claims.ts).
//
// - A call is dialed by the process that claims it (calls.gateway_id): the
//   API process right after POST /v1/calls commits. If that process died
//   before it claimed the call, every gateway's sweep looks for calls still
//   queued and unclaimed DIAL_FALLBACK_SECONDS after they were placed, and
//   one of them claims and dials it. A process that runs no gateway writes a
//   dial job instead, in the call's transaction, for any gateway to take. A
//   committed call is always dialed, and only once.
// - Dialog events become the call machine's events (events.ts), applied one
//   call at a time in the order SIP reported them.
// - What the service tells the gateway holding a call's dialog comes on
//   CALLS_CHANNEL (channel.ts): hang up, say a phrase on the line (line.ts),
//   the built-in callee's words.
// - Each gateway beats in `gateways`; every gateway sweeps the calls of
//   gateways that stopped beating, which end failed/gateway_lost: a call is
//   never left ringing or answered by a process that died.
// - While PostgreSQL is away, what SIP says about a call (answered, hung up,
//   a digit, a phrase heard) waits in the call's chain, with the moment it
//   happened, and is written in order once the database is back
//   (outage.ts): the call is answered and billed from its real pick-up to
//   its real end. The per-call limit is a timer here too, beside the
//   durable job: the line is hung up at the limit whatever the database
//   does, and never billed past it.

export const DIAL_QUEUE = 'call-dial';
export const MAX_DURATION_QUEUE = 'call-max-duration';

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

/**
 * How long a call answered while the database is away stays on the line with
 * its answer unwritten (armUnwritten). Ten minutes: a database restart or a
 * failover is over well within it, so calls ride it out; an outage longer
 * than that is not one to keep people on unbilled lines through. (An object
 * so that a test in the gateway's process can shorten it.)
 */
export const UNWRITTEN_ANSWER = { seconds: 600 };

/** How long a 2xx's far end may send no audio at all before the call is taken as answered by a person. */
const AMD_NO_MEDIA_MS = 1000;

/**
 * Binds a started gateway to the calls: from here the gateway dials the calls
 * this process claims, and its dialog events move the call actors. Stopping
 * the binding ends the calls whose dialog is here (failed/gateway_lost); the
 * platform stops the gateway itself after it.
 */
export async function bindGateway(s: Services, gw: Gateway, databaseUrl: string, log: Log): Promise<CallGateway> {
  const id = `gw_${randomBase62(16)}`;
  const { signaling: sip, media } = gw;
  /** Live calls dialed here (through a trunk): the built-in callee is never theirs, and the service's recognizers hear them. */
  const liveCalls = new Set<string>();
  const trunks = new TrunkDialer(s.pool, s.config.secretKey);
  /** Live calls on their way to an INVITE (their trunk read, their calls-per-second slot awaited), and the promises to wait for at stop. */
  const pacing = new Set<Promise<void>>();
  const preparing = new Set<string>();
  /** Aborts the calls-per-second waits at stop: those calls stay queued for another gateway (dialOrphans). */
  const stopping = new AbortController();
  // One chain per call: its events are applied in the order SIP reported them.
  const chains = perKey((err, callId, event) => log.error({ err, callId, event }, 'call event not applied'));
  /** Wakes the writes waiting for the database when the heartbeat or LISTEN sees it back. */
  const back = new DatabaseBack();
  /** Aborted at stop: a write still waiting for the database gives up (and is logged) instead of holding the stop. */
  const closing = new AbortController();
  /**
   * What the line needs of each call dialed here before its answer is
   * written: the callee's language and voice (the line hears the far end at
   * once, even when the answer waits for the database) and the per-call
   * limit (its timer starts at the pick-up).
   */
  const dialed = new Map<string, { lang: string; voice?: CallVoice; maxSeconds: number | null; since: number }>();
  /** The per-call limit's timers of the calls answered here (armCap), and those of the answers the database has not taken yet (armUnwritten). */
  const caps = new Map<string, NodeJS.Timeout>();
  const unwritten = new Map<string, NodeJS.Timeout>();
  const clearCap = (callId: string) => {
    for (const m of [caps, unwritten]) {
      const t = m.get(callId);
      if (t) clearTimeout(t);
      m.delete(callId);
    }
  };
  const line = openLine(s, gw, log, {
    live: (callId) => liveCalls.has(callId),
    // What is heard is published in the call's chain, after the answer and before the hangup SIP reported around it.
    queue: (callId, task, what) => chains.run(callId, task, what),
    back,
    signal: closing.signal,
  });

  /**
   * Each call this gateway holds, as this process last wrote it (events.ts
   * CallState): its next ringing or answer is applied in one statement on
   * it. A cache: an entry lost, or stale (checked by version), only costs
   * the event the usual locked transaction.
   */
  const known = new Map<string, CallState>();
  const apply = async (callId: string, event: CallEvent, answeredAt?: Date, answer?: { code: number; reason: string }, endedAt?: Date) => {
    const opts: ApplyOpts = {
      simulatedCallee: gw.callee !== null && !liveCalls.has(callId),
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
      const cached = known.get(callId);
      return (cached ? await applyCallEventAlone(s, cached, event, opts) : undefined)
        ?? await withTx(s.pool, (tx) => applyCallEvent(s, tx, callId, event, opts));
    }, back, {
      signal: closing.signal,
      waiting: (err) => {
        log.warn({ callId, event: event.type, err: String(err) }, 'the database is away: this call\'s events wait, in order, to be written');
        // A person answered: the line hears them from now on, though the answer is not written yet.
        const d = dialed.get(callId);
        if (event.type === 'ANSWERED' && d && sip.active().includes(callId)) line.answered(callId, d.lang, d.voice);
        if (event.type === 'ANSWERED' && answeredAt) armUnwritten(callId, answeredAt);
      },
      written: (waitedMs) => {
        log.info({ callId, event: event.type, waitedMs }, 'this call\'s events were written once the database came back');
        if (event.type === 'ANSWERED') {
          clearTimeout(unwritten.get(callId));
          unwritten.delete(callId);
        }
      },
    });
    if (r.state) known.set(callId, r.state);
    else known.delete(callId);
    // The call ended with this event (a voicemail answered, a failure), or had
    // ended before SIP got this far (hung up while the INVITE was on its way,
    // before this gateway held the dialog): the dialog goes too.
    const dialogUp = sip.active().includes(callId);
    if (dialogUp && (r.hangUp || (!r.changed && ENDED.has(r.row.status)))) await sip.hangup(callId);
    if (ENDED.has(r.row.status)) {
      line.ended(callId);
      liveCalls.delete(callId);
      clearCap(callId);
      dialed.delete(callId);
    }
    if (!dialogUp) known.delete(callId);
    // Answered: the first thing on the line is the AI disclosure, in the callee's language.
    if (dialogUp && r.changed && r.row.status === 'answered') {
      line.answered(callId, r.row.remote_lang, r.row.voice_id ? { id: r.row.voice_id, orgId: r.row.org_id, livemode: r.row.livemode } : undefined);
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
    if (e.type !== 'answered' || e.voicemail || e.human) return e;
    const verdict = await media.detectMachine(callId, { noMediaMs: AMD_NO_MEDIA_MS });
    log.info({ callId, verdict }, 'answering-machine detection');
    return verdict.kind === 'machine' ? { ...e, voicemail: true } : e;
  };
  /**
   * The per-call limit on the line: from the pick-up, the gateway hangs up
   * at the limit itself, whether or not the durable job (written with the
   * answer) can run: with the database away, the answer may not even be
   * written yet. The call ends max_duration at the limit's moment, so it is
   * billed the limit and not the seconds its BYE took. The timer lives as
   * long as the dialog in this process: if the process dies, the dialog
   * dies with it and the sweep of lost gateways ends the call.
   */
  const armCap = (callId: string, pickedUp: Date) => {
    const max = dialed.get(callId)?.maxSeconds;
    if (max === null || max === undefined) return;
    clearCap(callId);
    const endAt = new Date(pickedUp.getTime() + max * 1000);
    const timer = setTimeout(() => {
      caps.delete(callId);
      if (!sip.active().includes(callId)) return;
      log.info({ callId, maxSeconds: max }, 'the per-call limit hangs up the line');
      sip.hangup(callId).catch((err) => log.error({ err, callId }, 'cannot hang up at the per-call limit'));
      chains.run(callId, () => apply(callId, { type: 'MAX_DURATION' }, undefined, undefined, endAt), 'MAX_DURATION');
    }, Math.max(0, endAt.getTime() - now(s).getTime()));
    timer.unref();
    caps.set(callId, timer);
  };
  /**
   * A call answered while the database is away, with no per-call limit (or
   * a longer one): its answer is kept in this process's memory alone. Should
   * the process die before the database is back, the line dies with it and
   * the call ends failed/gateway_lost unbilled; and no spending limit can be
   * checked meanwhile. So after UNWRITTEN_ANSWER.seconds with its answer
   * still unwritten, the line is hung up: the call ends failed/gateway_lost
   * at that moment, billed from its pick-up, once the database is back.
   */
  const armUnwritten = (callId: string, pickedUp: Date) => {
    if (unwritten.has(callId)) return;
    const seconds = UNWRITTEN_ANSWER.seconds;
    const endAt = new Date(pickedUp.getTime() + seconds * 1000);
    const timer = setTimeout(() => {
      unwritten.delete(callId);
      if (!sip.active().includes(callId)) return;
      log.warn({ callId, seconds }, 'the database has been away since this call was answered: the line is hung up');
      sip.hangup(callId).catch((err) => log.error({ err, callId }, 'cannot hang up a call whose answer is not written'));
      chains.run(callId, () => apply(callId, { type: 'FAILED', reason: 'gateway_lost' }, undefined, undefined, endAt), 'FAILED');
    }, Math.max(0, endAt.getTime() - now(s).getTime()));
    timer.unref();
    unwritten.set(callId, timer);
  };
  const onEvent = (callId: string, e: DialogEvent) => {
    // The moment the far end picked up, before answering-machine detection listens.
    const pickedUp = e.type === 'answered' ? now(s) : undefined;
    // The moment a dialog ended (its BYE, its silence, its final answer): the call ends then, however late it is written.
    const endedAt = e.type === 'answered' || e.type === 'ringing' ? undefined : now(s);
    if (pickedUp && e.type === 'answered' && !e.voicemail) armCap(callId, pickedUp);
    if (endedAt) clearCap(callId);
    const answer = sipAnswerOf(e);
    // The disclosure starts at the pick-up, while answering-machine detection listens (asynchronous AMD):
    // a person who picks up and waits hears it at once. A machine still ends the call as voicemail.
    if (e.type === 'answered' && !e.voicemail && sip.hasMedia(callId)) line.pickedUp(callId);
    // A 2xx without usable media never comes as `answered`: the signaling hung it up and reports
    // no_media (failed, billed 0, no disclosure said); nor does a line gone silent, which it reports
    // as media_timeout (operator.md). Both are events like the others.
    chains.run(callId, async () => {
      await apply(callId, callEventOf(await judge(callId, e)), pickedUp, answer, endedAt);
    }, e.type);
  };
  gw.onDialog(onEvent);
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
      const n = decodeNotice(payload);
      if (!n) return log.warn({ payload: payload.slice(0, 80) }, 'a notice on the calls channel this version does not know');
      if (!sip.active().includes(n.call)) return;
      if (n.type === 'hangup') void sip.hangup(n.call);
      else if (n.type === 'say') line.say(n);
      // The simulator gives the built-in callee its words; the one holding the call says them.
      else gw.callee?.say(n.call, n.text, n.lang).catch((err) => log.warn({ err: String(err), callId: n.call }, 'the callee could not speak'));
    },
    onUp: () => {
      back.back();
      hangUpEnded().catch((err) => log.error({ err }, 'cannot check ended calls'));
    },
  });
  await listener.start();

  /** Dials the calls nobody dialed (unclaimed, or their gateway lost) and ends the ringing and answered calls of lost gateways. */
  const sweep = async (): Promise<number> => {
    const unclaimed = await claimUnclaimed(s, id);
    await place(unclaimed);
    // After an outage of the database every gateway's last beat is old: the
    // others are judged lost only once they have had the time to beat again
    // (their calls answered meanwhile are theirs to write, not failed/gateway_lost).
    if (healthySince === null || Date.now() - healthySince < s.config.gatewayLostSeconds * 1000) return unclaimed.length;
    const orphans = await claimOrphans(s, id);
    await place(orphans);
    return unclaimed.length + orphans.length + await endCallsOfLostGateways(s, id);
  };
  // The heartbeat and the sweep on timers of their own: a long sweep never
  // delays this gateway's own beat (and makes it look lost).
  const every = Math.max(200, (s.config.gatewayLostSeconds * 1000) / 4);
  let beating: Promise<unknown> | null = null;
  /** Since when this gateway's heartbeats have been written without a failure (null: the last one failed). */
  let healthySince: number | null = 0;
  let sweeping: Promise<unknown> | null = null;
  const beat = setInterval(() => {
    // Calls whose dialog went without an event here (hung up through another process) stop being heard.
    const heard = line.talking();
    if (heard.length > 0) {
      const up = new Set(sip.active());
      // (Not while its events wait for the database: what was heard before its hangup is still to be written.)
      for (const k of heard) if (!up.has(k) && !chains.busy(k)) line.ended(k);
    }
    if (liveCalls.size > 0) {
      const up = new Set(sip.active());
      for (const k of liveCalls) if (!up.has(k) && !preparing.has(k)) liveCalls.delete(k);
    }
    // Calls dialed here whose dialog went without an ending event (hung up through the API).
    if (dialed.size > 0) {
      const up = new Set(sip.active());
      const old = Date.now() - 60_000;
      for (const [k, d] of dialed) if (d.since < old && !up.has(k) && !preparing.has(k)) dialed.delete(k);
    }
    beating ??= s.pool
      .query(`UPDATE gateways SET heartbeat_at = now() WHERE id = $1`, [id])
      .then(() => {
        healthySince ??= Date.now();
        back.back();
      })
      .catch((err) => {
        healthySince = null;
        log.error({ err }, 'gateway heartbeat failed');
      })
      .finally(() => { beating = null; });
  }, every);
  beat.unref();
  const sweeper = setInterval(() => {
    sweeping ??= sweep()
      .catch((err) => log.error({ err }, 'sweep of lost gateways failed'))
      .finally(() => { sweeping = null; });
  }, every);
  sweeper.unref();

  /** Claims the calls no gateway has dialed yet and dials them; the others were dialed by another gateway (most often: the one that accepted them), or ended before. */
  const dial = async (...callIds: string[]): Promise<void> => {
    await place(await claimCalls(s, id, callIds));
  };
  /** A call this process placed (POST /v1/calls) and committed with this gateway's id: dialed at once, with what was written. */
  const dialPlaced = async (state: CallState): Promise<void> => {
    known.set(state.call.id, state);
    const r = state.call.row;
    await place([{ id: r.id, to_e164: r.to_e164, from_e164: r.from_e164, remote_lang: r.remote_lang, trunk_id: r.trunk_id ?? null, livemode: r.livemode, voice_id: r.voice_id, org_id: r.org_id, max_answered_seconds: r.max_answered_seconds }]);
  };
  const place = async (rows: Claimed[]): Promise<void> => {
    for (const call of rows) {
      // What the line says at the pick-up, before the call's answer is written: the disclosure, in its voice.
      const voice = call.voice_id ? { id: call.voice_id, orgId: call.org_id, livemode: call.livemode } : undefined;
      line.prepare(call.id, call.remote_lang, voice);
      const maxSeconds = call.max_answered_seconds === null ? null : Number(call.max_answered_seconds);
      dialed.set(call.id, { lang: call.remote_lang, ...(voice ? { voice } : {}), maxSeconds, since: Date.now() });
      // A live call goes out through its trunk, never to the simulated callee or the test peer.
      if (call.livemode) {
        if (!call.trunk_id) {
          chains.run(call.id, () => apply(call.id, { type: 'FAILED', reason: 'trunk_missing' }), 'trunk_missing');
          continue;
        }
        // A live call: through its trunk, paced by its calls-per-second limit (its wait holds up no other call).
        liveCalls.add(call.id);
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
   * A live call (trunk-dial.ts): a trunk down, removed, or with its pacing
   * queue full fails it at once; otherwise its INVITE leaves at its slot,
   * unless the call ended while it waited.
   */
  const placeThroughTrunk = async (call: Claimed, trunkId: string): Promise<void> => {
    const fail = (reason: TrunkFailure, detail: string) => {
      log.warn({ callId: call.id, trunk: trunkId, reason: detail }, 'live call failed before its INVITE');
      chains.run(call.id, () => apply(call.id, { type: 'FAILED', reason }), reason);
    };
    preparing.add(call.id);
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
      log.error({ err: err instanceof SecretKeyError ? err.message : err, callId: call.id, trunk: trunkId }, 'cannot place live call');
      onEvent(call.id, { type: 'no_response' });
    } finally {
      preparing.delete(call.id);
    }
  };

  return {
    id,
    address: sip.address,
    active: () => sip.active(),
    dial,
    dialPlaced,
    sweep,
    media,
    stop: async () => {
      clearInterval(beat);
      clearInterval(sweeper);
      for (const k of [...caps.keys(), ...unwritten.keys()]) clearCap(k);
      await beating;
      await sweeping;
      await listener.close();
      // The dialogs this process holds cannot go on without it.
      for (const callId of sip.active()) {
        await withTx(s.pool, (tx) => applyCallEvent(s, tx, callId, { type: 'FAILED', reason: 'gateway_lost' })).catch(() => {});
      }
      await Promise.allSettled(sip.active().map((callId) => sip.hangup(callId)));
      stopping.abort();
      // What still waits for the database is given up now (each logged: 'call event not applied').
      closing.abort();
      await Promise.allSettled([...pacing]);
      await Promise.allSettled([...chains.pending(), ...line.pending()]);
      await s.pool.query(`DELETE FROM gateways WHERE id = $1`, [id]).catch(() => {});
    },
  };
}
