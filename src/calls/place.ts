import type { z } from 'zod';
import type { Client, Queryable } from '../db/pool.ts';
import type { Once } from '../http/idempotency.ts';
import { newId } from '../ids.ts';
import { invalid } from '../errors.ts';
import { planCreate, type TransitionResult } from '../actors/store.ts';
import { Writes } from '../db/writes.ts';
import { now, type Caller, type CallSessionRow, type Services } from '../services.ts';
import { assertDestinationAllowed, assertLanguagesAllowed, assertNumberAllowed, assertVoiceAllowed } from '../restrictions.ts';
import { assertCanSpend, spendableSeconds } from '../billing/limits.ts';
import { liveTrunk } from './live.ts';
import { attemptCaps, destinationOf, evaluate, type Destination } from '../../policies/evaluate.ts';
import type { AttemptCap, ConsentKind, Purpose } from '../../policies/types.ts';
import { CALL_AGENT_NAME, eventObject, toCall, type CallRow } from './calls.ts';
import type { CallState } from './events.ts';
import { writeDialJob } from './jobs.ts';
import type { Call } from './schemas.ts';
import { countPlaced } from '../ops/metrics.ts';

// POST /v1/calls and the place_call tool: a call placed (queued, with its
// agent session) or blocked by the policy table, in the request's
// idempotency transaction, then dialed by this process's gateway once that
// commits.

/**
 * The language the callee is spoken to in when remote_lang is not given: the
 * destination country's main language (a client that knows better says so).
 */
const COUNTRY_LANG: Record<string, string> = {
  US: 'en', CA: 'en', GB: 'en', AU: 'en', IN: 'en', DE: 'de', FR: 'fr', ES: 'es', MX: 'es', PT: 'pt', BR: 'pt', IT: 'it', NL: 'nl', JP: 'ja',
};

export type PlaceInput = {
  to: string; from?: string; purpose: Purpose; consent?: { kind: ConsentKind; ref?: string };
  agent_lang: string; remote_lang?: string; voice_id?: string; room_id?: string;
};

/**
 * This organization's calls of `purpose` to the number (not blocked) within
 * each cap's hours, counted in one statement: what evaluate() reads as
 * ctx.attempts. GET /v1/calls/quote counts them the same way.
 */
export async function countAttempts(db: Queryable, cred: Caller, dest: Destination, purpose: Purpose, caps: AttemptCap[], at: Date): Promise<(hours: number) => number> {
  if (caps.length === 0) return () => 0;
  const hours = [...new Set(caps.map((c) => c.hours))];
  const { rows } = await db.query<{ hours: number; n: number }>(
    `SELECT h.hours, (SELECT count(*)::int FROM calls
                       WHERE to_e164 = $1 AND purpose = $2 AND org_id = $3 AND status <> 'blocked'
                         AND created_at > $4::timestamptz - make_interval(hours => h.hours)) AS n
       FROM unnest($5::int[]) AS h(hours)`,
    [dest.e164, purpose, cred.orgId, at, hours],
  );
  const counts = new Map(rows.map((r) => [r.hours, r.n]));
  return (h) => counts.get(h) ?? 0;
}

/**
 * How long the call may be answered, in seconds (null: no limit): the key's
 * per-call limit and, for a live key, what it may still spend (its day and
 * month limits, the organization's balance), at the call's minute factor.
 * The call is ended there (the max-duration timer), so a live call never
 * runs the balance out on its own.
 */
async function maxAnsweredSeconds(db: Queryable, cred: Caller, minuteFactor: number, at: Date): Promise<number | null> {
  if (!(minuteFactor > 0)) return null;
  const budgets: number[] = [];
  if (cred.perCallMinutes !== null) budgets.push(cred.perCallMinutes * 60);
  if (cred.livemode) {
    const left = await spendableSeconds(db, cred, at);
    if (left !== null) budgets.push(left);
  }
  return budgets.length === 0 ? null : Math.min(...budgets) / minuteFactor;
}

type Log = { error: (o: object, m: string) => void };

/** Work to run once the placing's transaction committed (never when it rolls back, nor for a replayed outcome). */
export type AfterCommit = (task: () => Promise<void>, what: { callId: string }) => void;

/**
 * POST /v1/calls and the place_call tool: the call placed once per key, in
 * `once`'s transaction (the idempotency record's), then dialed by this
 * process's gateway after the commit with what was written (should this
 * process die first, another gateway's sweep dials it).
 */
export async function placeAndDial(s: Services, cred: Caller, input: PlaceInput, once: Once<z.infer<typeof Call>>, log: Log): Promise<z.infer<typeof Call>> {
  let committed: Array<{ task: () => Promise<void>; callId: string }> = [];
  const call = await once(async (tx) => {
    // A transaction tried again starts its work afresh: only the last run's work follows the commit.
    committed = [];
    const placed = await placeCall(s, tx, cred, input, (task, what) => { committed.push({ task, callId: what.callId }); });
    return { status: 201, body: placed };
  });
  for (const c of committed) c.task().catch((err) => log.error({ err, callId: c.callId }, 'dial failed'));
  return call;
}

/**
 * POST /v1/calls, in the idempotency transaction: the key's restrictions,
 * then the live-mode refusal, the caller id, the spending limits (402 when
 * one is already reached), and the policy table. A call the table refuses is
 * created `blocked` (call.blocked, call.ended). An allowed one is `queued`
 * with its agent session; what gets it dialed is written in the same
 * transaction (jobs.ts writeDialJob), and with a gateway in this process it
 * is dialed after the commit (`afterCommit`), given as written.
 */
export async function placeCall(s: Services, tx: Client, cred: Caller, input: PlaceInput, afterCommit: AfterCommit): Promise<z.infer<typeof Call>> {
  const dest = destinationOf(input.to);
  if (!dest) throw invalid('to', 'not a phone number; send it in international format, + then the country code and number, e.g. +14155550123');
  assertDestinationAllowed(cred, 'to', dest.country === 'ZZ' ? null : dest.country);
  if (input.from) assertNumberAllowed(cred, 'from', input.from);
  const remoteLang = input.remote_lang ?? COUNTRY_LANG[dest.country] ?? 'en';
  assertLanguagesAllowed(cred, 'agent_lang', [input.agent_lang]);
  assertLanguagesAllowed(cred, 'remote_lang', [remoteLang]);
  assertVoiceAllowed(cred, 'voice_id', input.voice_id);
  // The voice and the caller id are the voices' and the numbers' (read through the reactions' ports).
  const voiceId = await s.reactions.usableVoice(tx, cred, 'voice_id', input.voice_id);
  const from = await s.reactions.callerNumber(tx, cred, input.from);
  // A call into a room: its callee joins it once answered (the rooms', through the reactions' port).
  const roomId = input.room_id ? await s.reactions.roomForCall(tx, cred, 'room_id', input.room_id) : null;
  // The default number (the organization's, or the shared one) is a caller id too: a key limited to some numbers uses no other.
  if (!input.from) assertNumberAllowed(cred, 'from', from.id);
  // Live: a real call through the trunk of its number, when there is one and the engines cover the conversation; else 501.
  // Test keys never reach a trunk, whatever their `from`.
  const trunkId = cred.livemode ? await liveTrunk(s, tx, cred, from, input.agent_lang, remoteLang) : null;
  const at = now(s);
  // Placing spends nothing yet (the answered time is billed at the end), so
  // no spending lock: only a limit already reached refuses the call.
  await assertCanSpend(tx, { cred, seconds: 0, callSeconds: 0 }, at);

  // Attempts per number (FR: marketing, 4 in 30 days; some US states: 3 in
  // 24 hours) are the caller's: this organization's calls to the number,
  // counted under a lock on the number, so two calls placed at once cannot
  // both be the 4th.
  const caps = attemptCaps(dest, input.purpose, at);
  if (caps.length > 0) await tx.query(`SELECT pg_advisory_xact_lock(hashtext('call-attempts:' || $1::text))`, [dest.e164]);
  const attempts = await countAttempts(tx, cred, dest, input.purpose, caps, at);
  const verdict = evaluate(dest, input.purpose, input.consent?.kind ?? null, at, { attempts, from: from.e164 });

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
    session_id: sessionId, billed_seconds: '0',
    // This process's gateway dials the call once committed: it is the call's from the start (dialer.ts).
    gateway_id: allowed ? s.gateway?.id ?? null : null, created_at: at, answered_at: null, ended_at: allowed ? null : at,
    sip_code: null, sip_reason: null, trunk_id: trunkId, room_id: roomId,
  };
  const max = allowed ? await maxAnsweredSeconds(tx, cred, verdict.minute_factor, at) : null;
  row.max_answered_seconds = max === null ? null : String(max);

  // The session and the call in one statement.
  const w = new Writes();
  let session: { row: CallSessionRow; actor: TransitionResult } | null = null;
  if (sessionId) {
    // The conversation: an agent session on the call's line, hearing in
    // agent_lang, `joining` until the callee answers (sessions/, through its port).
    session = s.reactions.planCallSession(w, {
      id: sessionId, callId: id, orgId: cred.orgId, livemode: cred.livemode, credentialId: cred.id, name: CALL_AGENT_NAME,
      lang: input.agent_lang, voiceId, at,
    });
  }
  const callActor = planCreate(w, {
    id, machine: 'call', owner: { orgId: cred.orgId, livemode: cred.livemode },
    event: allowed ? { type: 'PLACE' } : { type: 'BLOCK' },
    objectFor: () => eventObject(row),
    row: {
      id, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, to_e164: row.to_e164, from_number_id: row.from_number_id,
      from_e164: row.from_e164, country: row.country, kind: row.kind, purpose: row.purpose, consent_kind: row.consent_kind,
      consent_ref: row.consent_ref, agent_lang: row.agent_lang, remote_lang: row.remote_lang, voice_id: row.voice_id,
      minute_factor: row.minute_factor, max_answered_seconds: row.max_answered_seconds, end_reason: row.end_reason,
      blocked_code: row.blocked_code, blocked_reason: row.blocked_reason, session_id: sessionId, created_at: at,
      ended_at: row.ended_at, gateway_id: row.gateway_id, trunk_id: trunkId, room_id: roomId,
    },
  });
  await w.run(tx);
  countPlaced(cred.livemode, !allowed);
  if (!allowed) return toCall(row);
  await writeDialJob(s, tx, id);
  const gateway = s.gateway;
  if (!gateway) return toCall(row);
  const owner = { org_id: cred.orgId, livemode: cred.livemode };
  // The call and its session as written: the gateway applies their ringing and answer on them, in one statement each.
  const state: CallState = {
    call: { machine: 'call', id, row: { ...row, status: callActor.state as CallRow['status'] }, actor: { ...owner, snapshot: callActor.snapshot, version: callActor.version }, now: at },
    session: session
      ? { machine: 'session', id: session.row.id, row: session.row, actor: { ...owner, snapshot: session.actor.snapshot, version: session.actor.version }, now: at }
      : null,
  };
  afterCommit(() => gateway.dialPlaced(state), { callId: id });
  return toCall(row);
}
