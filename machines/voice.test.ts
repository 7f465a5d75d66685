import { describe, expect, it } from 'vitest';
import { createActor, transition, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { voiceMachine, type VoiceEvent } from './voice.ts';
import { SAMPLE_EVENTS } from './sample-events.ts';
import { voiceEmits } from '../test/helpers/lifecycle-events.ts';

// The voice machine alone: every edge of its graph emits what api.md says,
// and every reachable snapshot survives JSON. The same paths carried out
// against the real system: test/voices/voice-model.test.ts.

type VoiceSnapshot = SnapshotFrom<typeof voiceMachine>;
type StateName = 'created' | 'awaiting_consent' | 'processing' | 'ready' | 'failed' | 'expired' | 'revoked';

const EVENTS: VoiceEvent[] = [...SAMPLE_EVENTS.voice];
const STATES: StateName[] = ['awaiting_consent', 'created', 'expired', 'failed', 'processing', 'ready', 'revoked'];
const model = createTestModel(voiceMachine, { events: EVENTS });
const valueOf = (s: { value: unknown }) => s.value as StateName;

describe('voice machine model', () => {
  it('emits exactly the voice.* events of api.md on every edge of the graph', () => {
    const adjacency = Object.values(model.getAdjacencyMap()) as Array<{
      state: VoiceSnapshot;
      transitions: Record<string, { event: VoiceEvent; state: VoiceSnapshot }>;
    }>;
    const edges = new Set<string>();
    for (const { state, transitions } of adjacency) {
      for (const { event, state: next } of Object.values(transitions)) {
        const actor = createActor(voiceMachine, { snapshot: voiceMachine.getPersistedSnapshot(state) as never });
        const emitted: string[] = [];
        actor.on('*', (e) => emitted.push(e.type));
        actor.start();
        actor.send(event);
        expect(actor.getSnapshot().value).toEqual(next.value);
        expect(emitted).toEqual(voiceEmits(event));
        actor.stop();
        edges.add(`${valueOf(state)} ${event.type} ${valueOf(next)}`);
      }
    }
    expect([...edges].sort()).toEqual([
      'awaiting_consent CONSENT processing',
      'awaiting_consent EXPIRE expired',
      'awaiting_consent REVOKE revoked',
      'created REQUEST awaiting_consent',
      'processing FAIL failed',
      'processing READY ready',
      'processing REVOKE revoked',
      'ready REVOKE revoked',
    ]);
  });

  it('round-trips every reachable persisted snapshot through JSON and restores it to the same state', () => {
    const seen = new Set<string>();
    for (const path of model.getSimplePaths({ allowDuplicatePaths: true })) {
      const original = createActor(voiceMachine).start();
      for (const step of path.steps.slice(1)) original.send(step.event);
      const persistedSnapshot = original.getPersistedSnapshot();
      const json = JSON.parse(JSON.stringify(persistedSnapshot));
      expect(json).toEqual(persistedSnapshot);
      const restored = createActor(voiceMachine, { snapshot: json }).start();
      expect(restored.getSnapshot().value).toEqual(path.state.value);
      expect(restored.getSnapshot().status).toBe(path.state.status);
      for (const e of EVENTS) {
        const [a] = transition(voiceMachine, restored.getSnapshot(), e);
        const [b] = transition(voiceMachine, path.state, e);
        expect(a.value).toEqual(b.value);
        expect(a.status).toBe(b.status);
      }
      restored.stop();
      original.stop();
      seen.add(valueOf(path.state));
    }
    expect([...seen].sort()).toEqual(STATES);
  });
});
