import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Client, Queryable } from '../db/pool.ts';
import { prepared, withTx } from '../db/pool.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { ID_PATTERN, newId } from '../ids.ts';
import { writeEvent } from '../actors/store.ts';
import { LOG_CHANNEL, now, type Services } from '../services.ts';
import { inTx } from '../jobs/in-tx.ts';
import { linkSigningKey, verifyJoinToken } from './join-links.ts';
import { clientKey, takeQuotas } from '../http/quotas.ts';
import type { PublicLimits } from '../public-limits.ts';
import { recordUsage } from '../billing/ledger.ts';

// People in a room through its page (src/rooms/page.ts). Joining makes the
// person a participant of the room (room.participant_joined); leaving, the
// page going silent for longer than ABSENT_MS (the stream keeps last_seen_at
// fresh while the page is connected, rooms/stream.ts; a sweep every minute
// ends those that went quiet), or the room ending makes them leave
// (room.participant_left). Events carry ids only. A participant's phrases
// go into the room's log like an agent's (Reactions.personSaid), so agent sessions
// hear them as segment.final with the person as speaker, transcripts keep
// them, and the test-mode robots answer them. Every change wakes the room's
// listeners in every process (NOTIFY on the logs' channel, LOG_CHANNEL).

/** A page not heard from for this long has left (its stream heartbeats every HEARTBEAT_MS). */
export const ABSENT_MS = 45_000;
export const HEARTBEAT_MS = 15_000;
export const PRESENCE_SWEEP_QUEUE = 'room-presence-sweep';
export const PRESENCE_SWEEP_CRON = '* * * * *';

export type ParticipantRow = {
  id: string;
  room_id: string;
  org_id: string;
  livemode: boolean;
  name: string;
  speak_lang: string;
  hear_lang: string;
  secret_hash: string;
  from_seq: string;
  left_at: Date | null;
};
const COLUMNS = 'id, room_id, org_id, livemode, name, speak_lang, hear_lang, secret_hash, from_seq, left_at';

export type JoinInput = { name: string; speak: string; hear: string; t?: string };

function hash(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

function eventObject(p: { id: string; room_id: string; livemode: boolean }) {
  return { id: p.id, object: 'participant', room_id: p.room_id, livemode: p.livemode };
}

async function notifyRoom(tx: Queryable, roomId: string): Promise<void> {
  await tx.query(prepared(`SELECT pg_notify($1, $2)`, [LOG_CHANNEL, roomId]));
}

type RoomForJoin = { id: string; org_id: string; livemode: boolean; status: string; visibility: string; starts_at: Date | null };

/**
 * The page's join: a live room, and for a private room a join link of that
 * room (its token `t`); the person becomes a participant. Answers the
 * participant, the secret its page proves itself with, and the room's log
 * position (what is said from now on is theirs to read).
 */
export async function joinAsPerson(s: Services, roomId: string, input: JoinInput, ip?: string) {
  if (!ID_PATTERN.test(roomId)) throw notFound('room', roomId);
  const l = s.config.publicLimits;
  return withTx(s.pool, async (tx) => {
    // Counted before any lock of the room (quotas.ts), undone with the join if it is refused.
    await takeQuotas(tx, [
      { bucket: `join:client:${clientKey(ip)}`, limit: l.joinsPerClientMinute, windowSeconds: 60, what: 'joins from your network' },
      { bucket: `join:room:${roomId}`, limit: l.joinsPerRoomMinute, windowSeconds: 60, what: 'people joining this room at once' },
    ], now(s).getTime());
    const { rows } = await tx.query<RoomForJoin>(prepared(
      `SELECT id, org_id, livemode, status, visibility, starts_at FROM rooms WHERE id = $1 FOR SHARE`, [roomId],
    ));
    const room = rows[0];
    if (!room) throw notFound('room', roomId);
    let who: string | undefined;
    if (input.t !== undefined && input.t !== '') {
      const claims = verifyJoinToken(await linkSigningKey(tx), input.t, now(s).getTime());
      if (!claims || claims.room_id !== roomId) throw new ApiError('unauthorized', 't: this join link is invalid or has expired');
      who = claims.who;
    } else if (room.visibility === 'private') {
      throw new ApiError('unauthorized', 't: this room is private; open it with your join link');
    } else if (!s.config.anonymousJoin) {
      throw new ApiError('unauthorized', 't: this service lets people into rooms with a join link only; ask the person who invited you for one');
    }
    if (room.status === 'scheduled') {
      throw new ApiError('conflict', `room: this meeting has not started yet; it starts at ${room.starts_at?.toISOString() ?? 'its start time'}`);
    }
    if (room.status !== 'live') throw new ApiError('conflict', `room: this room has ${room.status === 'canceled' ? 'been canceled' : 'ended'}`);
    await admitToRoom(tx, roomId, input.hear, l);
    const id = newId('par');
    const secret = randomBytes(24).toString('base64url');
    const cursor = await s.reactions.logHead(tx, roomId);
    // Their own invitation's link, and their cloned voice ready: the others hear their phrases in it (read-aloud.ts phraseVoice).
    const voice = who ? await s.reactions.personVoice(tx, { orgId: room.org_id, livemode: room.livemode }, who) : null;
    await tx.query(prepared(
      `INSERT INTO room_participants (id, room_id, org_id, livemode, name, speak_lang, hear_lang, secret_hash, from_seq, voice_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [id, roomId, room.org_id, room.livemode, input.name, input.speak, input.hear, hash(secret), cursor, voice],
    ));
    await writeEvent(tx, { orgId: room.org_id, livemode: room.livemode }, 'room.participant_joined', eventObject({ id, room_id: roomId, livemode: room.livemode }));
    await notifyRoom(tx, roomId);
    return { id, name: input.name, speak_lang: input.speak, hear_lang: input.hear, secret, cursor };
  });
}

/**
 * Room for one more person: fewer than participantsPerRoom present, and the
 * language they hear already heard here or fewer than languagesPerRoom
 * languages heard (each is a translation of every phrase). One join of a
 * room at a time (an advisory lock, not the room's row: sayers share that).
 */
async function admitToRoom(tx: Client, roomId: string, hear: string, l: PublicLimits): Promise<number> {
  await tx.query(prepared(`SELECT pg_advisory_xact_lock(hashtext('room-join:' || $1::text))`, [roomId]));
  const { rows } = await tx.query<{ present: number; langs: string[] }>(prepared(
    `SELECT count(*)::int AS present, coalesce(array_agg(DISTINCT hear_lang ORDER BY hear_lang), '{}') AS langs
       FROM room_participants WHERE room_id = $1 AND left_at IS NULL`,
    [roomId],
  ));
  const { present, langs } = rows[0]!;
  if (present >= l.participantsPerRoom) {
    throw new ApiError('conflict', `room: this room is full (${l.participantsPerRoom} people); try again when someone leaves`);
  }
  if (!langs.includes(hear) && langs.length >= l.languagesPerRoom) {
    throw new ApiError('conflict', `hear: this room is translated into ${langs.length} languages already, its most; pick one of them: ${langs.join(', ')}`);
  }
  return present;
}

/**
 * A page's stream opens (GET /r/{id}/stream): at most streamsPerParticipant
 * open at once for one participant, on every process (room_streams; rows of
 * a process that died go stale after ABSENT_MS). It also marks the person
 * seen: a page back from a reload keeps them in the room (leaveUnlessBack).
 * Returns the stream's id (closeStream when it ends).
 */
export async function openStream(s: Services, participantId: string): Promise<string> {
  const cap = s.config.publicLimits.streamsPerParticipant;
  return withTx(s.pool, async (tx) => {
    await tx.query(prepared(`UPDATE room_participants SET last_seen_at = now() WHERE id = $1 AND left_at IS NULL`, [participantId]));
    const { rows } = await tx.query<{ open: number }>(prepared(
      `WITH stale AS (DELETE FROM room_streams WHERE participant_id = $1 AND seen_at < now() - make_interval(secs => $2))
       SELECT count(*)::int AS open FROM room_streams WHERE participant_id = $1 AND seen_at >= now() - make_interval(secs => $2)`,
      [participantId, ABSENT_MS / 1000],
    ));
    if (rows[0]!.open >= cap) {
      throw new ApiError('rate_limited', `Too many open pages of this participant (${cap}); close another tab of this room`, { 'Retry-After': String(HEARTBEAT_MS / 1000) });
    }
    const id = newId('rst');
    await tx.query(prepared(`INSERT INTO room_streams (id, participant_id) VALUES ($1, $2)`, [id, participantId]));
    return id;
  });
}

/** Streams that ended (their connection closed, or the server stops). */
export async function closeStreams(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(prepared(`DELETE FROM room_streams WHERE id = ANY($1::text[])`, [ids]));
}

/** A present participant of the room whose secret this is (401 otherwise; 409 once they left). */
export async function participantOf(db: Queryable, roomId: string, id: string, secret: string, lock = false): Promise<ParticipantRow> {
  const unknown = () => new ApiError('unauthorized', 'participant: not a participant of this room; join again');
  if (!ID_PATTERN.test(id) || typeof secret !== 'string' || secret.length > 100) throw unknown();
  const { rows } = await db.query<ParticipantRow>(prepared(
    `SELECT ${COLUMNS} FROM room_participants WHERE id = $1 AND room_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [id, roomId],
  ));
  const p = rows[0];
  if (!p) throw unknown();
  const a = Buffer.from(p.secret_hash);
  const b = Buffer.from(hash(secret));
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw unknown();
  if (p.left_at) throw new ApiError('conflict', 'participant: you left this room; join again');
  return p;
}

/**
 * Marks participants left in tx (one statement) and writes their events; returns the rooms touched.
 * A participant by phone is billed here, once (the statement ends each participant once): their
 * connected seconds, from their join to their leaving (to when their line was last heard of, when
 * the sweep ends them because its process went), rounded up, times their minute factor, to the
 * room's credential.
 */
async function markLeft(tx: Client, where: string, values: unknown[], reason: 'left' | 'absent' | 'room_ended' | 'gateway_lost'): Promise<string[]> {
  const { rows } = await tx.query<{ id: string; room_id: string; org_id: string; livemode: boolean; factor: number | null; connected: number }>(
    `UPDATE room_participants SET left_at = now(), left_reason = '${reason}' WHERE left_at IS NULL AND ${where}
     RETURNING id, room_id, org_id, livemode, phone_minute_factor AS factor,
               extract(epoch FROM ${reason === 'absent' || reason === 'gateway_lost' ? 'last_seen_at' : 'now()'} - joined_at)::float8 AS connected`,
    values,
  );
  for (const r of rows) {
    await writeEvent(tx, { orgId: r.org_id, livemode: r.livemode }, 'room.participant_left', eventObject(r));
    if (r.factor !== null) await billPhone(tx, r.id, r.room_id, Math.max(0, r.connected), r.factor);
  }
  const rooms = [...new Set(rows.map((r) => r.room_id))];
  for (const room of rooms) await notifyRoom(tx, room);
  return rooms;
}

/** A phone participant's connected minutes, to the room's credential (markLeft). */
async function billPhone(tx: Client, id: string, roomId: string, connectedSeconds: number, factor: number): Promise<void> {
  const billed = Math.ceil(connectedSeconds) * factor;
  await tx.query(prepared(`UPDATE room_participants SET phone_billed_seconds = $2 WHERE id = $1`, [id, billed]));
  if (!(billed > 0)) return;
  const { rows } = await tx.query<{ org_id: string; credential_id: string; livemode: boolean }>(prepared(
    `SELECT org_id, credential_id, livemode FROM rooms WHERE id = $1`, [roomId]));
  const room = rows[0];
  if (room) await recordUsage(tx, { orgId: room.org_id, credentialId: room.credential_id, livemode: room.livemode, kind: 'phone', seconds: billed, ref: id });
}

/** Who joins by phone (rooms/phone/): the PIN's person, with their caller's number masked for the badge. */
/** `minuteFactor` null: not billed as a participant (a call brought into the room is billed as the call it is). */
export type PhoneJoin = { roomId: string; name: string; speak: string; hear: string; phone: string; minuteFactor: number | null };

/**
 * A caller whose PIN let them in: a participant of the live room under `id` (the line's key), counted in
 * its people cap as a page's person is, heard from its log's head on. Answers what they are told on
 * joining. Throws 409 conflict when the room is full or no longer live.
 */
export async function joinByPhone(s: Services, id: string, j: PhoneJoin): Promise<{ cursor: number; others: number; title: string; livemode: boolean }> {
  return withTx(s.pool, async (tx) => {
    const { rows } = await tx.query<{ org_id: string; livemode: boolean; status: string; title: string }>(prepared(
      `SELECT org_id, livemode, status, title FROM rooms WHERE id = $1 FOR SHARE`, [j.roomId]));
    const room = rows[0];
    if (!room || room.status !== 'live') throw new ApiError('conflict', 'room: this room is not live');
    const others = await admitToRoom(tx, j.roomId, j.hear, s.config.publicLimits);
    const cursor = await s.reactions.logHead(tx, j.roomId);
    await tx.query(prepared(
      `INSERT INTO room_participants (id, room_id, org_id, livemode, name, speak_lang, hear_lang, secret_hash, from_seq, phone, phone_minute_factor)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [id, j.roomId, room.org_id, room.livemode, j.name, j.speak, j.hear, hash(randomBytes(24).toString('base64url')), cursor, j.phone, j.minuteFactor],
    ));
    await writeEvent(tx, { orgId: room.org_id, livemode: room.livemode }, 'room.participant_joined', eventObject({ id, room_id: j.roomId, livemode: room.livemode }));
    await notifyRoom(tx, j.roomId);
    return { cursor: Number(cursor), others, title: room.title, livemode: room.livemode };
  });
}

/** A phone participant's line ended (their BYE, ours): they leave, billed once. Leaving again changes nothing. */
export async function leaveByPhone(s: Services, id: string): Promise<void> {
  await withTx(s.pool, (tx) => markLeft(tx, 'id = $1', [id], 'left'));
}

/** A phone participant's line is alive (its process's heartbeat): false once they are no longer in the room (it ended, they were removed). */
export async function phoneStillIn(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query(prepared(`UPDATE room_participants SET last_seen_at = now() WHERE id = $1 AND left_at IS NULL RETURNING id`, [id]));
  return rows.length > 0;
}

/** The page's Leave (its button, or the tab closing). Leaving again changes nothing. */
export async function leaveAsPerson(s: Services, roomId: string, id: string, secret: string): Promise<void> {
  await withTx(s.pool, async (tx) => {
    try {
      await participantOf(tx, roomId, id, secret, true);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'conflict') return;
      throw err;
    }
    await markLeft(tx, 'id = $1', [id], 'left');
  });
}

/** How long a page that is unloading has to come back (a reload) before its person leaves. */
export const UNLOAD_GRACE_MS = 5_000;
export const LEAVE_CHECK_QUEUE = 'room-leave-check';
export type LeaveCheckJob = { participantId: string; at: string };

/**
 * The page is unloading (its tab closing, or reloading): a check in
 * UNLOAD_GRACE_MS (a pg-boss job) lets the person go unless their page's
 * stream came back since (it marks them seen when it connects).
 */
export async function leaveUnlessBack(s: Services, roomId: string, id: string, secret: string): Promise<void> {
  await withTx(s.pool, async (tx) => {
    const p = await participantOf(tx, roomId, id, secret).catch((err) => {
      if (err instanceof ApiError && err.code === 'conflict') return null;
      throw err;
    });
    if (!p) return;
    const { rows } = await tx.query<{ at: Date }>(`SELECT now() AS at`);
    const job: LeaveCheckJob = { participantId: id, at: rows[0]!.at.toISOString() };
    await s.boss.send(LEAVE_CHECK_QUEUE, job, { ...inTx(tx), startAfter: new Date(Date.now() + UNLOAD_GRACE_MS) });
  });
}

/** The check of leaveUnlessBack: still not seen since the page unloaded, the person leaves. */
export async function checkLeave(s: Services, job: LeaveCheckJob): Promise<void> {
  await withTx(s.pool, async (tx) => {
    await markLeft(tx, 'id = $1 AND last_seen_at <= $2', [job.participantId, job.at], 'left');
  });
}

/** Everyone still present leaves (the room ended), in the room's transaction. */
export async function endRoomParticipants(tx: Client, roomId: string): Promise<void> {
  await markLeft(tx, 'room_id = $1', [roomId], 'room_ended');
  // The room's pages learn it ended even when nobody was present.
  await notifyRoom(tx, roomId);
}

/** The pages connected to this process are alive: their participants' last_seen_at moves on. */
export async function touchParticipants(db: Queryable, ids: string[], streams: string[] = []): Promise<void> {
  if (ids.length === 0) return;
  await db.query(prepared(`UPDATE room_participants SET last_seen_at = now() WHERE id = ANY($1::text[]) AND left_at IS NULL`, [ids]));
  if (streams.length > 0) await db.query(prepared(`UPDATE room_streams SET seen_at = now() WHERE id = ANY($1::text[])`, [streams]));
}

/**
 * Participants whose page went silent longer than ABSENT_MS leave (the minute sweep); a phone
 * participant not heard of for as long lost their gateway process (its heartbeat keeps them seen):
 * gateway_lost, billed to when they were last seen.
 */
export async function sweepAbsent(s: Services): Promise<number> {
  return withTx(s.pool, async (tx) => {
    const lost = await markLeft(tx, `phone IS NOT NULL AND last_seen_at < now() - make_interval(secs => $1)`, [ABSENT_MS / 1000], 'gateway_lost');
    const rooms = [...lost, ...await markLeft(tx, `last_seen_at < now() - make_interval(secs => $1)`, [ABSENT_MS / 1000], 'absent')];
    // Streams of a process that died.
    await tx.query(prepared(`DELETE FROM room_streams WHERE seen_at < now() - make_interval(secs => $1)`, [ABSENT_MS / 1000]));
    return rooms.length;
  });
}

/** A participant says something: a phrase of the room's log in their language, heard by everyone else in theirs. */
export async function sayAsPerson(s: Services, roomId: string, id: string, secret: string, text: string): Promise<{ seq: number }> {
  const trimmed = text.trim();
  if (trimmed === '') throw invalid('text', 'say something (it is empty)');
  return withTx(s.pool, async (tx) => {
    // The room before the participant: ending a room locks it first too, so the two never deadlock.
    const { rows } = await tx.query(prepared(`SELECT status FROM rooms WHERE id = $1 FOR SHARE`, [roomId]));
    const p = await participantOf(tx, roomId, id, secret, true);
    if (rows[0]?.status !== 'live') throw new ApiError('conflict', 'room: this room has ended');
    return publishPersonPhrase(s, tx, roomId, p, trimmed);
  });
}

/**
 * A phrase the participant said aloud (rooms/audio.ts: recognized from their
 * microphone), into the room's log as a typed one goes, with its length. The
 * audio socket proved the participant when it opened; here they must still
 * be in the room, and the room live.
 */
/** `segmentId`: the id the phrase's partials carried (segment.partial), so its final replaces them. */
export async function sayAloudAsPerson(s: Services, roomId: string, id: string, text: string, audioMs: number, segmentId?: string): Promise<{ seq: number }> {
  return withTx(s.pool, async (tx) => {
    const { rows } = await tx.query(prepared(`SELECT status FROM rooms WHERE id = $1 FOR SHARE`, [roomId]));
    const { rows: ps } = await tx.query<ParticipantRow>(prepared(`SELECT ${COLUMNS} FROM room_participants WHERE id = $1 AND room_id = $2 FOR UPDATE`, [id, roomId]));
    const p = ps[0];
    if (!p || p.left_at) throw new ApiError('conflict', 'participant: you left this room; join again');
    if (rows[0]?.status !== 'live') throw new ApiError('conflict', 'room: this room has ended');
    return publishPersonPhrase(s, tx, roomId, p, text.trim(), audioMs, segmentId);
  });
}

async function publishPersonPhrase(s: Services, tx: Client, roomId: string, p: ParticipantRow, text: string, audioMs?: number, segmentId?: string): Promise<{ seq: number }> {
  const l = s.config.publicLimits;
  await takeQuotas(tx, [
    { bucket: `say:participant:${p.id}`, limit: l.phrasesPerParticipantMinute, windowSeconds: 60, what: 'phrases from you in a minute' },
    { bucket: `say:room:${roomId}`, limit: l.phrasesPerRoomMinute, windowSeconds: 60, what: 'phrases in this room in a minute' },
  ], now(s).getTime());
  await tx.query(prepared(`UPDATE room_participants SET last_seen_at = now() WHERE id = $1`, [p.id]));
  const seq = await s.reactions.personSaid(s, tx, {
    logId: roomId, participantId: p.id, speaker: p.name, lang: p.speak_lang, text, ...(audioMs !== undefined ? { audioMs } : {}),
    ...(segmentId !== undefined ? { segmentId } : {}),
  });
  await s.reactions.phraseSaid(s, tx, { logId: roomId, lang: p.speak_lang, livemode: p.livemode });
  return { seq };
}

/** `phone`: in the room by phone (the page shows a badge). */
export type Person = { id: string; name: string; kind: 'person' | 'agent' | 'robot'; ai: boolean; phone: boolean; speak_lang: string; hear_lang: string | null };

/** Who is in the room now: its people, its agent sessions (AI), and its test-mode robots, in the order they came. */
export async function roomPeople(db: Queryable, roomId: string): Promise<Person[]> {
  const { rows } = await db.query<Person & { at: Date }>(prepared(
    `SELECT id, name, 'person' AS kind, false AS ai, phone IS NOT NULL AS phone, speak_lang, hear_lang, joined_at AS at FROM room_participants WHERE room_id = $1 AND left_at IS NULL
     UNION ALL
     SELECT id, name, 'agent', true, false, speak_lang, hear_lang, started_at FROM agent_sessions WHERE room_id = $1 AND status <> 'ended'
     UNION ALL
     SELECT 'robot_a', robot_a_name, 'robot', false, false, robot_a_lang, robot_a_lang, '-infinity'::timestamptz FROM sim_rooms WHERE room_id = $1
     UNION ALL
     SELECT 'robot_b', 'Robot B', 'robot', false, false, robot_b_lang, robot_b_lang, '-infinity'::timestamptz FROM sim_rooms WHERE room_id = $1 AND robot_b_lang IS NOT NULL
     ORDER BY at, id`,
    [roomId],
  ));
  return rows.map(({ at: _at, ...p }) => p);
}
