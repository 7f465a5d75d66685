import { expect } from 'vitest';
import { createActor, transition, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';

// What a model-based run against the real system checks of a lifecycle's
// persisted actor in every state it reaches (test/<capability>/*-model.test.ts).

type HistoryRow = { version: number; event: unknown; from_state: string; to_state: string; emitted: unknown };
type ActorRow = { machine: string; state: string; org_id: string; livemode: boolean; version: number; snapshot: any };

/**
 * The actor row: its machine and state, one version per transition, a
 * snapshot that survives JSON and, restored, answers every event as the
 * model's own state does; one history row per transition, versions 1..n,
 * with the events it emitted.
 */
export function expectPersistedActor<E extends { type: string }>(o: {
  machine: AnyStateMachine;
  kind: string;
  /** The state's name as the actor row holds it. */
  name: string;
  orgId: string;
  state: AnyMachineSnapshot;
  events: readonly E[];
  transitions: ReadonlyArray<{ event: E; from: string; to: string }>;
  emits: (event: E) => string[];
  persisted: { actor: ActorRow; history: HistoryRow[] };
}): void {
  const { actor, history } = o.persisted;
  expect(actor).toMatchObject({ machine: o.kind, state: o.name, org_id: o.orgId, livemode: false });
  expect(actor.version).toBe(o.transitions.length);
  expect(actor.snapshot.value).toEqual(o.state.value);
  expect(actor.snapshot.status).toBe(o.state.status);
  expect(JSON.parse(JSON.stringify(actor.snapshot))).toEqual(actor.snapshot);
  const restored = createActor(o.machine, { snapshot: actor.snapshot }).start();
  expect(restored.getSnapshot().value).toEqual(o.state.value);
  expect(restored.getSnapshot().status).toBe(o.state.status);
  for (const e of o.events) expect(transition(o.machine, restored.getSnapshot(), e)[0].value).toEqual(transition(o.machine, o.state, e)[0].value);
  restored.stop();
  expect(history.map((h) => ({ version: h.version, event: h.event, from: h.from_state, to: h.to_state, emitted: h.emitted }))).toEqual(
    o.transitions.map((tr, i) => ({ version: i + 1, event: tr.event, from: tr.from, to: tr.to, emitted: o.emits(tr.event) })),
  );
}
