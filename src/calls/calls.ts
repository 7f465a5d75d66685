import type { z } from 'zod';
import { prepared, withTx, type Client, type Queryable } from '../db/pool.ts';
import { ID_PATTERN, newId } from '../ids.ts';
import { usableVoice } from '../voices/voices.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { lockObjects, planCreate, planTransition } from '../actors/store.ts';
import { Writes } from '../db/writes.ts';
import { now, speechOf, type Caller, type Services } from '../services.ts';
import { assertDestinationAllowed, assertLanguagesAllowed, assertNumberAllowed, assertVoiceAllowed } from '../restrictions.ts';
import { assertCanSpend } from '../billing/limits.ts';
import { afterUsage, planUsage } from '../billing/ledger.ts';
import { destinationOf, evaluate, maskNumber } from '../../policies/evaluate.ts';
import { POLICIES } from '../../policies/index.ts';
import type { ConsentKind, Purpose } from '../../policies/types.ts';
import { SHARED_NUMBER } from '../catalog/numbers.ts';
import { COLUMNS as SESSION_COLUMNS, toSession, type SessionRow } from '../sessions/sessions.ts';
import { planSegment } from '../sessions/publish.ts';
import { planSessionEnd } from '../sessions/leave.ts';
import { startCallee, planStopRobots, lockRobots } from '../sim/robots.ts';
import type { CallContext, CallEvent } from '../../machines/call.ts';
import { DISCLOSURE, fixedDisclosure } from './disclosure.ts';
import { fillName } from '../sim/phrasebook.ts';
import type { Call } from './schemas.ts';

// Phone calls (api.md: Call, the Phone calls endpoints; operator.md: Calls and
// the SIP gateway). A call is the `call` actor (machines/call.ts) with its row
// in `calls`, and an agent session (room_id null) whose log is the call's
// line: the client listens to the remote side and speaks to it through
// GET /v1/sessions/{id}/events and POST /v1/sessions/{id}/say. The gateway
// (dialer.ts, gateway/) turns SIP into the machine's events; this file applies
// them, and what follows from each (the session, the line's speakers, the
// bill), in the transaction of the transition.

export type CallRow = {
  id: string; org_id: string; livemode: boolean; credential_id: string;
  to_e164: string; from_number_id: string; from_e164: string; country: string; kind: string; purpose: Purpose;
  consent_kind: string | null; consent_ref: string | null; agent_lang: string; remote_lang: string; voice_id: string | null;
  minute_factor: string; max_answered_seconds: string | null;
  status: z.infer<typeof Call>['status']; end_reason: string | null; blocked_code: string | null; blocked_reason: string | null;
  session_id: string | null; billed_seconds: string; gateway_id: string | null;
  created_at: Date; answered_at: Date | null; ended_at: Date | null; sip_code: number | null; sip_reason: string | null;
};

export const CALL_COLUMNS = `id, org_id, livemode, credential_id, to_e164, from_number_id, from_e164, country, kind, purpose,
  consent_kind, consent_ref, agent_lang, remote_lang, voice_id, minute_factor, max_answered_seconds, status, end_reason,
  blocked_code, blocked_reason, session_id, billed_seconds, gateway_id, created_at, answered_at, ended_at, sip_code, sip_reason`;

/** Statuses after which nothing happens to a call. */
export const ENDED = new Set(['completed', 'busy', 'voicemail', 'no_answer', 'failed', 'blocked']);

/** The agent's name on a call (the AI disclosure says it). */
export const CALL_AGENT_NAME = 'Tolk Assistant';

/** The far end of a call's line, as its phrases name it. */
export const CALLEE_NAME = 'Callee';

/**
 * The Call as api.md shapes it, plus `session_id` (the call's conversation)
 * and, for a blocked call, `blocked` (the policy's code and sentence).
 * Webhook events carry numbers masked (`mask`); the API answers the caller
 * with the number it dialed.
 */
export function toCall(r: CallRow, opts: { mask?: boolean } = {}): z.infer<typeof Call> {
  return {
    id: r.id,
    to: opts.mask ? maskNumber(r.to_e164) : r.to_e164,
    from: opts.mask ? maskNumber(r.from_e164) : r.from_e164,
    country: r.country,
    purpose: r.purpose,
    status: r.status,
    ai_disclosure: true,
    billed_seconds: Math.round(Number(r.billed_seconds)),
    created_at: r.created_at.toISOString(),
    answered_at: r.answered_at ? r.answered_at.toISOString() : null,
    ended_at: r.ended_at ? r.ended_at.toISOString() : null,
    end_reason: r.end_reason,
    sip_code: r.sip_code,
    sip_reason: r.sip_reason,
    agent_lang: r.agent_lang,
    remote_lang: r.remote_lang,
    session_id: r.session_id,
    blocked: r.status === 'blocked' ? { code: r.blocked_code ?? 'blocked', message: r.blocked_reason ?? '' } : null,
    livemode: r.livemode,
  };
}

const eventObject = (r: CallRow) => ({ ...toCall(r, { mask: true }), object: 'call' });

/**
 * The language the callee is spoken to in when remote_lang is not given: the
 * destination country's main language (a client that knows better says so).
 */
const COUNTRY_LANG: Record<string, string> = {
  US: 'en', CA: 'en', GB: 'en', AU: 'en', IN: 'en', DE: 'de', FR: 'fr', ES: 'es', MX: 'es', PT: 'pt', BR: 'pt', IT: 'it', NL: 'nl', JP: 'ja',
};

export type PlaceInput = {
  to: string; from?: string; purpose: Purpose; consent?: { kind: ConsentKind; ref?: string };
  agent_lang: string; remote_lang?: string; voice_id?: string;
};

/** The caller id: one of the organization's numbers by id, or its default (the shared number when it has none). */
async function callerId(tx: Client, cred: Caller, from: string | undefined): Promise<{ id: string; e164: string }> {
  if (from === undefined || from === '') {
    const { rows } = await tx.query<{ id: string; e164: string }>(prepared(
      `SELECT id, e164 FROM phone_numbers WHERE org_id = $1 AND is_default LIMIT 1`, [cred.orgId]));
    return rows[0] ?? { id: SHARED_NUMBER.id, e164: SHARED_NUMBER.e164 };
  }
  if (from === SHARED_NUMBER.id) return { id: SHARED_NUMBER.id, e164: SHARED_NUMBER.e164 };
  if (ID_PATTERN.test(from)) {
    const { rows } = await tx.query<{ id: string; e164: string }>(
      `SELECT id, e164 FROM phone_numbers WHERE id = $1 AND org_id = $2`, [from, cred.orgId]);
    if (rows[0]) return rows[0];
  }
  throw invalid('from', `'${from.slice(0, 40)}' is not one of your numbers; send the id of a number GET /v1/numbers lists, or omit it for your default`);
}

/** How long the key's per-call limit lets the call be answered, in seconds (null: no limit). */
function maxAnsweredSeconds(cred: Caller, minuteFactor: number): number | null {
  if (cred.perCallMinutes === null) return null;
  return minuteFactor > 0 ? (cred.perCallMinutes * 60) / minuteFactor : null;
}

export type Placed = { call: z.infer<typeof Call>; dial: boolean };

/**
 * POST /v1/calls, in the idempotency transaction: the key's restrictions,
 * then the live-mode refusal, the caller id, the spending limits (402 when
 * one is already reached), and the policy table. A call the table refuses is
 * created `blocked` (call.blocked, call.ended). An allowed one is `queued`
 * with its agent session, and `dialJob` writes in the same transaction
 * what gets it dialed (dialer.ts writeDialJob); `dial` tells the route to
 * dial at once after commit.
 */
export async function placeCall(s: Services, tx: Client, cred: Caller, input: PlaceInput, dialJob: (tx: Client, callId: string) => Promise<void>): Promise<Placed> {
  const dest = destinationOf(input.to);
  if (!dest) throw invalid('to', 'not a phone number; send it in international format, + then the country code and number, e.g. +14155550123');
  assertDestinationAllowed(cred, 'to', dest.country === 'ZZ' ? null : dest.country);
  if (input.from) assertNumberAllowed(cred, 'from', input.from);
  const remoteLang = input.remote_lang ?? COUNTRY_LANG[dest.country] ?? 'en';
  assertLanguagesAllowed(cred, 'agent_lang', [input.agent_lang]);
  assertLanguagesAllowed(cred, 'remote_lang', [remoteLang]);
  assertVoiceAllowed(cred, 'voice_id', input.voice_id);
  if (cred.livemode) {
    throw new ApiError('not_available_yet', 'Calls are coming soon in live mode; they work with a test key, on the simulated callee');
  }
  const voiceId = await usableVoice(tx, cred, 'voice_id', input.voice_id);
  const from = await callerId(tx, cred, input.from);
  // The default number (the organization's, or the shared one) is a caller id too: a key limited to some numbers uses no other.
  if (!input.from) assertNumberAllowed(cred, 'from', from.id);
  const at = now(s);
  // Placing spends nothing yet (the answered time is billed at the end), so
  // no spending lock: only a limit already reached refuses the call.
  await assertCanSpend(tx, { cred, seconds: 0, callSeconds: 0 }, at);

  // Attempts per number (FR: marketing, 4 in 30 days) are the caller's: this
  // organization's calls to the number, counted under a lock on the number,
  // so two calls placed at once cannot both be the 4th.
  const rule = POLICIES[dest.country]?.purposes[input.purpose]?.maxAttempts;
  let attempts = 0;
  if (rule) {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('call-attempts:' || $1::text))`, [dest.e164]);
    const { rows } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM calls
        WHERE to_e164 = $1 AND purpose = $2 AND org_id = $5 AND status <> 'blocked' AND created_at > $3::timestamptz - make_interval(days => $4)`,
      [dest.e164, input.purpose, at, rule.days, cred.orgId],
    );
    attempts = rows[0]!.n;
  }
  const verdict = evaluate(dest, input.purpose, input.consent?.kind ?? null, at, { attempts: () => attempts });

  const id = newId('call');
  const allowed = verdict.allowed && verdict.purpose?.allowed !== false;
  const sessionId = allowed ? newId('ses') : null;
  const row: CallRow = {
    id, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, to_e164: dest.e164, from_number_id: from.id,
    from_e164: from.e164, country: verdict.country, kind: verdict.kind, purpose: input.purpose,
    consent_kind: input.consent?.kind ?? null, consent_ref: input.consent?.ref ?? null, agent_lang: input.agent_lang,
    remote_lang: remoteLang, voice_id: voiceId, minute_factor: String(verdict.minute_factor),
    max_answered_seconds: null, status: allowed ? 'queued' : 'blocked', end_reason: allowed ? null : 'blocked',
    blocked_code: allowed ? null : verdict.code, blocked_reason: allowed ? null : verdict.reason,
    session_id: sessionId, billed_seconds: '0', gateway_id: null, created_at: at, answered_at: null, ended_at: allowed ? null : at,
    sip_code: null, sip_reason: null,
  };
  const max = allowed ? maxAnsweredSeconds(cred, verdict.minute_factor) : null;
  row.max_answered_seconds = max === null ? null : String(max);

  // The session and the call in one statement.
  const w = new Writes();
  if (sessionId) {
    // The conversation: an agent session on the call's line, hearing in
    // agent_lang, `joining` until the callee answers.
    const session: SessionRow = {
      id: sessionId, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, room_id: null, log_id: id, call_id: id,
      name: CALL_AGENT_NAME, speak_lang: input.agent_lang, hear_lang: input.agent_lang, status: 'joining', billed_seconds: 0,
      from_seq: 0, to_seq: null, speaking_until: null, started_at: at, ended_at: null,
    };
    planCreate(w, {
      id: sessionId, machine: 'session', owner: { orgId: cred.orgId, livemode: cred.livemode }, event: { type: 'JOIN' },
      objectFor: () => toSession(session),
      row: {
        id: sessionId, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, room_id: null, log_id: id, call_id: id,
        name: CALL_AGENT_NAME, speak_lang: input.agent_lang, hear_lang: input.agent_lang, voice_id: voiceId,
        from_seq: 0, metered_seq: 0,
      },
    });
  }
  planCreate(w, {
    id, machine: 'call', owner: { orgId: cred.orgId, livemode: cred.livemode },
    event: allowed ? { type: 'PLACE' } : { type: 'BLOCK' },
    objectFor: () => eventObject(row),
    row: {
      id, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, to_e164: row.to_e164, from_number_id: row.from_number_id,
      from_e164: row.from_e164, country: row.country, kind: row.kind, purpose: row.purpose, consent_kind: row.consent_kind,
      consent_ref: row.consent_ref, agent_lang: row.agent_lang, remote_lang: row.remote_lang, voice_id: row.voice_id,
      minute_factor: row.minute_factor, max_answered_seconds: row.max_answered_seconds, end_reason: row.end_reason,
      blocked_code: row.blocked_code, blocked_reason: row.blocked_reason, session_id: sessionId, created_at: at,
      ended_at: row.ended_at,
    },
  });
  await w.run(tx);
  if (allowed) await dialJob(tx, id);
  return { call: toCall(row), dial: allowed };
}

export async function loadCall(db: Queryable, cred: Caller, id: string): Promise<CallRow> {
  if (!ID_PATTERN.test(id)) throw notFound('call', id);
  const { rows } = await db.query<CallRow>(prepared(
    `SELECT ${CALL_COLUMNS} FROM calls WHERE id = $1 AND org_id = $2 AND livemode = $3`, [id, cred.orgId, cred.livemode]));
  if (!rows[0]) throw notFound('call', id);
  return rows[0];
}

export async function getCall(s: Services, cred: Caller, id: string) {
  return toCall(await loadCall(s.pool, cred, id));
}

/** GET /v1/calls: the calls this credential placed, newest first (at most `limit`). */
export async function listCalls(s: Services, cred: Caller, limit: number) {
  const { rows } = await s.pool.query<CallRow>(
    `SELECT ${CALL_COLUMNS} FROM calls WHERE credential_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [cred.id, limit],
  );
  return rows.map((r) => toCall(r));
}

export type Applied = {
  row: CallRow;
  changed: boolean;
  /** The call ended with this event and its SIP dialog may still be up: the gateway hangs it up. */
  hangUp: boolean;
};

/**
 * Sends the call machine an event and does what follows from it, in tx: on
 * the answer, the session is seated, the AI disclosure is the first thing on
 * the line (in remote_lang) and, with the built-in callee, the simulated
 * callee starts talking; on any end, the session ends (its transcript is
 * written), the callee stops, and the answered time is billed. An event the
 * current state refuses (the call ended meanwhile) changes nothing.
 */
export async function applyCallEvent(
  s: Services, tx: Client, id: string, event: CallEvent,
  opts: {
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
  } = {},
): Promise<Applied> {
  // The line's speaker row first, then the call's and the session's rows:
  // the simulator locks in that order too (sim/robots.ts lockRobots). With
  // TOLK_SIM_SIP_PEER nobody simulated speaks on calls' lines: no such row.
  const simulatedLine = !s.config.simSipPeer;
  if (simulatedLine) await lockRobots(tx, id);
  const at = opts.endedAt && opts.endedAt < now(s) ? opts.endedAt : now(s);
  const answeredAt = opts.answeredAt && opts.answeredAt < at ? opts.answeredAt : at;
  // Two round trips whatever the event: the call's row and actor and its
  // session's, locked and read in one statement (ringing needs no session);
  // then every write that follows in one statement (store.ts planTransition,
  // db/writes.ts).
  const withSession = event.type !== 'RINGING';
  const { first: call, second: session } = await lockObjects<CallRow, SessionRow>(
    tx, { machine: 'call', id, returning: CALL_COLUMNS },
    withSession ? { machine: 'session', via: 'session_id', returning: SESSION_COLUMNS } : undefined,
  );
  if (!call) throw new ApiError('not_found', `No such call: '${id}'`);
  const w = new Writes();
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
  const row = t.row;
  if (!t.changed) return { row, changed: false, hangUp: false };
  if (t.state === 'answered') {
    if (session) {
      // The AI disclosure: the first thing the callee hears, in remote_lang (EU AI Act art. 50).
      // The agent's first say waits behind it on the line (its queued_ms counts it).
      // In a language it has no fixed wording in, the log keeps the English one (in English): readers of
      // other languages get it translated like any phrase (sessions/translations.ts), never marked.
      const fixed = fixedDisclosure(CALL_AGENT_NAME, row.remote_lang);
      const words = fixed ?? fillName(DISCLOSURE.en!, CALL_AGENT_NAME);
      const speaking = new Date(at.getTime() + (speechOf(s).spokenSeconds(words) * 1000) / s.config.simSpeed);
      planTransition<SessionRow>(w, session, { type: 'JOINED' }, { objectFor: toSession, set: () => ({ speaking_until: speaking }) });
      planSegment(w, s, {
        roomId: id, kind: 'disclosure', speaker: CALL_AGENT_NAME, participantId: session.id, srcLang: fixed ? row.remote_lang : 'en',
        text: words, announced: CALL_AGENT_NAME, sessionId: session.id, metered: false,
      });
    }
    const callee = session !== null && opts.simulatedCallee === true;
    const timer = row.max_answered_seconds !== null && opts.maxDurationJob !== undefined;
    await (opts.last && !callee && !timer ? w.runAndCommit(tx) : w.run(tx));
    if (callee) await startCallee(s, tx, id, CALLEE_NAME, row.remote_lang);
    // The per-call limit counts from the pick-up.
    if (timer) await opts.maxDurationJob!(tx, id, Number(row.max_answered_seconds) - (at.getTime() - answeredAt.getTime()) / 1000);
    return { row, changed: true, hangUp: false };
  }
  if (!ENDED.has(t.state)) {
    await (opts.last ? w.runAndCommit(tx) : w.run(tx));
    return { row, changed: true, hangUp: false };
  }
  const billed = Number(row.billed_seconds);
  const usage = billed > 0
    ? planUsage(w, { orgId: row.org_id, credentialId: row.credential_id, livemode: row.livemode, kind: 'call', seconds: billed, ref: row.id }, at)
    : null;
  if (simulatedLine) planStopRobots(w, row.id);
  // The call's session ends with it: what was said on the line becomes a transcript (room_id null).
  if (session) planSessionEnd(w, session, 'CALL_ENDED');
  // Ended by us (hangup, the per-call limit, the gateway lost) or answered by
  // a voicemail system: the dialog may still be up, so the gateway hangs up.
  const hangUp = event.type === 'HANGUP' || event.type === 'MAX_DURATION' || event.type === 'VOICEMAIL' || event.type === 'FAILED';
  if (hangUp && opts.notifyHangUp) w.out(`pg_notify(${w.p(CALLS_CHANNEL)}, ${w.p(id)})`, 'hangup');
  // The usage.threshold check comes after the statement (when the key has a limit): no COMMIT with it then.
  const outputs = await (opts.last && !usage ? w.runAndCommit(tx) : w.run(tx));
  if (usage) await afterUsage(tx, usage, outputs, at);
  return { row, changed: true, hangUp };
}

/** The channel every gateway listens on: a call ended by the API (or a timer) whose dialog it may hold. */
export const CALLS_CHANNEL = 'tolk_calls';

/**
 * The notice on CALLS_CHANNEL that a phrase of the call's log (its number)
 * is to be spoken on the line; a bare call id means "hang up".
 */
export function sayNotice(callId: string, seq: number, utteranceId: string): string {
  return `say ${callId} ${seq} ${utteranceId}`;
}

/** The notice on CALLS_CHANNEL giving the built-in simulated callee its words (test mode). */
export function calleeNotice(callId: string, lang: string, text: string): string {
  return `callee ${callId} ${lang} ${text}`;
}

export function parseCalleeNotice(payload: string): { callId: string; lang: string; text: string } | null {
  const m = /^callee (\S+) (\S+) ([\s\S]+)$/.exec(payload);
  return m ? { callId: m[1]!, lang: m[2]!, text: m[3]! } : null;
}

/** The call and log number a CALLS_CHANNEL notice asks to speak, or null for a hang-up notice. */
export function parseSayNotice(payload: string): { callId: string; seq: number; utteranceId: string } | null {
  const m = /^say (\S+) (\d+) (\S+)$/.exec(payload);
  return m ? { callId: m[1]!, seq: Number(m[2]), utteranceId: m[3]! } : null;
}

/**
 * POST /v1/calls/{id}/hangup (and a call session's leave): ends the call,
 * idempotently (an ended call is returned as it is); the gateway holding its
 * dialog is told to send BYE (or CANCEL while it rings).
 */
export async function hangupCall(s: Services, cred: Caller, id: string) {
  if (cred.livemode) throw new ApiError('not_available_yet', 'Calls are coming soon in live mode; they work with a test key');
  return withTx(s.pool, async (tx) => {
    await loadCall(tx, cred, id);
    return toCall(await endCall(s, tx, id));
  });
}

/** Ends the call in tx (nothing when it has ended) and tells the gateways, on commit, to hang up its dialog. */
export async function endCall(s: Services, tx: Client, id: string, event: CallEvent = { type: 'HANGUP' }, opts: { endedAt?: Date } = {}): Promise<CallRow> {
  return (await applyCallEvent(s, tx, id, event, { ...opts, notifyHangUp: true })).row;
}
