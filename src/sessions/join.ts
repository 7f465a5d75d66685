import type { Client } from '../db/pool.ts';
import { ID_PATTERN, newId } from '../ids.ts';
import { ApiError, notFound } from '../errors.ts';
import { createPersistedActor, transition } from '../actors/store.ts';
import { LOG_CHANNEL, now, type Caller, type Services } from '../services.ts';
import { assertLanguagesAllowed, assertVoiceAllowed } from '../restrictions.ts';
import { announcement } from '../engines/sim/phrasebook.ts';
import type { Session } from './schemas.ts';
import { COLUMNS, assertSessionsAvailable, toSession, type SessionRow } from './sessions.ts';
import { assertLiveCoverage } from './coverage.ts';
import { publishSegment, roomHead } from './publish.ts';

export type JoinInput = { name?: string; speak_lang: string; hear_lang: string; voice_id?: string; announce: boolean };

const DEFAULT_AGENT_NAME = 'Tolk Assistant';

/**
 * POST /v1/rooms/{id}/agent-sessions: the agent joins (JOIN, `joining`), the
 * room hears that an AI assistant joined (announce), and it is seated
 * (JOINED, `active`), all in the caller's transaction.
 */
export async function joinRoom(s: Services, tx: Client, cred: Caller, roomId: string, input: JoinInput): Promise<Session> {
  // The key's restrictions first (as for every input that carries them), then the live-mode refusal.
  assertLanguagesAllowed(cred, 'speak_lang', [input.speak_lang]);
  assertLanguagesAllowed(cred, 'hear_lang', [input.hear_lang]);
  assertVoiceAllowed(cred, 'voice_id', input.voice_id);
  assertSessionsAvailable(s, cred);
  if (!ID_PATTERN.test(roomId)) throw notFound('room', roomId);
  const { rows: rooms } = await tx.query<{ status: string; langs: string[] }>(
    `SELECT status, langs FROM rooms WHERE id = $1 AND org_id = $2 AND livemode = $3 FOR SHARE`,
    [roomId, cred.orgId, cred.livemode],
  );
  const room = rooms[0];
  if (!room) throw notFound('room', roomId);
  if (room.status === 'ended') throw new ApiError('conflict', `Room '${roomId}' has ended; an agent cannot join it`);
  if (room.status === 'canceled') throw new ApiError('conflict', `Meeting '${roomId}' was canceled; an agent cannot join it`);
  // A live session is translated by the engines alone: they must cover its languages and the room's (coverage.ts).
  if (cred.livemode) assertLiveCoverage(s, input.speak_lang, input.hear_lang, room.langs);
  const voiceId = await s.reactions.usableVoice(tx, cred, 'voice_id', input.voice_id);
  // Simultaneous sessions in rooms per organization (a call's session is the
  // call's, not counted here): counted under a per-organization lock, so
  // parallel joins cannot all pass the limit.
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('sessions:' || $1::text))`, [cred.orgId]);
  const { rows: open } = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM agent_sessions WHERE org_id = $1 AND status <> 'ended' AND room_id IS NOT NULL`,
    [cred.orgId],
  );
  if (open[0]!.n >= s.config.maxSessions) {
    throw new ApiError('too_many_sessions', `At most ${s.config.maxSessions} simultaneous agent sessions per organization; leave one first`, {
      'Retry-After': '5',
    });
  }
  const id = newId('ses');
  // The session hears what the room says from now on: its log after this number.
  const fromSeq = await roomHead(tx, roomId);
  const row: SessionRow = {
    id, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, room_id: roomId, log_id: roomId, call_id: null,
    name: input.name ?? DEFAULT_AGENT_NAME, speak_lang: input.speak_lang, hear_lang: input.hear_lang,
    status: 'joining', billed_seconds: 0, from_seq: fromSeq, to_seq: null, speaking_until: null, started_at: now(s), ended_at: null,
  };
  await createPersistedActor(tx, {
    id,
    machine: 'session',
    owner: { orgId: cred.orgId, livemode: cred.livemode },
    event: { type: 'JOIN' },
    objectFor: () => toSession(row),
    row: {
      id, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, room_id: roomId, log_id: roomId, name: row.name,
      speak_lang: row.speak_lang, hear_lang: row.hear_lang, voice_id: voiceId, from_seq: fromSeq, metered_seq: fromSeq,
    },
  });
  // The room now has a listener (reactions.ts: in test mode its robots start talking).
  await s.reactions.sessionJoined(s, tx, { logId: roomId, roomLangs: room.langs, livemode: cred.livemode });
  if (input.announce) {
    // Every listener language hears that an AI assistant joined, in its own words (reader.ts).
    await publishSegment(s, tx, {
      roomId, kind: 'announcement', speaker: null, participantId: 'system', srcLang: 'en',
      text: announcement(row.name, 'en'), sessionId: id, announced: row.name,
    });
  } else {
    // Unannounced, it still comes into the room: its pages list it (with its AI badge) on commit, on every process.
    await tx.query(`SELECT pg_notify($1, $2)`, [LOG_CHANNEL, roomId]);
  }
  const seated = await transition<SessionRow>(tx, 'session', id, { type: 'JOINED' }, { returning: COLUMNS, objectFor: toSession });
  return toSession(seated.row);
}
