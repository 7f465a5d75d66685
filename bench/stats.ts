import fs from 'node:fs';

// What the benchmark targets share: their settings from the environment,
// latency percentiles, and the machine's busy time.

/** A non-negative number from the environment, or dflt when unset or empty. */
export function envNumber(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, not ${raw}`);
  return n;
}

export const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type LatencyStats = { p50_ms: number; p90_ms: number; p99_ms: number; max_ms: number; mean_ms: number; n: number };

/** Nearest-rank percentiles, the maximum and the mean of `values` (ms), to 0.1 ms. */
export function stats(values: number[]): LatencyStats {
  if (values.length === 0) return { p50_ms: NaN, p90_ms: NaN, p99_ms: NaN, max_ms: NaN, mean_ms: NaN, n: 0 };
  const v = [...values].sort((a, b) => a - b);
  const q = (p: number) => v[Math.min(v.length - 1, Math.max(0, Math.ceil(p * v.length) - 1))]!;
  return { p50_ms: round(q(0.5)), p90_ms: round(q(0.9)), p99_ms: round(q(0.99)), max_ms: round(v[v.length - 1]!), mean_ms: round(v.reduce((a, b) => a + b, 0) / v.length), n: v.length };
}

/** CPU seconds the whole machine has been busy (all CPUs), from /proc/stat; null elsewhere. */
export function machineBusy(): number | null {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    // user nice system idle iowait irq softirq steal
    return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) / 100;
  } catch {
    return null;
  }
}
