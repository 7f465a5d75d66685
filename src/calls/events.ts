import { withTx, type Client } from '../db/pool.ts';
import { ApiError } from '../errors.ts';
import { lockObjects, lockedAfter, planTransition, type Locked, type Transition } from '../actors/store.ts';
import { Writes, isConcurrentChange } from '../db/writes.ts';
import { now, speechOf, type Caller, type CallSessionRow, type Services } from '../services.ts';
import { afterUsage, planUsage } from '../billing/ledger.ts';
import type { CallContext, CallEvent } from '../../machines/call.ts';
import { disclosureOfRecord } from '../i18n/disclosure.ts';
import { CALL_AGENT_NAME, CALLEE_NAME, CALL_COLUMNS, ENDED, eventObject, loadCall, toCall, type CallRow } from './calls.ts';
import { CALLS_CHANNEL, encodeNotice } from './channel.ts';
import { countCall } from '../ops/metrics.ts';

// What happens to a placed call: the call machine's events (machines/call.ts),
// from the gateway (SIP's answers), the API (hangup) and the timers (the
// per-call limit), each applied with what follows from it (the session, the
// line's speakers, the bill) in the transaction of the transition.

export type Applied = {
  row: CallRow;
  changed: boolean;
  /** The call ended with this event and its SIP dialog may still be up: the gateway hangs it up. */
  hangUp: boolean;
  /**
   * The call (and its session, when this event read it) as they are once this
   * transition commits, while the call goes on: what the gateway keeps to
   * apply the next event in one statement (applyCallEventAlone). Null once the
   * call ended.
   */
  state: CallState | null;
};

/** A call's row and actor, and its session's, as last written by this process (a cache: safe to lose, checked by version). */
export type CallState = { call: Locked<CallRow>; session: Locked<CallSessionRow> | null };

export type ApplyOpts = {
  simulatedCallee?: boolean;
  maxDurationJob?: (tx: Client, id: string, seconds: number) => Promise<void>;
  /** When the call ended, if earlier than now (a lost gateway's last heartbeat); never before its answer. */
  endedAt?: Date;
  /** Tell the gateways to hang up the call's dialog if this event ends it and it may still be up (endCall). */
  notifyHangUp?: boolean;
  /** The final SIP answer to the INVITE this event reports (operator.md: sip_code, sip_reason). */
  sip?: { code: number; reason: string };
  /**
   * For ANSWERED: when the far end picked up (its 2xx), if earlier than now.
   * The gateway listens a moment before it tells a person from a machine;
   * the call was answered, and is billed, from the pick-up.
   */
  answeredAt?: Date;
  /**
   * Nothing follows in tx (a withTx of its own): the last statement goes
   * out with COMMIT (pool.ts commitWith) when nothing of this function
   * comes after it either.
   */
  last?: boolean;
};

/**
 * The writes of an event that keeps the call going (ringing, answered) as
 * parts of w: the call's transition and, on the answer, the session seated
 * and the AI disclosure as the first phrase of the line.
 */
function planOngoing(s: Services, w: Writes, call: Locked<CallRow>, session: Locked<CallSessionRow> | null, event: CallEvent, opts: ApplyOpts, at: Date, answeredAt: Date) {
  const t = planTransition<CallRow>(w, call, event, {
    objectFor: (r) => eventObject(r),
    // What the events of this transition carry: the answer's time, and on
    // the end its reason and its bill: answered seconds (each second begun
    // counts) times the destination's minute factor.
    set: (after, before) => {
      const sip = opts.sip ? { sip_code: opts.sip.code, sip_reason: opts.sip.reason } : {};
      if (after.state === 'answered') return { answered_at: answeredAt, ...sip };
      if (!after.done) return {};
      const end = before.answered_at && at < before.answered_at ? before.answered_at : at;
      const answered = before.answered_at ? Math.ceil((end.getTime() - before.answered_at.getTime()) / 1000) : 0;
      return {
        end_reason: (after.context as CallContext).endReason,
        ended_at: end,
        billed_seconds: Math.round(answered * Number(before.minute_factor)),
        ...sip,
      };
    },
  });
  let seated: Transition<CallSessionRow> | null = null;
  if (t.changed && t.state === 'answered' && session) {
    // The AI disclosure: the first thing the callee hears, in remote_lang (EU AI Act art. 50).
    // The agent's first say waits behind it on the line (its queued_ms counts it).
    // In a language it has no fixed wording in, the log keeps the English one (in English): readers of
    // other languages get it translated like any phrase (sessions/translations.ts), never marked.
    const { text: words, lang: wordsLang } = disclosureOfRecord(CALL_AGENT_NAME, t.row.remote_lang);
    const speaking = new Date(at.getTime() + (speechOf(s).spokenSeconds(words) * 1000) / s.config.simSpeed);
    seated = s.reactions.planCallAnswered(w, s, session, { text: words, lang: wordsLang, speaker: CALL_AGENT_NAME, speakingUntil: speaking });
  }
  const state = (now: Date): CallState => ({
    call: lockedAfter(call, t, now),
    session: session && seated ? lockedAfter(session, seated, now) : session,
  });
  return { t, state };
}

/** The times of an event: when it happened (endedAt when earlier), and when the call was answered (the pick-up, when earlier). */
function timesOf(s: Services, opts: ApplyOpts): { at: Date; answeredAt: Date } {
  const at = opts.endedAt && opts.endedAt < now(s) ? opts.endedAt : now(s);
  return { at, answeredAt: opts.answeredAt && opts.answeredAt < at ? opts.answeredAt : at };
}

/**
 * Sends the call machine an event and does what follows from it, in tx: on
 * the answer, the session is seated, the AI disclosure is the first thing on
 * the line (in remote_lang) and, with the built-in callee, the simulated
 * callee starts talking; on any end, the session ends (its transcript is
 * written), the callee stops, and the answered time is billed. An event the
 * current state refuses (the call ended meanwhile) changes nothing.
 */
export async function applyCallEvent(s: Services, tx: Client, id: string, event: CallEvent, opts: ApplyOpts = {}): Promise<Applied> {
  // The line's speaker row first, then the call's and the session's rows:
  // the simulator locks in that order too (reactions.ts lockSimulatedCallee). With
  // TOLK_SIM_SIP_PEER nobody simulated speaks on calls' lines: no such row.
  const simulatedLine = !s.config.simSipPeer;
  if (simulatedLine) await s.reactions.lockSimulatedCallee(tx, id);
  const { at, answeredAt } = timesOf(s, opts);
  // Two round trips whatever the event: the call's row and actor and its
  // session's, locked and read in one statement (ringing needs no session);
  // then every write that follows in one statement (store.ts planTransition,
  // db/writes.ts).
  const withSession = event.type !== 'RINGING';
  const { first: call, second: session } = await lockObjects<CallRow, CallSessionRow>(
    tx, { machine: 'call', id, returning: CALL_COLUMNS },
    withSession ? { machine: 'session', via: 'session_id', returning: s.reactions.callSessionColumns } : undefined,
  );
  if (!call) throw new ApiError('not_found', `No such call: '${id}'`);
  const w = new Writes();
  const { t, state } = planOngoing(s, w, call, session, event, opts, at, answeredAt);
  const row = t.row;
  if (!t.changed) return { row, changed: false, hangUp: false, state: ENDED.has(row.status) ? null : { call, session } };
  countCall(row);
  if (t.state === 'answered') {
    // The built-in callee answers test calls only: a live call's far end is a person.
    const callee = session !== null && opts.simulatedCallee === true && !row.livemode;
    const timer = row.max_answered_seconds !== null && opts.maxDurationJob !== undefined;
    await (opts.last && !callee && !timer ? w.runAndCommit(tx) : w.run(tx));
    if (callee) await s.reactions.startSimulatedCallee(s, tx, { callId: id, name: CALLEE_NAME, lang: row.remote_lang });
    // The per-call limit counts from the pick-up.
    if (timer) await opts.maxDurationJob!(tx, id, Number(row.max_answered_seconds) - (at.getTime() - answeredAt.getTime()) / 1000);
    return { row, changed: true, hangUp: false, state: state(call.now) };
  }
  if (!ENDED.has(t.state)) {
    await (opts.last ? w.runAndCommit(tx) : w.run(tx));
    return { row, changed: true, hangUp: false, state: state(call.now) };
  }
  const billed = Number(row.billed_seconds);
  const usage = billed > 0
    ? planUsage(w, { orgId: row.org_id, credentialId: row.credential_id, livemode: row.livemode, kind: 'call', seconds: billed, ref: row.id }, at)
    : null;
  if (simulatedLine) s.reactions.planSimulatedCalleeStop(w, row.id);
  // The call's session ends with it: what was said on the line becomes a transcript (room_id null).
  if (session) s.reactions.planCallEnded(w, session);
  // Ended by us (hangup, the per-call limit, the gateway lost) or answered by
  // a voicemail system: the dialog may still be up, so the gateway hangs up.
  const hangUp = event.type === 'HANGUP' || event.type === 'MAX_DURATION' || event.type === 'VOICEMAIL' || event.type === 'FAILED';
  if (hangUp && opts.notifyHangUp) w.out(`pg_notify(${w.p(CALLS_CHANNEL)}, ${w.p(encodeNotice({ type: 'hangup', call: id }))})`, 'hangup');
  // The usage.threshold check comes after the statement (when the key has a limit): no COMMIT with it then.
  const outputs = await (opts.last && !usage ? w.runAndCommit(tx) : w.run(tx));
  if (usage) await afterUsage(tx, usage, outputs, at);
  return { row, changed: true, hangUp, state: null };
}

/**
 * The same as applyCallEvent for what the gateway holding the call reports
 * while it goes on (ringing; answered by a person), in one statement and no
 * transaction around it: planned on the call as this process last wrote it
 * (`known`), and written only if nothing changed it since (the versions of
 * its actors are checked inside the statement, which otherwise fails whole).
 * Undefined when it does not apply: an event that ends the call, or an
 * answer that needs more than one statement (the built-in callee starts, a
 * per-call limit's timer), or a line the simulator speaks on (its lock comes
 * first); or when the call changed meanwhile (an API hangup): the caller
 * then applies the event the usual way.
 */
export async function applyCallEventAlone(s: Services, known: CallState, event: CallEvent, opts: ApplyOpts = {}): Promise<Applied | undefined> {
  if (event.type !== 'RINGING' && event.type !== 'ANSWERED') return undefined;
  if (!s.config.simSipPeer) return undefined;
  if (event.type === 'ANSWERED' && (!known.session || opts.simulatedCallee || known.call.row.max_answered_seconds !== null)) return undefined;
  const { at, answeredAt } = timesOf(s, opts);
  const w = new Writes();
  const { t, state } = planOngoing(s, w, known.call, known.session, event, opts, at, answeredAt);
  if (!t.changed) return undefined;
  try {
    await w.runAlone(s.pool);
  } catch (err) {
    if (isConcurrentChange(err)) return undefined;
    throw err;
  }
  countCall(t.row);
  return { row: t.row, changed: true, hangUp: false, state: state(at) };
}

/**
 * POST /v1/calls/{id}/hangup (and a call session's leave): ends the call,
 * idempotently (an ended call is returned as it is); the gateway holding its
 * dialog is told to send BYE (or CANCEL while it rings).
 */
export async function hangupCall(s: Services, cred: Caller, id: string) {
  return withTx(s.pool, async (tx) => {
    await loadCall(tx, cred, id);
    return toCall(await endCall(s, tx, id));
  });
}

/** Ends the call in tx (nothing when it has ended) and tells the gateways, on commit, to hang up its dialog. */
export async function endCall(s: Services, tx: Client, id: string, event: CallEvent = { type: 'HANGUP' }, opts: { endedAt?: Date } = {}): Promise<CallRow> {
  return (await applyCallEvent(s, tx, id, event, { ...opts, notifyHangUp: true })).row;
}
