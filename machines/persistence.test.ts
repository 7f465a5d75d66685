import { describe, expect, it } from 'vitest';
import { createActor, type AnyStateMachine, type AnyStateNode, type EventObject } from 'xstate';
import { getSimplePaths } from 'xstate/graph';
import { machines, type MachineName } from './index.ts';
import { SAMPLE_EVENTS } from './sample-events.ts';

// Every persisted lifecycle survives its trip through the database. The actor
// store (src/actors/store.ts) keeps `actor.getPersistedSnapshot()` as JSON
// (jsonb) and, for the next command, restores it with createActor(machine,
// { snapshot }). For every machine in `machines`, in every state reachable
// with the sample events below, the restored actor must be in the same state
// with the same context, and must answer every event as the original actor
// would: same next state, same context, same emitted domain events (the
// outbox), same acceptance. If not, an object read back from the database
// would behave differently from the one that was written: an API answer or
// a webhook would change after a restart.
//
// SAMPLE_EVENTS (sample-events.ts) must name every machine of `machines` (the type requires it,
// and a test checks it), and cover every event type the machine accepts, with
// each payload variant that leads somewhere different (END's two reasons).

const names = Object.keys(machines) as MachineName[];

/** An actor started fresh and sent `events`, recording what it emits from then on. */
function replay(machine: AnyStateMachine, events: readonly EventObject[]) {
  const actor = createActor(machine).start();
  for (const e of events) actor.send(e);
  return actor;
}

function restore(machine: AnyStateMachine, persisted: unknown) {
  return createActor(machine, { snapshot: persisted as never }).start();
}

/** Sends `event` as the actor store does (a finished actor is sent nothing) and reports what follows. */
function step(actor: ReturnType<typeof replay>, event: EventObject) {
  const emitted: string[] = [];
  const sub = actor.on('*', (e: EventObject) => emitted.push(JSON.stringify(e)));
  const before = actor.getSnapshot();
  const accepted = before.can(event);
  if (before.status !== 'done') actor.send(event);
  const after = actor.getSnapshot();
  sub.unsubscribe();
  const out = {
    accepted,
    changed: before !== after,
    value: after.value,
    context: after.context,
    status: after.status,
    emitted,
    persisted: JSON.parse(JSON.stringify(actor.getPersistedSnapshot())),
  };
  actor.stop();
  return out;
}

/** Every state node without children: what "every state" means for a walk. */
function leafStates(node: AnyStateNode): string[] {
  const children = Object.values(node.states) as AnyStateNode[];
  if (children.length === 0) return [node.path.join('.')];
  return children.flatMap(leafStates);
}

/** The leaf state paths a snapshot's value is in ('live', 'a.b', parallel regions each). */
function leavesOf(value: unknown, prefix: string[] = []): string[] {
  if (typeof value === 'string') return [[...prefix, value].join('.')];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leavesOf(v, [...prefix, k]));
}

describe('sample events cover every machine', () => {
  it('names exactly the machines of machines/index.ts, each with events', () => {
    expect(Object.keys(SAMPLE_EVENTS).sort()).toEqual([...names].sort());
    for (const name of names) expect(SAMPLE_EVENTS[name].length, name).toBeGreaterThan(0);
  });

  it.each(names)('%s: every event type the machine accepts has a sample, and every sample is an event of the machine', (name) => {
    const machine = machines[name] as AnyStateMachine;
    const accepted = new Set(machine.root.events.map(String));
    const sampled = new Set(SAMPLE_EVENTS[name].map((e) => e.type));
    expect([...sampled].sort()).toEqual([...accepted].sort());
  });
});

describe.each(names)('%s machine: persisted snapshots restore to the same actor', (name) => {
  const machine = machines[name] as AnyStateMachine;
  const events = SAMPLE_EVENTS[name] as readonly EventObject[];
  const paths = getSimplePaths(machine, { events: events as never });

  it('the walk reaches every state of the machine', () => {
    const reached = new Set(paths.flatMap((p) => leavesOf(p.state.value)));
    expect([...reached].sort()).toEqual(leafStates(machine.root).sort());
  });

  it('every snapshot on every path round-trips through JSON to the same state, context and answer to each event', () => {
    const checked = new Set<string>();
    for (const path of paths) {
      // steps[0] is the machine's start (xstate.init); the others are our events.
      const sent = path.steps.slice(1).map((s) => s.event as EventObject);
      for (let i = 0; i <= sent.length; i++) {
        const prefix = sent.slice(0, i);
        const label = `${name}: ${['start', ...prefix.map((e) => JSON.stringify(e))].join(' → ')}`;
        const original = replay(machine, prefix);
        const snap = original.getSnapshot();
        const persisted = original.getPersistedSnapshot();
        const json = JSON.parse(JSON.stringify(persisted));
        // Nothing is lost to JSON (no Date, Map, undefined or function in a snapshot).
        expect(json, label).toEqual(persisted);

        const restored = restore(machine, json);
        const back = restored.getSnapshot();
        expect(back.value, label).toEqual(snap.value);
        expect(back.context, label).toEqual(snap.context);
        expect(back.status, label).toBe(snap.status);
        // Persisting the restored actor writes the same row again.
        expect(JSON.parse(JSON.stringify(restored.getPersistedSnapshot())), label).toEqual(json);
        restored.stop();
        original.stop();

        for (const event of events) {
          const a = step(replay(machine, prefix), event);
          const b = step(restore(machine, json), event);
          expect(b, `${label}, then ${JSON.stringify(event)}`).toEqual(a);
        }
        checked.add(JSON.stringify([snap.value, snap.context]));
      }
    }
    // Every state reached on the walk was checked, with each context it can have there.
    const reachable = new Set(paths.map((p) => JSON.stringify([p.state.value, p.state.context])));
    expect([...checked].sort()).toEqual([...reachable].sort());
  });
});
