import type { Queryable } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { ID_PATTERN } from '../ids.ts';
import { ApiError, notFound } from '../errors.ts';
import type { Caller, Services } from '../services.ts';
import type { Session } from './schemas.ts';

// AI agent sessions in rooms (api.md: AI agent in a room; operator.md:
// test-mode simulator): the session row, its public shape and lookups. The
// lifecycle is machines/session.ts; the concerns live beside this file:
// join.ts, say.ts, listen.ts (bus.ts, reader.ts), leave.ts, and publish.ts,
// which delivers what a room hears to its sessions. Test keys run on the
// simulator (src/sim/); live keys run on the operator's translation engines
// alone (coverage.ts), and answer 501 not_available_yet where those cannot
// carry the conversation.

export type SessionRow = {
  id: string;
  org_id: string;
  livemode: boolean;
  credential_id: string;
  /** Null for a call's session (call_id is set). */
  room_id: string | null;
  /** The log it hears and speaks on: its room's id, or its call's (publish.ts). */
  log_id: string;
  call_id: string | null;
  name: string;
  speak_lang: string;
  hear_lang: string;
  /** The voice chosen at join (null: the default voice); say checks it is still usable. */
  voice_id?: string | null;
  status: 'joining' | 'active' | 'ended';
  billed_seconds: number;
  from_seq: number;
  to_seq: number | null;
  speaking_until: Date | null;
  started_at: Date;
  ended_at: Date | null;
};

export const COLUMNS =
  'id, org_id, livemode, credential_id, room_id, log_id, call_id, name, speak_lang, hear_lang, voice_id, status, billed_seconds, from_seq, to_seq, speaking_until, started_at, ended_at';

export function toSession(r: SessionRow): Session {
  return {
    id: r.id,
    room_id: r.room_id,
    name: r.name,
    speak_lang: r.speak_lang,
    hear_lang: r.hear_lang,
    status: r.status,
    billed_seconds: Math.round(Number(r.billed_seconds)),
    started_at: r.started_at.toISOString(),
    ended_at: r.ended_at ? r.ended_at.toISOString() : null,
    livemode: r.livemode,
  };
}

/**
 * Live sessions in rooms are translated by the operator's engines
 * (operator.md: Engines; SIP trunks and live mode): on a server with none
 * configured a live key cannot join a room (501 not_available_yet). Test keys
 * run on the simulator everywhere.
 */
export function assertSessionsAvailable(s: Pick<Services, 'translation'>, cred: Caller): void {
  if (cred.livemode && !hasTranslationEngines(s)) throw liveUnavailable();
}

function liveUnavailable(): ApiError {
  return new ApiError(
    'not_available_yet',
    'AI agent sessions in live mode need translation engines, and this server has none configured (the operator sets TOLK_TRANSLATE); ' +
      'they work with a test key, on the simulator',
  );
}

/**
 * The work on a session (get, say, listen, leave), where a live key's session
 * that is not there answers 501 not_available_yet instead of 404 on a server
 * where no live session can join a room: the feature is what is missing, as
 * api.md says. A session that exists (a live call's) works either way.
 */
export async function unlessUnavailable<T>(s: Pick<Services, 'translation'>, cred: Caller, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found' && cred.livemode && !hasTranslationEngines(s)) throw liveUnavailable();
    throw err;
  }
}

/** Whether the operator configured any translation engine (TOLK_TRANSLATE). */
export function hasTranslationEngines(s: Pick<Services, 'translation'>): boolean {
  return (s.translation?.engines.length ?? 0) > 0;
}

/** The caller's session; `lock` takes its row for the rest of the transaction. */
export async function loadSession(db: Queryable, cred: Caller, id: string, opts: { lock?: boolean } = {}): Promise<SessionRow> {
  if (!ID_PATTERN.test(id)) throw notFound('session', id);
  const { rows } = await db.query<SessionRow>(prepared(
    `SELECT ${COLUMNS} FROM agent_sessions WHERE id = $1 AND org_id = $2 AND livemode = $3${opts.lock ? ' FOR UPDATE' : ''}`,
    [id, cred.orgId, cred.livemode],
  ));
  if (!rows[0]) throw notFound('session', id);
  return rows[0];
}

export function sessionEnded(id: string): ApiError {
  return new ApiError('session_ended', `Session '${id}' has ended`);
}

export async function getSession(s: Services, cred: Caller, id: string): Promise<Session> {
  return toSession(await unlessUnavailable(s, cred, loadSession(s.pool, cred, id)));
}

/** The voice a session chose at join (null: the default voice) and whose it is, or undefined for no such session. */
export async function chosenVoice(db: Queryable, id: string): Promise<{ voiceId: string | null; owner: { orgId: string; livemode: boolean } } | undefined> {
  const { rows } = await db.query<{ voice_id: string | null; org_id: string; livemode: boolean }>(prepared(
    `SELECT voice_id, org_id, livemode FROM agent_sessions WHERE id = $1`, [id]));
  const r = rows[0];
  return r ? { voiceId: r.voice_id, owner: { orgId: r.org_id, livemode: r.livemode } } : undefined;
}
