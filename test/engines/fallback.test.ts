import { describe, expect, it } from 'vitest';
import { EngineError } from '../../src/engines/errors.ts';
import { Fallback } from '../../src/engines/fallback.ts';

// The one fallback chain of translation, recognition and speech
// (src/engines/fallback.ts): a breaker per engine, a time limit, a retry of
// what may pass, refused answers not counted, falling through in order.

type Fake = { name: string; calls: number; answer: (signal: AbortSignal) => Promise<string> };
const fake = (name: string, answer: Fake['answer']): Fake => ({ name, calls: 0, answer });
const run = (e: Fake, signal: AbortSignal) => { e.calls++; return e.answer(signal); };

describe('Fallback', () => {
  it('falls through to the next engine that takes the work, and opens a breaker after three failures in a row', async () => {
    let now = 0;
    const down = fake('down', async () => { throw new EngineError('503', { status: 503 }); });
    const up = fake('up', async () => 'ok');
    const f = new Fallback('translation', [down, up], { now: () => now });
    for (let i = 0; i < 3; i++) expect(await f.first(() => true, run)).toMatchObject({ ok: true, value: 'ok', engine: up });
    expect(f.breakers.get(down)!.state).toBe('open');
    expect(down.calls).toBe(3);
    await f.first(() => true, run);
    expect(down.calls).toBe(3);
    now += 15_001;
    await f.first(() => true, run);
    expect(down.calls).toBe(4);
  });

  it('retries what may pass, not what is permanent, asked to wait, or timed out', async () => {
    let n = 0;
    const flaky = fake('flaky', async () => { if (n++ === 0) throw new EngineError('reset'); return 'second'; });
    const f = new Fallback('recognizer', [flaky]);
    expect(await f.call(flaky, (s) => run(flaky, s), { retries: 1 })).toEqual({ ok: true, value: 'second' });
    const permanent = fake('permanent', async () => { throw new EngineError('401', { permanent: true }); });
    const slow = fake('slow', (signal) => new Promise((_, fail) => signal.addEventListener('abort', () => fail(new Error('aborted')))));
    const g = new Fallback('recognizer', [permanent, slow]);
    expect((await g.call(permanent, (s) => run(permanent, s), { retries: 1 })).ok).toBe(false);
    expect((await g.call(slow, (s) => run(slow, s), { retries: 1, limitMs: 20 })).ok).toBe(false);
    expect([permanent.calls, slow.calls]).toEqual([1, 1]);
  });

  it('does not count an answer the guard refused against the engine, nor asks it again', async () => {
    const model = fake('model', async () => { throw new EngineError('not a translation', { refused: true }); });
    const f = new Fallback('translation', [model]);
    const refused: string[] = [];
    for (let i = 0; i < 5; i++) {
      expect(await f.call(model, (s) => run(model, s), { retries: 1, onRefused: (e) => refused.push(e.message) })).toMatchObject({ ok: false, refused: true });
    }
    expect(model.calls).toBe(5);
    expect(refused).toHaveLength(5);
    expect(f.breakers.get(model)!.state).toBe('closed');
  });

  it('says how many engines took the work when none answered', async () => {
    const a = fake('a', async () => { throw new EngineError('down'); });
    const f = new Fallback('speech', [a]);
    expect(await f.first(() => false, run)).toEqual({ ok: false, takers: 0, error: null });
    expect(await f.first(() => true, run)).toMatchObject({ ok: false, takers: 1 });
  });
});
