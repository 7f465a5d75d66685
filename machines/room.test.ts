import { describe, expect, it } from 'vitest';
import { createActor, transition, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { roomMachine, type RoomEvent } from './room.ts';
import { SAMPLE_EVENTS } from './sample-events.ts';
import { roomEmits } from '../test/helpers/lifecycle-events.ts';

// The room machine alone: every edge of its graph emits what api.md says,
// and every reachable snapshot survives JSON. The same paths carried out
// against the real system: test/rooms/room-model.test.ts.

type RoomSnapshot = SnapshotFrom<typeof roomMachine>;
type StateName = 'created' | 'scheduled' | 'live' | 'ended' | 'canceled';

const EVENTS: RoomEvent[] = [...SAMPLE_EVENTS.room];
const model = createTestModel(roomMachine, { events: EVENTS });
const valueOf = (s: { value: unknown }) => s.value as StateName;

describe('room machine model', () => {
  it('emits exactly the domain events of api.md on every edge of the graph', () => {
    const adjacency = Object.values(model.getAdjacencyMap()) as Array<{
      state: RoomSnapshot;
      transitions: Record<string, { event: RoomEvent; state: RoomSnapshot }>;
    }>;
    const edges = new Set<string>();
    for (const { state, transitions } of adjacency) {
      for (const { event, state: next } of Object.values(transitions)) {
        const actor = createActor(roomMachine, { snapshot: roomMachine.getPersistedSnapshot(state) as never });
        const emitted: string[] = [];
        actor.on('*', (e) => emitted.push(e.type));
        actor.start();
        actor.send(event);
        expect(actor.getSnapshot().value).toEqual(next.value);
        expect(emitted).toEqual(roomEmits(event, Boolean(state.context.meeting)));
        actor.stop();
        edges.add(`${valueOf(state)} ${JSON.stringify(event)} ${valueOf(next)}`);
      }
    }
    expect([...edges].sort()).toEqual([
      'created {"type":"OPEN"} live',
      'created {"type":"SCHEDULE"} scheduled',
      'live {"type":"END","reason":"deleted"} ended',
      'live {"type":"END","reason":"expired"} ended',
      'scheduled {"type":"CANCEL"} canceled',
      'scheduled {"type":"END","reason":"deleted"} ended',
      'scheduled {"type":"END","reason":"expired"} ended',
      'scheduled {"type":"START"} live',
    ]);
  });

  it('round-trips every reachable persisted snapshot through JSON and restores it to the same state', () => {
    const paths = model.getShortestPaths({ allowDuplicatePaths: true });
    const seen = new Set<string>();
    for (const path of paths) {
      const original = createActor(roomMachine).start();
      for (const step of path.steps.slice(1)) original.send(step.event);
      expect(original.getSnapshot().value).toEqual(path.state.value);
      const persistedSnapshot = original.getPersistedSnapshot();
      const json = JSON.parse(JSON.stringify(persistedSnapshot));
      expect(json).toEqual(persistedSnapshot);
      const restored = createActor(roomMachine, { snapshot: json }).start();
      expect(restored.getSnapshot().value).toEqual(path.state.value);
      expect(restored.getSnapshot().context).toEqual(path.state.context);
      expect(restored.getSnapshot().status).toBe(path.state.status);
      // And it behaves as the original would, for every event.
      for (const e of EVENTS) {
        const [a] = transition(roomMachine, restored.getSnapshot(), e);
        const [b] = transition(roomMachine, path.state, e);
        expect(a.value).toEqual(b.value);
        expect(a.context).toEqual(b.context);
        expect(a.status).toBe(b.status);
      }
      restored.stop();
      original.stop();
      seen.add(JSON.stringify(path.state.value));
    }
    expect([...seen].sort()).toEqual(['"canceled"', '"created"', '"ended"', '"live"', '"scheduled"']);
  });
});
