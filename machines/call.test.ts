import { describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { callMachine, type CallEvent } from './call.ts';

// Model-based tests of the call lifecycle, generated from the machine
// (xstate/graph): every simple path from `created`, each step checked
// against the table below, written from api.md and operator.md (not read
// from the machine): the state it leads to, the end reason, the events it
// emits (call.ended exactly once, on reaching any final state), and the
// snapshot surviving its trip through JSON (the actor store keeps it as
// jsonb) with the same answers afterwards.
//
// Driving these paths through POST /v1/calls and the SIP gateway comes with
// the gateway; here the machine is checked on its own.

type Snap = SnapshotFrom<typeof callMachine>;

const EVENTS: CallEvent[] = [
  { type: 'PLACE' }, { type: 'BLOCK' }, { type: 'RINGING' }, { type: 'ANSWERED' }, { type: 'VOICEMAIL' }, { type: 'BUSY' },
  { type: 'NO_ANSWER' }, { type: 'FAILED', reason: 'failed' }, { type: 'FAILED', reason: 'gateway_lost' },
  { type: 'FAILED', reason: 'no_media' }, { type: 'HANGUP' }, { type: 'REMOTE_HANGUP' }, { type: 'MAX_DURATION' }, { type: 'MEDIA_TIMEOUT' },
];

const FINAL = ['completed', 'busy', 'voicemail', 'no_answer', 'failed', 'blocked'];

type Step = { to: string; reason?: string; emits: string[] };
const ENDED = 'call.ended';
/** Queued or ringing: answered, or ended without an answer (a hangup then is a cancel, SIP 487). */
const BEFORE_ANSWER: Partial<Record<string, Step>> = {
  ANSWERED: { to: 'answered', emits: ['call.answered'] },
  VOICEMAIL: { to: 'voicemail', reason: 'voicemail', emits: ['call.voicemail', ENDED] },
  BUSY: { to: 'busy', reason: 'busy', emits: [ENDED] },
  NO_ANSWER: { to: 'no_answer', reason: 'no_answer', emits: [ENDED] },
  FAILED: { to: 'failed', emits: ['call.failed', ENDED] },
  HANGUP: { to: 'no_answer', reason: 'agent_hangup', emits: [ENDED] },
};
/** What each event does in each state (absent: refused, nothing changes). */
const TABLE: Record<string, Partial<Record<string, Step>>> = {
  created: {
    PLACE: { to: 'queued', emits: [] },
    BLOCK: { to: 'blocked', reason: 'blocked', emits: ['call.blocked', ENDED] },
  },
  queued: { RINGING: { to: 'ringing', emits: ['call.ringing'] }, ...BEFORE_ANSWER },
  ringing: BEFORE_ANSWER,
  answered: {
    HANGUP: { to: 'completed', reason: 'agent_hangup', emits: ['call.completed', ENDED] },
    REMOTE_HANGUP: { to: 'completed', reason: 'remote_hangup', emits: ['call.completed', ENDED] },
    MAX_DURATION: { to: 'completed', reason: 'max_duration', emits: ['call.completed', ENDED] },
    MEDIA_TIMEOUT: { to: 'completed', reason: 'media_timeout', emits: ['call.completed', ENDED] },
    FAILED: { to: 'failed', emits: ['call.failed', ENDED] },
  },
};

/** An actor restored from `snapshot` (as JSON, like the actor store), recording what it emits. */
function restore(snapshot: unknown) {
  const emitted: string[] = [];
  const actor = createActor(callMachine, { snapshot: JSON.parse(JSON.stringify(snapshot)) });
  actor.on('*', (e) => emitted.push(e.type));
  actor.start();
  return { actor, emitted };
}

const model = createTestModel(callMachine, { events: EVENTS });
const paths = model.getSimplePaths();

describe('call machine, every simple path', () => {
  it('reaches every status of api.md', () => {
    const reached = new Set(paths.flatMap((p) => p.steps.map((s) => String(s.state.value))));
    for (const s of ['queued', 'ringing', 'answered', ...FINAL]) expect(reached.has(s), s).toBe(true);
  });

  for (const path of paths) {
    const label = path.steps.map((s) => s.event.type === 'FAILED' ? `FAILED(${(s.event as { reason: string }).reason})` : s.event.type).join(' → ') || '(start)';
    it(label, () => {
      let { actor, emitted } = restore(createActor(callMachine).getPersistedSnapshot());
      let total: string[] = [];
      for (const step of path.steps.slice(1)) {
        const from = String(actor.getSnapshot().value);
        const rule = TABLE[from]?.[step.event.type];
        expect(rule, `${from} accepts ${step.event.type}`).toBeDefined();
        emitted.length = 0;
        actor.send(step.event as CallEvent);
        const snap: Snap = actor.getSnapshot();
        expect(snap.value).toBe(rule!.to);
        expect(emitted).toEqual(rule!.emits);
        total = [...total, ...emitted];
        if (FINAL.includes(rule!.to)) {
          const reason = rule!.reason ?? (step.event as { reason: string }).reason;
          expect(snap.context.endReason).toBe(reason);
          expect(snap.status).toBe('done');
        } else {
          expect(snap.context.endReason).toBeNull();
        }
        // Through JSON and back, as the store keeps it: the same state, and it goes on from there.
        const persisted = actor.getPersistedSnapshot();
        actor.stop();
        ({ actor, emitted } = restore(persisted));
        expect(actor.getSnapshot().value).toBe(rule!.to);
        expect(actor.getSnapshot().context).toEqual(snap.context);
      }
      const final = FINAL.includes(String(actor.getSnapshot().value));
      expect(total.filter((e) => e === ENDED).length).toBe(final ? 1 : 0);
      actor.stop();
    });
  }

  it('a final call accepts nothing (restored, it is done and can take no event; the store sends none to it)', () => {
    for (const path of paths.filter((p) => FINAL.includes(String(p.state.value)))) {
      const { actor } = restore(path.state);
      const snap = actor.getSnapshot();
      expect(snap.status).toBe('done');
      for (const e of EVENTS) expect(snap.can(e), `${String(snap.value)} + ${e.type}`).toBe(false);
      actor.stop();
    }
  });

  it('events a state does not list change nothing (a late 180 after the answer, an answer after the hangup)', () => {
    for (const path of paths.filter((p) => !FINAL.includes(String(p.state.value)))) {
      const from = String(path.state.value);
      for (const e of EVENTS.filter((x) => !TABLE[from]?.[x.type])) {
        const { actor, emitted } = restore(path.state);
        actor.send(e);
        expect(actor.getSnapshot().value, `${from} + ${e.type}`).toBe(from);
        expect(emitted).toEqual([]);
        actor.stop();
      }
    }
  });
});
