import { describe, expect, it } from 'vitest';
import { BargeIn, INTERRUPT_MS, RESUME_QUIET_MS, type Barge } from './barge-in.ts';

// The barge-in rules frame by frame, without the wire (barge-in.test.ts has
// it): when the agent pauses, resumes, or is interrupted, and what is taken
// for its own echo or for noise.

type F = { speech?: boolean; loud?: boolean; rms?: number; echoed?: boolean; interruptible?: boolean };
const frame = (f: F) => ({ speech: false, loud: false, rms: 0, echoed: false, interruptible: true, ...f });
const voice = frame({ speech: true, loud: true, rms: 3000 });
const quiet = frame({});
const run = (b: BargeIn, fs: Array<ReturnType<typeof frame>>): Barge[] => fs.map((f) => b.hear(f));
const times = <T>(n: number, x: T): T[] => Array(n).fill(x);

describe('barge-in rules', () => {
  it('pauses at the first voiced frame and interrupts once the voice has lasted INTERRUPT_MS', () => {
    const out = run(new BargeIn(), times(INTERRUPT_MS / 20, voice));
    expect(out[0]).toBe('pause');
    expect(out.slice(1, -1).every((x) => x === 'none')).toBe(true);
    expect(out.at(-1)).toBe('interrupt');
  });

  it('a backchannel shorter than INTERRUPT_MS resumes after RESUME_QUIET_MS of quiet', () => {
    const out = run(new BargeIn(), [...times(10, voice), ...times(RESUME_QUIET_MS / 20, quiet)]);
    expect(out.filter((x) => x !== 'none')).toEqual(['pause', 'resume']);
    expect(out.at(-1)).toBe('resume');
  });

  it('never pauses what may not be talked over', () => {
    expect(run(new BargeIn(), times(30, { ...voice, interruptible: false })).every((x) => x === 'none')).toBe(true);
  });

  it('our frames coming back as sent are no voice, nor is a voice well under our own level', () => {
    const b = new BargeIn();
    const ours = new Uint8Array(160).fill(7);
    b.sent(ours, 6000);
    expect(b.isOwnEcho(ours)).toBe(true);
    expect(b.isOwnEcho(new Uint8Array(160).fill(8))).toBe(false);
    expect(b.hear({ ...voice, echoed: true })).toBe('none');
    // 20 dB under what we just sent: an echo of it.
    b.sent(ours, 6000);
    expect(b.hear({ ...voice, rms: 500 })).toBe('none');
    b.sent(ours, 6000);
    expect(b.hear({ ...voice, rms: 2000 })).toBe('pause');
  });

  it('loudness the detector never calls speech pauses, then is taken for noise: the say resumes and loudness alone pauses nothing more', () => {
    const b = new BargeIn();
    const noise = frame({ loud: true, rms: 2000 });
    const out = run(b, times(40, noise));
    expect(out[0]).toBe('pause');
    expect(out).not.toContain('interrupt');
    expect(out).toContain('resume');
    expect(run(b, times(10, noise)).every((x) => x === 'none')).toBe(true);
    // Real speech still pauses it.
    expect(b.hear(voice)).toBe('pause');
  });
});
