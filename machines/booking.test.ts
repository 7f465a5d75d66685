import { describe, expect, it } from 'vitest';
import { createActor, transition, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { bookingMachine, type BookingEvent } from './booking.ts';
import { SAMPLE_EVENTS } from './sample-events.ts';
import { bookingEmits } from '../test/helpers/lifecycle-events.ts';

// The booking machine alone: every edge of its graph emits what api.md says,
// and every reachable snapshot survives JSON. The same paths carried out
// against the real system: test/bookings/booking-model.test.ts.

type BookingSnapshot = SnapshotFrom<typeof bookingMachine>;
type StateName = 'created' | 'confirmed' | 'rescheduled' | 'canceled' | 'completed';

const EVENTS: BookingEvent[] = [...SAMPLE_EVENTS.booking];
const model = createTestModel(bookingMachine, { events: EVENTS });
const valueOf = (s: { value: unknown }) => s.value as StateName;

describe('booking machine model', () => {
  it('emits exactly the booking.* events of api.md on every edge of the graph', () => {
    const adjacency = Object.values(model.getAdjacencyMap()) as Array<{
      state: BookingSnapshot;
      transitions: Record<string, { event: BookingEvent; state: BookingSnapshot }>;
    }>;
    const edges = new Set<string>();
    for (const { state, transitions } of adjacency) {
      for (const { event, state: next } of Object.values(transitions)) {
        const actor = createActor(bookingMachine, { snapshot: bookingMachine.getPersistedSnapshot(state) as never });
        const emitted: string[] = [];
        actor.on('*', (e) => emitted.push(e.type));
        actor.start();
        actor.send(event);
        expect(actor.getSnapshot().value).toEqual(next.value);
        expect(emitted).toEqual(bookingEmits(event));
        actor.stop();
        edges.add(`${valueOf(state)} ${event.type} ${valueOf(next)}`);
      }
    }
    expect([...edges].sort()).toEqual([
      'confirmed CANCEL canceled',
      'confirmed COMPLETE completed',
      'confirmed RESCHEDULE rescheduled',
      'created BOOK confirmed',
      'rescheduled CANCEL canceled',
      'rescheduled COMPLETE completed',
      'rescheduled RESCHEDULE rescheduled',
    ]);
  });

  it('round-trips every reachable persisted snapshot through JSON and restores it to the same state', () => {
    const seen = new Set<string>();
    for (const path of model.getShortestPaths({ allowDuplicatePaths: true })) {
      const original = createActor(bookingMachine).start();
      for (const step of path.steps.slice(1)) original.send(step.event);
      const persistedSnapshot = original.getPersistedSnapshot();
      const json = JSON.parse(JSON.stringify(persistedSnapshot));
      expect(json).toEqual(persistedSnapshot);
      const restored = createActor(bookingMachine, { snapshot: json }).start();
      expect(restored.getSnapshot().value).toEqual(path.state.value);
      expect(restored.getSnapshot().status).toBe(path.state.status);
      for (const e of EVENTS) {
        const [a] = transition(bookingMachine, restored.getSnapshot(), e);
        const [b] = transition(bookingMachine, path.state, e);
        expect(a.value).toEqual(b.value);
        expect(a.status).toBe(b.status);
      }
      restored.stop();
      original.stop();
      seen.add(valueOf(path.state));
    }
    expect([...seen].sort()).toEqual(['canceled', 'completed', 'confirmed', 'created', 'rescheduled']);
  });
});
