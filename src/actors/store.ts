import { createActor, type AnyStateMachine, type EventObject } from 'xstate';
import { machines, type MachineName } from '../../machines/index.ts';
import type { Client } from '../db/pool.ts';
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
};

/** Builds data.object for an emitted event, after the transition. */
export type ObjectFor = (eventType: string) => Record<string, unknown> & { id: string };

function stateName(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
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
  return { before: stateName(before.value), after: stateName(after.value), persisted, emitted, changed: before !== after };
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
  await tx.query(
    `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data) VALUES ($1, $2, $3, $4, $5, $6)`,
    [newId('evt'), owner.orgId, owner.livemode, type, object.id, JSON.stringify({ object })],
  );
}

async function writeOutbox(tx: Client, owner: Owner, emitted: string[], objectFor: ObjectFor): Promise<void> {
  for (const type of emitted) await writeEvent(tx, owner, type, objectFor(type));
}

/** Creates the actor in its initial state and sends it the first event, in tx. */
export async function createPersistedActor(
  tx: Client,
  args: {
    id: string;
    machine: MachineName;
    owner: Owner;
    event: ActorEvent;
    objectFor: ObjectFor;
    /** The object's own row (e.g. rooms), inserted by the same statement. Table and column names are code, never input. */
    row?: { table: string; values: Record<string, unknown> };
  },
): Promise<TransitionResult> {
  const machine = machines[args.machine] as AnyStateMachine;
  const r = run(machine, undefined, args.event);
  // The object's row, the actor, its first history row and its outbox events
  // in one statement (one round trip). The history row references the actor
  // inserted by the same statement; the foreign key is checked when the
  // statement ends. A data-modifying CTE runs even though nothing reads it.
  const events = outboxRows(r.emitted, args.objectFor);
  const rowColumns = Object.keys(args.row?.values ?? {});
  const own = args.row
    ? `own AS (INSERT INTO ${args.row.table} (${rowColumns.join(', ')}) VALUES (${rowColumns.map((_, i) => `$${14 + i}`).join(', ')})), `
    : '';
  await tx.query(
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
      ...Object.values(args.row?.values ?? {}),
    ],
  );
  return { state: r.after, version: 1, emitted: r.emitted, changed: true };
}

/**
 * Sends an event to a persisted actor inside tx. The row is locked for the
 * transaction and the update is checked against the version read, so two
 * writers can never both apply a transition to the same snapshot.
 * An event the current state does not accept changes nothing (changed=false).
 */
export async function sendToActor(
  tx: Client,
  id: string,
  event: ActorEvent,
  objectFor: ObjectFor,
): Promise<TransitionResult> {
  const { rows } = await tx.query(
    `SELECT machine, org_id, livemode, snapshot, version FROM actors WHERE id = $1 FOR UPDATE`,
    [id],
  );
  const row = rows[0];
  if (!row) throw new ApiError('not_found', `No such object: '${id}'`);
  const machine = machines[row.machine as MachineName] as AnyStateMachine;
  const r = run(machine, row.snapshot, event);
  if (!r.changed) return { state: r.after, version: row.version, emitted: [], changed: false };
  const version = row.version + 1;
  const upd = await tx.query(
    `UPDATE actors SET state = $2, snapshot = $3, version = $4, updated_at = now() WHERE id = $1 AND version = $5`,
    [id, r.after, JSON.stringify(r.persisted), version, row.version],
  );
  if (upd.rowCount !== 1) throw new ApiError('conflict', `'${id}' was changed concurrently; retry`);
  await tx.query(
    `INSERT INTO actor_history (actor_id, version, event, from_state, to_state, emitted) VALUES ($1, $2, $3, $4, $5, $6)`,
    [id, version, JSON.stringify(event), r.before, r.after, r.emitted],
  );
  await writeOutbox(tx, { orgId: row.org_id, livemode: row.livemode }, r.emitted, objectFor);
  return { state: r.after, version, emitted: r.emitted, changed: true };
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
