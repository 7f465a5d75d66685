import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { isRealTime, longestRank, realTimeRank } from './run-order.ts';

/**
 * The longest files first, then vitest's order (the longest of its last run
 * first, else the largest); the real-time files are taken out and put back
 * one every few places from the start, longest first, so each takes its turn
 * while other files run beside it and the last of them ends well before the
 * run does (run-order.ts). A worker that reaches one while another holds the
 * turn waits for it (real-time-turn.ts); the processor it would have used
 * goes to the files beside it.
 */
export class RunOrder extends BaseSequencer {
  static readonly EVERY = 4;

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const real = sorted.filter((s) => isRealTime(s.moduleId)).sort((a, b) => realTimeRank(a.moduleId) - realTimeRank(b.moduleId));
    const rank = (s: TestSpecification) => {
      const r = longestRank(s.moduleId);
      return r < 0 ? Number.MAX_SAFE_INTEGER : r;
    };
    // Array.prototype.sort is stable: vitest's order stays among the rest.
    const rest = sorted.filter((s) => !isRealTime(s.moduleId)).sort((a, b) => rank(a) - rank(b));
    const out: TestSpecification[] = [];
    while (real.length > 0 || rest.length > 0) {
      if (real.length > 0) out.push(real.shift()!);
      out.push(...rest.splice(0, RunOrder.EVERY - 1));
    }
    return out;
  }
}
