import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Client, Queryable } from '../db/pool.ts';
import { withTx } from '../db/pool.ts';
import { ID_PATTERN, newId } from '../ids.ts';
import { ApiError, notFound } from '../errors.ts';
import { createPersistedActor, sendToActor } from '../actors/store.ts';
import { QUEUES, inTx } from '../jobs/boss.ts';
import type { Room } from '../http/schemas.ts';
import type { Caller, Services } from './context.ts';
import { assertLanguagesAllowed } from './restrictions.ts';
import { endRoomSessions } from './sessions.ts';

/** An instant room stays open this long unless it is ended first (our choice; api.md is silent). */
export const INSTANT_ROOM_TTL_MS = 24 * 3600_000;

type RoomRow = {
  id: string;
  title: string;
  visibility: 'private' | 'public';
  status: 'scheduled' | 'live' | 'ended';
  created_at: Date;
  expires_at: Date;
  starts_at: Date | null;
  duration_min: number | null;
  invitees: string[];
  langs: string[];
  livemode: boolean;
};

const COLUMNS = 'id, title, visibility, status, created_at, expires_at, starts_at, duration_min, invitees, langs, livemode';

export function roomUrl(base: string, id: string): string {
  return `${base}/r/${id}`;
}

export function toRoom(base: string, r: RoomRow): Room {
  return {
    id: r.id,
    url: roomUrl(base, r.id),
    title: r.title,
    visibility: r.visibility,
    status: r.status,
    created_at: r.created_at.toISOString(),
    expires_at: r.expires_at.toISOString(),
    starts_at: r.starts_at ? r.starts_at.toISOString() : null,
    duration_min: r.duration_min,
    invitees: r.invitees,
    langs: r.langs,
    livemode: r.livemode,
  };
}

export type CreateRoomInput = { title: string; visibility: 'private' | 'public'; langs: string[] };

export async function createRoom(s: Services, tx: Client, cred: Caller, input: CreateRoomInput): Promise<Room> {
  assertLanguagesAllowed(cred, 'langs', input.langs);
  const id = newId('room');
  const now = new Date();
  const expires = new Date(now.getTime() + INSTANT_ROOM_TTL_MS);
  const room = toRoom(s.config.publicBaseUrl, {
    id, title: input.title, visibility: input.visibility, status: 'live', created_at: now, expires_at: expires,
    starts_at: null, duration_min: null, invitees: [], langs: input.langs, livemode: cred.livemode,
  });
  // The room row is written by the same statement as its actor (one round trip).
  await createPersistedActor(tx, {
    id,
    machine: 'room',
    owner: { orgId: cred.orgId, livemode: cred.livemode },
    event: { type: 'OPEN' },
    objectFor: () => room,
    row: {
      table: 'rooms',
      values: {
        id, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, kind: 'instant', title: input.title,
        visibility: input.visibility, status: 'live', langs: input.langs, invitees: [], created_at: now, expires_at: expires,
      },
    },
  });
  await s.boss.send(QUEUES.roomExpire, { roomId: id }, { startAfter: expires, singletonKey: id, ...inTx(tx) });
  return room;
}

function visible(id: string): boolean {
  return ID_PATTERN.test(id);
}

export async function getRoom(s: Services, db: Queryable, cred: Caller, id: string): Promise<Room> {
  if (!visible(id)) throw notFound('room', id);
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM rooms WHERE id = $1 AND org_id = $2 AND livemode = $3`,
    [id, cred.orgId, cred.livemode],
  );
  if (!rows[0]) throw notFound('room', id);
  return toRoom(s.config.publicBaseUrl, rows[0]);
}

export async function listRooms(s: Services, cred: Caller, limit: number, startingAfter?: string) {
  const values: unknown[] = [cred.orgId, cred.livemode, limit + 1];
  let cursor = '';
  if (startingAfter) {
    values.push(startingAfter);
    cursor = `AND (created_at, id) < (SELECT created_at, id FROM rooms WHERE id = $4 AND org_id = $1 AND livemode = $2)`;
  }
  const { rows } = await s.pool.query(
    `SELECT ${COLUMNS} FROM rooms WHERE org_id = $1 AND livemode = $2 ${cursor}
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    values,
  );
  return {
    data: rows.slice(0, limit).map((r) => toRoom(s.config.publicBaseUrl, r)),
    has_more: rows.length > limit,
  };
}

/**
 * Ends a room for everyone (DELETE /v1/rooms/{id}, or its expiry timer).
 * Ending an ended room changes nothing and returns it as it is.
 */
export async function endRoom(s: Services, owner: { orgId: string; livemode: boolean } | null, id: string, reason: 'deleted' | 'expired'): Promise<Room> {
  if (!visible(id)) throw notFound('room', id);
  return withTx(s.pool, async (tx) => {
    const { rows } = await tx.query(
      `SELECT ${COLUMNS}, org_id FROM rooms WHERE id = $1 FOR UPDATE`,
      [id],
    );
    const row = rows[0];
    if (!row || (owner && (row.org_id !== owner.orgId || row.livemode !== owner.livemode))) throw notFound('room', id);
    if (row.status === 'ended') return toRoom(s.config.publicBaseUrl, row);
    const ended = await tx.query(
      `UPDATE rooms SET status = 'ended', ended_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    const room = toRoom(s.config.publicBaseUrl, ended.rows[0]);
    await sendToActor(tx, id, { type: 'END', reason }, () => room);
    // api.md: the room ends for everyone, its agent sessions included.
    await endRoomSessions(s, tx, id);
    return room;
  });
}

// Join links: a signed token carries the room and the prefilled name and
// languages; the room page verifies the signature, so the link needs no lookup
// to be trusted and cannot be altered.

export type JoinClaims = { room_id: string; name?: string; speak?: string; hear?: string; exp: number };

export function signJoinToken(key: string, claims: JoinClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const mac = createHmac('sha256', key).update(payload).digest('base64url');
  return `${payload}.${mac}`;
}

export function verifyJoinToken(key: string, token: string, now = Date.now()): JoinClaims | null {
  const [payload, mac] = token.split('.');
  if (!payload || !mac) return null;
  const expected = createHmac('sha256', key).update(payload).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as JoinClaims;
    if (typeof claims.exp !== 'number' || claims.exp * 1000 < now) return null;
    return claims;
  } catch {
    return null;
  }
}

/** The join-link key is created by the first migration and shared by every process. */
export async function linkSigningKey(db: Queryable): Promise<string> {
  const { rows } = await db.query(`SELECT value FROM settings WHERE name = 'link_signing_key'`);
  return rows[0].value;
}

export async function createJoinLink(
  s: Services,
  cred: Caller,
  id: string,
  input: { name?: string; speak?: string; hear?: string },
): Promise<{ url: string; room_id: string }> {
  assertLanguagesAllowed(cred, 'speak', [input.speak]);
  assertLanguagesAllowed(cred, 'hear', [input.hear]);
  const room = await getRoom(s, s.pool, cred, id);
  if (room.status === 'ended') throw new ApiError('conflict', `room ${id} has ended; no one can join it`);
  const key = await linkSigningKey(s.pool);
  const exp = Math.floor(new Date(room.expires_at).getTime() / 1000);
  const token = signJoinToken(key, { room_id: room.id, ...input, exp });
  return { url: `${roomUrl(s.config.publicBaseUrl, room.id)}?t=${token}`, room_id: room.id };
}
