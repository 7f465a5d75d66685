import type { Client, Queryable } from '../db/pool.ts';
import { prepared, withTx } from '../db/pool.ts';
import { ID_PATTERN, newId } from '../ids.ts';
import { ApiError, invalid, notFound, truncate } from '../errors.ts';
import { createPersistedActor, transition } from '../actors/store.ts';
import type { Room } from './schemas.ts';
import { now, type Caller, type Services } from '../services.ts';
import { assertLanguagesAllowed } from '../restrictions.ts';

// Rooms (api.md: Room, the room state table, the Rooms endpoints). The
// lifecycle is machines/room.ts, persisted as an actor; the status column is
// written by the actor store from the machine's state.

/**
 * pg-boss queue of the room expiry sweep (rooms/jobs.ts): every minute, one
 * job ends the rooms whose expires_at has passed. One periodic job instead of
 * one timer per room keeps a create to its own rows (no job insert, no worker
 * wake-up per room).
 */
export const ROOM_EXPIRY_QUEUE = 'room-expiry-sweep';
export const ROOM_EXPIRY_CRON = '* * * * *';

/** An instant room stays open this long unless it is ended first (our choice; api.md is silent). */
export const INSTANT_ROOM_TTL_MS = 24 * 3600_000;

export type RoomRow = {
  id: string;
  title: string;
  visibility: 'private' | 'public';
  status: 'scheduled' | 'live' | 'ended' | 'canceled';
  created_at: Date;
  expires_at: Date;
  starts_at: Date | null;
  duration_min: number | null;
  invitees: string[];
  langs: string[];
  livemode: boolean;
};

export const ROOM_COLUMNS = 'id, title, visibility, status, created_at, expires_at, starts_at, duration_min, invitees, langs, livemode';

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
  const created = now(s);
  const expires = new Date(created.getTime() + INSTANT_ROOM_TTL_MS);
  const room = toRoom(s.config.publicBaseUrl, {
    id, title: input.title, visibility: input.visibility, status: 'live', created_at: created, expires_at: expires,
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
      id, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, kind: 'instant', title: input.title,
      visibility: input.visibility, langs: input.langs, invitees: [], created_at: created, expires_at: expires,
    },
  });
  return room;
}

function visible(id: string): boolean {
  return ID_PATTERN.test(id);
}

export async function getRoom(s: Services, db: Queryable, cred: Caller, id: string): Promise<Room> {
  if (!visible(id)) throw notFound('room', id);
  const { rows } = await db.query<RoomRow>(prepared(
    `SELECT ${ROOM_COLUMNS} FROM rooms WHERE id = $1 AND org_id = $2 AND livemode = $3`,
    [id, cred.orgId, cred.livemode],
  ));
  if (!rows[0]) throw notFound('room', id);
  return toRoom(s.config.publicBaseUrl, rows[0]);
}

export async function listRooms(s: Services, cred: Caller, limit: number, startingAfter?: string) {
  const values: unknown[] = [cred.orgId, cred.livemode, limit + 1];
  let cursor = '';
  if (startingAfter) {
    // A cursor that is not a room of this list (unknown, another organization's, the other
    // mode's) is refused, alike for each, instead of answering an empty page.
    const after = await s.pool.query(`SELECT 1 FROM rooms WHERE id = $1 AND org_id = $2 AND livemode = $3`, [startingAfter, cred.orgId, cred.livemode]);
    if (!after.rowCount) throw invalid('starting_after', `no room '${truncate(startingAfter, 64)}'`);
    values.push(startingAfter);
    cursor = `AND (created_at, id) < (SELECT created_at, id FROM rooms WHERE id = $4 AND org_id = $1 AND livemode = $2)`;
  }
  const { rows } = await s.pool.query(
    `SELECT ${ROOM_COLUMNS} FROM rooms WHERE org_id = $1 AND livemode = $2 ${cursor}
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    values,
  );
  return {
    data: rows.slice(0, limit).map((r) => toRoom(s.config.publicBaseUrl, r)),
    has_more: rows.length > limit,
  };
}

/**
 * Ends a room for everyone (DELETE /v1/rooms/{id}, or its expiry timer): its
 * sessions and people leave, and its log becomes the room's transcript.
 * Ending an ended room changes nothing and returns it as it is.
 */
export async function endRoom(s: Services, owner: { orgId: string; livemode: boolean } | null, id: string, reason: 'deleted' | 'expired'): Promise<Room> {
  return (await end(s, owner, id, reason)).room;
}

/** endRoom, saying whether this call ended the room (false: it had ended already). */
async function end(s: Services, owner: { orgId: string; livemode: boolean } | null, id: string, reason: 'deleted' | 'expired') {
  if (!visible(id)) throw notFound('room', id);
  return withTx(s.pool, async (tx) => {
    // Whose room it is never changes: transition() below takes the row lock.
    const { rows } = await tx.query(`SELECT org_id, livemode, kind, status FROM rooms WHERE id = $1`, [id]);
    const row = rows[0];
    if (!row || (owner && (row.org_id !== owner.orgId || row.livemode !== owner.livemode))) throw notFound('room', id);
    const base = s.config.publicBaseUrl;
    const t = await transition<RoomRow>(tx, 'room', id, { type: 'END', reason }, {
      returning: ROOM_COLUMNS,
      objectFor: (r) => toRoom(base, r),
    });
    // Its sessions and people leave, its booking settles, its log becomes its transcript (reactions.ts), in this transaction.
    if (t.changed) await s.reactions.roomEnded(s, tx, { id, kind: row.kind, started: row.status === 'live' });
    return { room: toRoom(base, t.row), changed: t.changed };
  });
}

/** Rooms ended per statement of the sweep. */
const SWEEP_BATCH = 100;

/**
 * Ends every open room whose expires_at has passed (on the service clock), as
 * its expiry: the room-expiry sweep runs it every minute. Each room ends in its
 * own transaction through the machine, so a sweep running in two processes at
 * once, or a DELETE racing it, ends a room once (the second END is refused and
 * emits nothing). Returns how many rooms this call ended.
 */
export async function expireRooms(s: Services): Promise<number> {
  let ended = 0;
  let after = '';
  for (;;) {
    const { rows } = await s.pool.query<{ id: string }>(
      `SELECT id FROM rooms WHERE status IN ('scheduled', 'live') AND expires_at <= $1 AND id > $2 ORDER BY id LIMIT $3`,
      [now(s), after, SWEEP_BATCH],
    );
    for (const { id } of rows) if ((await end(s, null, id, 'expired')).changed) ended++;
    if (rows.length < SWEEP_BATCH) return ended;
    after = rows.at(-1)!.id;
  }
}

/**
 * The room a call brings its callee into (POST /v1/calls room_id): one of the caller's rooms (its
 * organization and mode), live now. 400 naming `field` when it is none of theirs; 409 when it is
 * not live (scheduled, ended). Read by the calls through the reactions' roomForCall port.
 */
export async function roomForCall(db: Queryable, cred: { orgId: string; livemode: boolean }, field: string, id: string): Promise<string> {
  const none = () => invalid(field, `'${id.slice(0, 40)}' is not one of your rooms; send the id of a live room GET /v1/rooms lists`);
  if (!ID_PATTERN.test(id) || !id.startsWith('room_')) throw none();
  const { rows } = await db.query<{ status: string }>(prepared(
    `SELECT status FROM rooms WHERE id = $1 AND org_id = $2 AND livemode = $3 FOR SHARE`, [id, cred.orgId, cred.livemode]));
  const room = rows[0];
  if (!room) throw none();
  if (room.status === 'scheduled') throw new ApiError('conflict', `${field}: this meeting has not started yet; a call can join it once it is live`);
  if (room.status !== 'live') throw new ApiError('conflict', `${field}: this room has ended`);
  return id;
}
