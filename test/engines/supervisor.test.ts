import { describe, expect, it } from 'vitest';
import { Backoff, describeExit } from '../../src/engines/supervisor.ts';

// The pauses before a dead engine child is started again, and how its end is
// named in the log (the real children's deaths: apy-restart.test.ts,
// speech-restart.test.ts).

describe('the restart backoff', () => {
  it('doubles from 0.5 s to at most 30 s while the child keeps dying, and starts over once one stayed up a minute', () => {
    const b = new Backoff();
    expect([b.next(100), b.next(0), b.next(0), b.next(2000), b.next(0), b.next(0), b.next(0), b.next(0), b.next(0)])
      .toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(b.next(60_000)).toBe(500);
    expect(b.next(59_999)).toBe(1000);
  });

  it('names a shell\'s 128+n status as signal n, and keeps a plain exit code', () => {
    expect(describeExit({ code: 137, signal: null })).toEqual({ code: 137, signal: 'SIGKILL' });
    expect(describeExit({ code: null, signal: 'SIGSEGV' })).toEqual({ code: null, signal: 'SIGSEGV' });
    expect(describeExit({ code: 1, signal: null })).toEqual({ code: 1, signal: null });
  });
});
