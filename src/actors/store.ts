import { createActor, type AnyStateMachine, type EventObject } from 'xstate';
import { machines, type MachineName } from '../../machines/index.ts';
import type { Client } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { newId } from '../ids.ts';
import { ApiError } from '../errors.ts';

// The actor store: each lifecycle object is an XState actor whose persisted
// snapshot lives in `actors`, with a version for optimistic concurrency and one
// `actor_history` row per transition. Emitted domain events go to `outbox` in
// the caller's transaction, so a transition and its events commit together.

export type Owner = { orgId: string; livemode: boolean };
export type ActorEvent = EventObject & Record<string, unknown>;

export type TransitionResult = {
  state: string;
  version: number;
  emitted: string[];
  changed: boolean;
  /** The machine's context after the transition (as it was, when the event was refused). */
  context: Record<string, unknown>;
};

/** Builds data.object for an emitted event, after the transition. */
export type ObjectFor = (eventType: string) => Record<string, unknown> & { id: string };

function stateName(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The object's status: the top-level state's name (a nested state is a detail of its parent's status). */
function statusOf(value: unknown): string {
  return typeof value === 'string' ? value : Object.keys(value as object)[0]!;
}

function run(machine: AnyStateMachine, snapshot: unknown | undefined, event: EventObject) {
  const emitted: string[] = [];
  const actor = snapshot === undefined ? createActor(machine) : createActor(machine, { snapshot: snapshot as never });
  actor.on('*', (e: EventObject) => emitted.push(e.type));
  actor.start();
  const before = actor.getSnapshot();
  // A finished actor (final state) accepts nothing; don't send to it.
  if (before.status !== 'done') actor.send(event);
  const after = actor.getSnapshot();
  const persisted = actor.getPersistedSnapshot();
  actor.stop();
  return {
    before: stateName(before.value), after: stateName(after.value), status: statusOf(after.value), persisted, emitted,
    changed: before !== after, done: after.status === 'done', context: after.context as Record<string, unknown>,
  };
}

/** Outbox rows for emitted events, in emission order. */
function outboxRows(emitted: string[], objectFor: ObjectFor) {
  return emitted.map((type) => {
    const object = objectFor(type);
    return { eventId: newId('evt'), type, objectId: object.id, data: JSON.stringify({ object }) };
  });
}

/**
 * Writes one domain event to the outbox in tx. Transitions write theirs here;
 * so do events that belong to no actor (usage.threshold, transcript.ready).
 */
export async function writeEvent(tx: Client, owner: Owner, type: string, object: Record<string, unknown> & { id: string }): Promise<void> {
  await tx.query(prepared(
    `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data) VALUES ($1, $2, $3, $4, $5, $6)`,
    [newId('evt'), owner.orgId, owner.livemode, type, object.id, JSON.stringify({ object })],
  ));
}

/**
 * The row each machine's object lives in, whose `status` column the store
 * writes from the machine's state (the top-level state name is the status
 * api.md shows) and whose `ended_at` it sets when the machine reaches its
 * final state. Table names are code, never input.
 */
const OBJECT_TABLES: Record<MachineName, { table: string }> = {
  room: { table: 'rooms' },
  session: { table: 'agent_sessions' },
  call: { table: 'calls' },
};

/** Creates the actor in its initial state and sends it the first event, in tx. */
export async function createPersistedActor(
  tx: Client,
  args: {
    id: string;
    machine: MachineName;
    owner: Owner;
    event: ActorEvent;
    objectFor: ObjectFor;
    /**
     * The object's own row (e.g. rooms), inserted by the same statement into
     * the machine's table, its status set from the machine's first state.
     * Column names are code, never input.
     */
    row?: Record<string, unknown>;
  },
): Promise<TransitionResult> {
  const machine = machines[args.machine] as AnyStateMachine;
  const r = run(machine, undefined, args.event);
  // The object's row, the actor, its first history row and its outbox events
  // in one statement (one round trip). The history row references the actor
  // inserted by the same statement; the foreign key is checked when the
  // statement ends. A data-modifying CTE runs even though nothing reads it.
  const events = outboxRows(r.emitted, args.objectFor);
  const values = args.row ? { ...args.row, status: r.status } : {};
  const rowColumns = Object.keys(values);
  const own = args.row
    ? `own AS (INSERT INTO ${OBJECT_TABLES[args.machine].table} (${rowColumns.join(', ')}) VALUES (${rowColumns.map((_, i) => `$${14 + i}`).join(', ')})), `
    : '';
  await tx.query(prepared(
    `WITH ${own}actor AS (
       INSERT INTO actors (id, org_id, livemode, machine, state, snapshot, version) VALUES ($1, $2, $3, $4, $5, $6, 1) RETURNING id
     ), history AS (
       INSERT INTO actor_history (actor_id, version, event, from_state, to_state, emitted)
       SELECT id, 1, $7::jsonb, $8::text, $5, $9::text[] FROM actor
     )
     INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data)
     SELECT e.event_id, $2::text, $3::boolean, e.type, e.object_id, e.data::jsonb
       FROM unnest($10::text[], $11::text[], $12::text[], $13::text[]) WITH ORDINALITY AS e(event_id, type, object_id, data, n)
      ORDER BY e.n`,
    [
      args.id, args.owner.orgId, args.owner.livemode, args.machine, r.after, JSON.stringify(r.persisted),
      JSON.stringify(args.event), r.before, r.emitted,
      events.map((e) => e.eventId), events.map((e) => e.type), events.map((e) => e.objectId), events.map((e) => e.data),
      ...Object.values(values),
    ],
  ));
  return { state: r.after, version: 1, emitted: r.emitted, changed: true, context: r.context };
}

/** The actor's columns read with the object's row (prefixed: the row has columns of the same names). */
type ActorColumns = { __now: Date; __machine: string | null; __org_id: string; __livemode: boolean; __snapshot: unknown; __version: number };

export type Transition<Row> = TransitionResult & {
  /** The object's row after the transition (as it was, when the event was refused). */
  row: Row;
};

/**
 * Sends an event to a persisted actor inside tx and writes what follows from
 * it: the snapshot (checked against the version read, so two writers can never
 * both apply a transition to the same snapshot), a history row, the object's
 * status derived from the new state (and ended_at on reaching a final state),
 * and the emitted events, built by objectFor from the updated row.
 *
 * Locks the object's row, then the actor's, always in that order. An event the
 * current state does not accept (a finished actor accepts none) changes
 * nothing: changed is false and the row comes back as it is, so the caller
 * answers what the spec says for it (409, or the object unchanged).
 */
export async function transition<Row extends Record<string, unknown>>(
  tx: Client,
  machineName: MachineName,
  id: string,
  event: ActorEvent,
  opts: {
    /** Columns of the object's row to return, e.g. 'id, status, ended_at'. Code, never input. */
    returning: string;
    objectFor: (row: Row, eventType: string) => Record<string, unknown> & { id: string };
    /**
     * More columns the transition writes, from the new state and context and
     * the row as it was (e.g. a call's end_reason and bill), set by the same
     * UPDATE, so the emitted events already carry them. An `ended_at` here
     * replaces the store's own. Column names are code, never input.
     */
    set?: (after: { state: string; done: boolean; context: Record<string, unknown> }, before: Row) => Record<string, unknown>;
  },
): Promise<Transition<Row>> {
  const { table } = OBJECT_TABLES[machineName];
  // Two round trips, each a named prepared statement. The first locks the
  // object's row, then its actor's (the lateral join runs once the row is
  // locked, so every transition takes the two locks in that order), and reads
  // both with the transaction's now(), the time PostgreSQL stamps ended_at
  // with. The second writes the row, the snapshot, the history row and the
  // events; the events are built from the row as that statement leaves it,
  // computed here from the row read and the values written.
  const { rows: locked } = await tx.query<Row & ActorColumns>(prepared(
    `WITH r AS MATERIALIZED (SELECT ${opts.returning}, now() AS __now FROM ${table} WHERE id = $1 FOR UPDATE)
     SELECT r.*, a.machine AS __machine, a.org_id AS __org_id, a.livemode AS __livemode, a.snapshot AS __snapshot, a.version AS __version
       FROM r LEFT JOIN LATERAL (SELECT machine, org_id, livemode, snapshot, version FROM actors WHERE actors.id = r.id FOR UPDATE) a ON true`,
    [id],
  ));
  const found = locked[0];
  if (!found || found.__machine !== machineName) throw new ApiError('not_found', `No such object: '${id}'`);
  const { __now: txNow, __machine: _m, __org_id, __livemode, __snapshot, __version, ...rest } = found;
  const actor = { org_id: __org_id, livemode: __livemode, snapshot: __snapshot, version: __version };
  const before = rest as unknown as Row;
  const machine = machines[machineName] as AnyStateMachine;
  const r = run(machine, actor.snapshot, event);
  if (!r.changed) return { state: r.after, version: actor.version, emitted: [], changed: false, context: r.context, row: before };
  const version = actor.version + 1;
  const extra = opts.set?.({ state: r.after, done: r.done, context: r.context }, before) ?? {};
  // The row after the transition: status, ended_at on reaching a final state
  // (kept if it was set; unless the caller sets it), and the caller's columns.
  const sets: string[] = [];
  const values: unknown[] = [];
  const write = (column: string, value: unknown, expr = (p: string) => p) => {
    values.push(value);
    sets.push(`${column} = ${expr(`$${14 + values.length}`)}`);
  };
  const after: Record<string, unknown> = { ...before, status: r.status };
  write('status', r.status);
  if (r.done && !('ended_at' in extra)) {
    write('ended_at', txNow, (p) => `coalesce(ended_at, ${p}::timestamptz)`);
    if ('ended_at' in before) after.ended_at = before.ended_at ?? txNow;
  }
  for (const [column, value] of Object.entries(extra)) {
    write(column, value);
    after[column] = value;
  }
  const row = after as Row;
  const events = outboxRows(r.emitted, (type) => opts.objectFor(row, type));
  const upd = await tx.query(prepared(
    `WITH obj AS (
       UPDATE ${table} SET ${sets.join(', ')} WHERE id = $1 RETURNING id
     ), actor AS (
       UPDATE actors SET state = $2, snapshot = $3, version = $4, updated_at = now() WHERE id = $1 AND version = $5 RETURNING id
     ), history AS (
       INSERT INTO actor_history (actor_id, version, event, from_state, to_state, emitted)
       SELECT id, $4, $6::jsonb, $7::text, $2, $8::text[] FROM actor
     ), events AS (
       INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data)
       SELECT e.event_id, $9::text, $10::boolean, e.type, e.object_id, e.data::jsonb
         FROM actor, unnest($11::text[], $12::text[], $13::text[], $14::text[]) WITH ORDINALITY AS e(event_id, type, object_id, data, n)
        ORDER BY e.n
     )
     SELECT (SELECT count(*)::int FROM actor) + (SELECT count(*)::int FROM obj) AS n`,
    [
      id, r.after, JSON.stringify(r.persisted), version, actor.version, JSON.stringify(event), r.before, r.emitted,
      actor.org_id, actor.livemode,
      events.map((e) => e.eventId), events.map((e) => e.type), events.map((e) => e.objectId), events.map((e) => e.data),
      ...values,
    ],
  ));
  if (upd.rows[0].n !== 2) throw new ApiError('conflict', `'${id}' was changed concurrently; retry`);
  return { state: r.after, version, emitted: r.emitted, changed: true, context: r.context, row };
}

export type ActorRecord = {
  id: string;
  machine: string;
  state: string;
  context: unknown;
  version: number;
  livemode: boolean;
  org_id: string;
  created_at: string;
  updated_at: string;
  history: Array<{ version: number; event: unknown; from: string | null; to: string; emitted: string[]; at: string }>;
};

export async function loadActor(db: Pick<Client, 'query'>, id: string): Promise<ActorRecord | null> {
  const { rows } = await db.query(`SELECT * FROM actors WHERE id = $1`, [id]);
  const a = rows[0];
  if (!a) return null;
  const h = await db.query(
    `SELECT version, event, from_state, to_state, emitted, at FROM actor_history WHERE actor_id = $1 ORDER BY version`,
    [id],
  );
  return {
    id: a.id,
    machine: a.machine,
    state: a.state,
    context: a.snapshot?.context ?? null,
    version: a.version,
    livemode: a.livemode,
    org_id: a.org_id,
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
    history: h.rows.map((r) => ({
      version: r.version,
      event: r.event,
      from: r.from_state,
      to: r.to_state,
      emitted: r.emitted,
      at: r.at.toISOString(),
    })),
  };
}
