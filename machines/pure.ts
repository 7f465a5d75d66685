import { createActor, type AnyActorScope, type AnyStateMachine, type EventObject } from 'xstate';

// XState's pure transition() and initialTransition() build an inert actor
// (and its system) on every call: the actor's constructor computes the
// machine's initial snapshot each time, which costs more than the transition
// itself. Our machines are pure (assign and emit, no children, no system
// ids), so one inert actor scope per machine serves every transition: the
// actions a transition would execute are collected into the array of that
// call, exactly as transition() collects them.

type Action = { type: string; params?: unknown };

export type PureMachine<TSnapshot> = {
  /** transition(machine, snapshot, event), on the shared scope. */
  transition(snapshot: TSnapshot, event: EventObject): [TSnapshot, Action[]];
  /** initialTransition(machine), on the shared scope. */
  initial(): [TSnapshot, Action[]];
};

export function pureMachine<TMachine extends AnyStateMachine>(machine: TMachine): PureMachine<ReturnType<TMachine['transition']>> {
  const self = createActor(machine);
  let sink: Action[] = [];
  const scope = {
    self,
    id: '',
    sessionId: '',
    logger: () => {},
    defer: () => {},
    emit: () => {},
    stopChild: () => {},
    system: self.system,
    actionExecutor: (a: Action) => { sink.push(a); },
  } as unknown as AnyActorScope;
  return {
    transition(snapshot, event) {
      const out: Action[] = [];
      sink = out;
      return [machine.transition(snapshot as never, event as never, scope) as never, out];
    },
    initial() {
      const out: Action[] = [];
      sink = out;
      return [machine.getInitialSnapshot(scope) as never, out];
    },
  };
}
