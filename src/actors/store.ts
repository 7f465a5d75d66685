import type { AnyStateMachine, EventObject } from 'xstate';
import { pureMachine, type PureMachine } from '../../machines/pure.ts';
import { machines, type MachineName } from '../../machines/index.ts';
import type { EventTypeName } from '../../machines/event-types.ts';
import type { Client } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { OUTBOX_CHANNEL, notifyAfterCommit } from '../db/after-commit.ts';
import { Sql, Writes } from '../db/writes.ts';
import { newId } from '../ids.ts';
import { ApiError } from '../errors.ts';
import { lockObjects, type Locked } from './lock.ts';
import { IDENT, OBJECT_TABLES } from './tables.ts';

// The actor store: each lifecycle object is an XState actor whose persisted
// snapshot lives in `actors`, with a version for optimistic concurrency and one
// `actor_history` row per transition. Emitted domain events go to `outbox` in
// the caller's transaction, so a transition and its events commit together.
// Locking an object with its actor (lock.ts) and reading an actor's history
// (history.ts) live beside it, exported from here too.
export { lockObjects, type Locked } from './lock.ts';
export { loadActor, type ActorRecord } from './history.ts';

export type Owner = { orgId: string; livemode: boolean };
export type ActorEvent = EventObject & Record<string, unknown>;

export type TransitionResult = {
  state: string;
  version: number;
  emitted: EventTypeName[];
  changed: boolean;
  /** The machine's context after the transition (as it was, when the event was refused). */
  context: Record<string, unknown>;
  /** The persisted snapshot after the transition, as stored with `version` (a writer that keeps it can plan the next transition without reading it back). */
  snapshot: unknown;
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

/** Each machine's pure transitions on one shared inert scope (machines/pure.ts). */
const pure = new Map<AnyStateMachine, PureMachine<ReturnType<AnyStateMachine['transition']>>>();
/** Each machine's initial snapshot and entry actions. */
const initials = new Map<AnyStateMachine, ReturnType<PureMachine<ReturnType<AnyStateMachine['transition']>>['initial']>>();

/**
 * The event applied to the stored snapshot as XState's pure transition()
 * does (no actor is started, nor built, per event): the next snapshot, and
 * the domain events its actions emit, in order. The machines are pure (their
 * actions are assign and emit), so nothing else is to be executed.
 */
function run(machine: AnyStateMachine, snapshot: unknown | undefined, event: EventObject) {
  let p = pure.get(machine);
  if (!p) pure.set(machine, (p = pureMachine(machine)));
  // The initial snapshot takes no input: made once per machine (snapshots are never modified, only replaced).
  let init = initials.get(machine);
  if (snapshot === undefined && !init) initials.set(machine, (init = p.initial()));
  const [before, entry] = snapshot === undefined
    ? init!
    : [machine.resolveState(snapshot as never), [] as Array<{ type: string; params?: unknown }>];
  const emittedBy = (actions: ReadonlyArray<{ type: string; params?: unknown }>) =>
    actions.filter((a) => a.type === 'xstate.emit').map((a) => (a.params as { event: { type: EventTypeName } }).event.type);
  const emitted = emittedBy(entry as never);
  // A finished machine (final state) accepts nothing.
  const [after, actions] = before.status !== 'done' ? p.transition(before, event) : [before, []];
  emitted.push(...emittedBy(actions as never));
  const persisted = machine.getPersistedSnapshot(after);
  return {
    before: stateName(before.value), after: stateName(after.value), status: statusOf(after.value), persisted, emitted,
    // A self-transition (a booking moved again: rescheduled -> rescheduled) can leave the
    // snapshot as it was; what it emitted still says the event was taken.
    changed: before !== after || emitted.length > 0, done: after.status === 'done', context: after.context as Record<string, unknown>,
  };
}

/** Outbox rows for emitted events, in emission order. */
function outboxRows(emitted: EventTypeName[], objectFor: ObjectFor) {
  return emitted.map((type) => {
    const object = objectFor(type);
    return { eventId: newId('evt'), type, objectId: object.id, data: JSON.stringify({ object }) };
  });
}

/**
 * Writes one domain event to the outbox in tx. Transitions write theirs here;
 * so do events that belong to no actor (usage.threshold, transcript.ready).
 */
export async function writeEvent(tx: Client, owner: Owner, type: EventTypeName, object: Record<string, unknown> & { id: string }): Promise<void> {
  notifyAfterCommit(tx, OUTBOX_CHANNEL);
  await tx.query(prepared(
    `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data) VALUES ($1, $2, $3, $4, $5, $6)`,
    [newId('evt'), owner.orgId, owner.livemode, type, object.id, JSON.stringify({ object })],
  ));
}


type CreateArgs = {
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
};

/** Creates the actor in its initial state and sends it the first event, in tx. */
export async function createPersistedActor(tx: Client, args: CreateArgs): Promise<TransitionResult> {
  const w = new Writes();
  const r = planCreate(w, args);
  await w.run(tx);
  return r;
}

/**
 * createPersistedActor's writes as parts of w: the object's row, the actor,
 * its first history row and its outbox events. The history row references
 * the actor inserted by the same statement; the foreign key is checked when
 * the statement ends.
 */
export function planCreate(w: Writes, args: CreateArgs): TransitionResult {
  const machine = machines[args.machine] as AnyStateMachine;
  const r = run(machine, undefined, args.event);
  const events = outboxRows(r.emitted, args.objectFor);
  if (args.row) {
    const values = { ...args.row, status: r.status };
    const columns = Object.keys(values);
    w.with(w.name('own'), `INSERT INTO ${OBJECT_TABLES[args.machine].table} (${columns.join(', ')})
       VALUES (${Object.values(values).map((v) => w.p(v)).join(', ')})`);
  }
  const actor = w.name('actor');
  const org = w.p(args.owner.orgId, '::text');
  const livemode = w.p(args.owner.livemode, '::boolean');
  const state = w.p(r.after, '::text');
  w.with(actor, `INSERT INTO actors (id, org_id, livemode, machine, state, snapshot, version)
     VALUES (${w.p(args.id)}, ${org}, ${livemode}, ${w.p(args.machine)}, ${state}, ${w.p(JSON.stringify(r.persisted))}, 1) RETURNING id`);
  w.with(w.name('history'), `INSERT INTO actor_history (actor_id, version, event, from_state, to_state, emitted)
     SELECT id, 1, ${w.p(JSON.stringify(args.event))}::jsonb, ${w.p(r.before)}::text, ${state}, ${w.p(r.emitted)}::text[] FROM ${actor}`);
  outboxPart(w, () => [org, livemode], events);
  return { state: r.after, version: 1, emitted: r.emitted, changed: true, context: r.context, snapshot: r.persisted };
}

/**
 * The outbox rows of a transition's events, in emission order, as a part of
 * w (`after`: a CTE they are written only if it returned a row). org and
 * livemode give placeholders (made only if there are events: a parameter the
 * text does not use would leave its type unknown).
 */
function outboxPart(w: Writes, owner: () => [org: string, livemode: string], events: ReturnType<typeof outboxRows>, after?: string): void {
  if (events.length === 0) return;
  const [org, livemode] = owner();
  w.notify(OUTBOX_CHANNEL);
  w.with(w.name('events'), `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data)
     SELECT e.event_id, ${org}, ${livemode}, e.type, e.object_id, e.data::jsonb
       FROM ${after ? `${after}, ` : ''}unnest(${w.p(events.map((e) => e.eventId))}::text[], ${w.p(events.map((e) => e.type))}::text[],
                   ${w.p(events.map((e) => e.objectId))}::text[], ${w.p(events.map((e) => e.data))}::text[]) WITH ORDINALITY AS e(event_id, type, object_id, data, n)
      ORDER BY e.n`);
}


export type Transition<Row> = TransitionResult & {
  /** The object's row after the transition (as it was, when the event was refused). */
  row: Row;
};

export type TransitionOpts<Row> = {
  /** Columns of the object's row to return, e.g. 'id, status, ended_at'. Code, never input. */
  returning: string;
  objectFor: (row: Row, eventType: string) => Record<string, unknown> & { id: string };
  /**
   * More columns the transition writes, from the new state and context and
   * the row as it was (e.g. a call's end_reason and bill), set by the same
   * UPDATE, so the emitted events already carry them. An `ended_at` here
   * replaces the store's own. A value may be an Sql expression (computed by
   * the statement; the row returned keeps the column as it was). Column names
   * are code, never input.
   */
  set?: (after: { state: string; done: boolean; context: Record<string, unknown> }, before: Row) => Record<string, unknown>;
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
  opts: TransitionOpts<Row>,
): Promise<Transition<Row>> {
  // Two round trips: the locks and the reads, then every write.
  const { first } = await lockObjects<Row>(tx, { machine: machineName, id, returning: opts.returning });
  if (!first) throw new ApiError('not_found', `No such object: '${id}'`);
  const w = new Writes();
  const t = planTransition(w, first, event, opts);
  if (t.changed) await w.run(tx);
  return t;
}

/**
 * transition()'s writes as parts of w, for an object locked by lockObjects:
 * the machine runs here, and w gets the row's UPDATE, the snapshot's (with
 * the version check: w fails with a 409 conflict if it does not hold), the
 * history row and the events, each written only if the version check held.
 * Nothing is added when the event is refused (changed false).
 */
export function planTransition<Row extends Record<string, unknown>>(
  w: Writes,
  locked: Locked<Row>,
  event: ActorEvent,
  opts: Omit<TransitionOpts<Row>, 'returning'>,
): Transition<Row> {
  const { id, actor } = locked;
  const before = locked.row;
  const machine = machines[locked.machine] as AnyStateMachine;
  const r = run(machine, actor.snapshot, event);
  if (!r.changed) return { state: r.after, version: actor.version, emitted: [], changed: false, context: r.context, row: before, snapshot: actor.snapshot };
  const version = actor.version + 1;
  const extra = opts.set?.({ state: r.after, done: r.done, context: r.context }, before) ?? {};
  // The row after the transition: status, ended_at on reaching a final state
  // (kept if it was set; unless the caller sets it), and the caller's columns.
  const idParam = w.p(id, '::text');
  const sets: string[] = [];
  const after: Record<string, unknown> = { ...before, status: r.status };
  sets.push(`status = ${w.p(r.status)}`);
  if (r.done && !('ended_at' in extra)) {
    sets.push(`ended_at = coalesce(ended_at, ${w.p(locked.now)}::timestamptz)`);
    if ('ended_at' in before) after.ended_at = before.ended_at ?? locked.now;
  }
  for (const [column, value] of Object.entries(extra)) {
    if (!IDENT.test(column)) throw new Error(`transition: '${column}' is not a plain column name`);
    sets.push(`${column} = ${w.value(value)}`);
    if (!(value instanceof Sql)) after[column] = value;
  }
  const row = after as Row;
  const events = outboxRows(r.emitted, (type) => opts.objectFor(row, type));
  const actorCte = w.name('actor');
  const objCte = w.name('obj');
  const state = w.p(r.after, '::text');
  const versionParam = w.p(version, '::int');
  w.with(actorCte, `UPDATE actors SET state = ${state}, snapshot = ${w.p(JSON.stringify(r.persisted))}, version = ${versionParam}, updated_at = now()
     WHERE id = ${idParam} AND version = ${w.p(actor.version)} RETURNING id`);
  w.with(objCte, `UPDATE ${OBJECT_TABLES[locked.machine].table} SET ${sets.join(', ')} WHERE id = (SELECT id FROM ${actorCte}) RETURNING id`);
  w.with(w.name('history'), `INSERT INTO actor_history (actor_id, version, event, from_state, to_state, emitted)
     SELECT id, ${versionParam}, ${w.p(JSON.stringify(event))}::jsonb, ${w.p(r.before)}::text, ${state}, ${w.p(r.emitted)}::text[] FROM ${actorCte}`);
  outboxPart(w, () => [w.p(actor.org_id, '::text'), w.p(actor.livemode, '::boolean')], events, actorCte);
  const conflict = () => new ApiError('conflict', `'${id}' was changed concurrently; retry`);
  w.expectRows(actorCte, 1, conflict);
  w.expectRows(objCte, 1, conflict);
  return { state: r.after, version, emitted: r.emitted, changed: true, context: r.context, row, snapshot: r.persisted };
}

/**
 * The object as it is after a transition planned on `locked` (once that
 * transition is committed): what a writer keeps to plan the next one
 * without reading it back (its version check guards it).
 */
export function lockedAfter<Row>(locked: Locked<Row>, t: Transition<Row>, now: Date): Locked<Row> {
  return { ...locked, row: t.row, actor: { ...locked.actor, snapshot: t.snapshot, version: t.version }, now };
}
