import type { z } from 'zod';
import { prepared, type Queryable } from '../db/pool.ts';
import { ID_PATTERN } from '../ids.ts';
import { notFound } from '../errors.ts';
import type { Caller, Services } from '../services.ts';
import { maskNumber } from '../../policies/evaluate.ts';
import type { Purpose } from '../../policies/types.ts';
import type { Call } from './schemas.ts';

// Phone calls (api.md: Call, the Phone calls endpoints; operator.md: Calls and
// the SIP gateway). A call is the `call` actor (machines/call.ts) with its row
// in `calls`, and an agent session (room_id null) whose log is the call's
// line: the client listens to the remote side and speaks to it through
// GET /v1/sessions/{id}/events and POST /v1/sessions/{id}/say.
//
// - this file: the call's row and how the API shows it;
// - place.ts: POST /v1/calls and place_call (the checks, the policy table, the call and its session, dialed after the commit);
// - events.ts: what happens to a placed call (the machine's events and what follows each);
// - dialer.ts: the gateway's side (dials what it claims, applies SIP's answers);
// - call-line.ts: one call dialed here, from its dial to its end (what is said, its events, its timers), in lines.ts's registry;
//   line-hearing.ts: what is heard on it (the far end's phrases, digits, speech);
// - heartbeat.ts, sweep.ts, notices.ts: the gateway's beat, its sweep of lost gateways, the notices it hears;
// - claims.ts: which gateway claims which call, and the calls of lost gateways;
// - dialog-events.ts: what SIP's answers mean for a call;
// - channel.ts: what the service tells the gateway holding a call's dialog.

export type CallRow = {
  id: string; org_id: string; livemode: boolean; credential_id: string;
  to_e164: string; from_number_id: string; from_e164: string; country: string; kind: string; purpose: Purpose;
  consent_kind: string | null; consent_ref: string | null; agent_lang: string; remote_lang: string; voice_id: string | null;
  minute_factor: string; max_answered_seconds: string | null;
  status: z.infer<typeof Call>['status']; end_reason: string | null; blocked_code: string | null; blocked_reason: string | null;
  session_id: string | null; billed_seconds: string; gateway_id: string | null;
  created_at: Date; answered_at: Date | null; ended_at: Date | null; sip_code: number | null; sip_reason: string | null;
  /** The trunk a live call goes out through (null: a test call). */
  trunk_id?: string | null;
  /** The room its callee joins once answered (null: a call with an AI agent). */
  room_id: string | null;
};

export const CALL_COLUMNS = `id, org_id, livemode, credential_id, to_e164, from_number_id, from_e164, country, kind, purpose,
  consent_kind, consent_ref, agent_lang, remote_lang, voice_id, minute_factor, max_answered_seconds, status, end_reason,
  blocked_code, blocked_reason, session_id, billed_seconds, gateway_id, created_at, answered_at, ended_at, sip_code, sip_reason, room_id`;

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
    room_id: r.room_id ?? null,
    blocked: r.status === 'blocked' ? { code: r.blocked_code ?? 'blocked', message: r.blocked_reason ?? '' } : null,
    livemode: r.livemode,
  };
}

export const eventObject = (r: CallRow) => ({ ...toCall(r, { mask: true }), object: 'call' });

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
