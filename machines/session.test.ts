import { describe, expect, it } from 'vitest';
import { createActor, transition, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { sessionMachine, type SessionEvent } from './session.ts';
import { SAMPLE_EVENTS } from './sample-events.ts';
import { SESSION_EMITS } from '../test/helpers/lifecycle-events.ts';

// The session machine alone: every edge of its graph emits what api.md says
// and sets the end reason. The same paths carried out against the real system
// (a room's agent session, a call's session): test/sessions/session-model.test.ts.

type Snap = SnapshotFrom<typeof sessionMachine>;

const EVENTS: SessionEvent[] = [...SAMPLE_EVENTS.session];
const model = createTestModel(sessionMachine, { events: EVENTS });
const valueOf = (s: Snap) => s.value as string;
const REASON = { LEAVE: 'left', ROOM_ENDED: 'room_ended', CALL_ENDED: 'call_ended' } as const;

describe('session machine model', () => {
  it('emits exactly the session.* events of api.md on every edge of the graph, and each end keeps its reason', () => {
    const adjacency = Object.values(model.getAdjacencyMap()) as Array<{ state: Snap; transitions: Record<string, { event: SessionEvent; state: Snap }> }>;
    const edges = new Set<string>();
    for (const { state, transitions } of adjacency) {
      for (const { event, state: next } of Object.values(transitions)) {
        const actor = createActor(sessionMachine, { snapshot: sessionMachine.getPersistedSnapshot(state) as never });
        const emitted: string[] = [];
        actor.on('*', (e) => emitted.push(e.type));
        actor.start();
        actor.send(event);
        expect(actor.getSnapshot().value).toEqual(next.value);
        expect(emitted).toEqual(SESSION_EMITS[event.type]);
        if (next.value === 'ended') expect(actor.getSnapshot().context.endReason).toBe(REASON[event.type as keyof typeof REASON]);
        actor.stop();
        edges.add(`${valueOf(state)} ${event.type} ${valueOf(next)}`);
      }
    }
    expect([...edges].sort()).toEqual([
      'active CALL_ENDED ended',
      'active LEAVE ended',
      'active ROOM_ENDED ended',
      'created JOIN joining',
      'joining CALL_ENDED ended',
      'joining JOINED active',
      'joining LEAVE ended',
      'joining ROOM_ENDED ended',
    ]);
  });

  it('an ended session accepts nothing', () => {
    for (const path of model.getSimplePaths().filter((p) => valueOf(p.state) === 'ended')) {
      for (const e of EVENTS) {
        const [next, actions] = transition(sessionMachine, path.state, e);
        expect(next.value).toBe('ended');
        expect(next.context).toEqual(path.state.context);
        expect(actions).toEqual([]);
      }
    }
  });
});
