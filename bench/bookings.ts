import http from 'node:http';
import { DateTime } from 'luxon';
import { loadConfig } from '../src/config.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { startBoss, type Boss } from '../src/jobs-registry.ts';
import { buildApp } from '../src/app.ts';
import { createEventType, createKey, createOrg } from '../src/cli/admin.ts';
import { parseHours } from '../src/bookings/hours.ts';
import { computeSlots } from '../src/bookings/slots.ts';
import { envNumber, round, stats, type LatencyStats } from './stats.ts';
import { request } from './http.ts';

// The `bookings` target of npm run bench (bench/run.ts), on the production
// app (buildApp, workers off: timers and mail jobs are written, not run):
//
// 1. Bookings per second: BENCH_BOOKINGS_N (default 500) POST /v1/bookings
//    on distinct free slots of one booking link (15-minute slots, weekdays
//    08:00-18:00 America/New_York, over the next 31 days), BENCH_BOOKINGS_C
//    (default 8) at a time, each with its own Idempotency-Key; every one must
//    answer 201 (a single failure fails the run). Each booking is a meeting
//    (room, actor, 4 timer jobs), 2 invitations (guest and host) and the
//    booking (actor, exclusion constraint).
// 2. Slots: GET /v1/event-types/{id}/slots for the 31-day range of that link,
//    now holding those 500 bookings (and 20 meetings of the host's
//    organization), BENCH_SLOTS_N (default 300) requests one after another;
//    target p99 <= 20 ms. The baseline, in the same process: computeSlots
//    alone on the same bookings (the pure computation the endpoint runs after
//    its one query), to show where the time goes.
//
// The client is this process (node:http, keep-alive): its work is billed to
// the platform's figures, which makes them conservative.

export const BOOKING_TARGETS = { slots_p99_ms: 20 } as const;

export type BookingsResult = {
  bookings: { n: number; concurrency: number; per_s: number; failures: number; statuses: Record<string, number> } & LatencyStats;
  slots: { range_days: number; slots_listed: number; existing_bookings: number } & LatencyStats;
  compute_only: LatencyStats;
  met: { slots_p99: boolean };
  failures: number;
};

export async function runBookingsBench(databaseUrl: string, log: (m: string) => void): Promise<BookingsResult> {
  const n = Math.round(envNumber('BENCH_BOOKINGS_N', 500));
  const concurrency = Math.max(1, Math.round(envNumber('BENCH_BOOKINGS_C', 8)));
  const slotsN = Math.round(envNumber('BENCH_SLOTS_N', 300));
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, { databaseUrl, workers: false });
  const pool: Pool = createPool(databaseUrl, 20);
  const boss: Boss = await startBoss(databaseUrl, { workers: false, onError: (e) => log(`pg-boss: ${String(e)}`) });
  const app = await buildApp({ config, pool, boss, databaseUrl });
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    config.publicBaseUrl = base;
    const org = await createOrg(pool, { name: 'Bench bookings org' });
    await pool.query(`UPDATE organizations SET owner_email = 'host@example.com' WHERE id = $1`, [org.id]);
    // Live: test keys stop at 1,000 requests a day. Live bookings spend nothing; mail stays queued without SMTP_URL.
    const key = await createKey(pool, { org: org.id, mode: 'live', name: 'bench', rpm: 100_000_000 });
    const tz = 'America/New_York';
    const hours = 'mon-fri 08:00-18:00';
    const et = await createEventType(pool, base, { org: org.id, page: `bench-${org.id.slice(-8).toLowerCase()}`, slug: 'call', title: 'Bench call', duration: 15, tz, hours });
    const auth = { authorization: `Bearer ${key.secret}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const from = DateTime.now().setZone(tz).plus({ days: 1 }).toISODate()!;
    const to = DateTime.fromISO(from, { zone: tz }).plus({ days: 30 }).toISODate()!;
    const slotsUrl = `${base}/v1/event-types/${et.id}/slots?from=${from}&to=${to}`;

    // The host's own meetings, spread over the range.
    for (let i = 0; i < 20; i++) {
      const at = DateTime.fromISO(from, { zone: tz }).plus({ days: i + 1, hours: 8 + (i % 9) }).toUTC().toISO()!;
      const r = await request(agent, `${base}/v1/meetings`, 'POST', { ...json, 'idempotency-key': `m-${i}` }, JSON.stringify({ title: `Meeting ${i}`, starts_at: at, duration_min: 30 }));
      if (r.status !== 201) throw new Error(`setup: POST /v1/meetings answered ${r.status}: ${r.body}`);
    }
    const first = await request(agent, slotsUrl, 'GET', auth);
    if (first.status !== 200) throw new Error(`setup: GET slots answered ${first.status}: ${first.body}`);
    const free = (JSON.parse(first.body) as { slots: string[] }).slots;
    if (free.length < n) throw new Error(`setup: only ${free.length} free slots for ${n} bookings`);
    // Distinct slots spread over the whole range.
    const picks = Array.from({ length: n }, (_, i) => free[Math.floor((i * free.length) / n)]!);

    log(`bookings: ${n} POST /v1/bookings on distinct slots, ${concurrency} at a time`);
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n; i = next++) {
        const body = JSON.stringify({ event_type_id: et.id, start: picks[i], guest: { name: `Guest ${i}`, email: `guest${i}@example.com`, speak: 'pt', hear: 'en', tz: 'Europe/Lisbon' } });
        const t0 = performance.now();
        const r = await request(agent, `${base}/v1/bookings`, 'POST', { ...json, 'idempotency-key': `b-${i}` }, body);
        latencies.push(performance.now() - t0);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status !== 201 && (statuses[r.status] ?? 0) <= 3) log(`bookings: ${r.status} ${r.body.slice(0, 200)}`);
      }
    }));
    const elapsed = (performance.now() - started) / 1000;
    const failures = n - (statuses['201'] ?? 0);

    log(`bookings: slots of a 31-day range with ${statuses['201'] ?? 0} bookings, ${slotsN} requests`);
    const slotTimes: number[] = [];
    let listed = 0;
    for (let i = 0; i < 20; i++) await request(agent, slotsUrl, 'GET', auth);
    for (let i = 0; i < slotsN; i++) {
      const t0 = performance.now();
      const r = await request(agent, slotsUrl, 'GET', auth);
      slotTimes.push(performance.now() - t0);
      if (r.status !== 200) throw new Error(`GET slots answered ${r.status}`);
      listed = (JSON.parse(r.body) as { slots: string[] }).slots.length;
    }
    // The baseline: the computation alone, on the same busy times.
    const { rows } = await pool.query(`SELECT start_at AS start, end_at AS "end" FROM bookings WHERE event_type_id = $1 AND status = 'confirmed'`, [et.id]);
    const parsed = parseHours(hours);
    const computeTimes: number[] = [];
    for (let i = 0; i < slotsN + 20; i++) {
      const t0 = performance.now();
      computeSlots({ tz, durationMin: 15, hours: parsed, from, to, busy: rows, notBefore: new Date(Date.now() + 3600_000) });
      if (i >= 20) computeTimes.push(performance.now() - t0);
    }
    const slots = stats(slotTimes);
    return {
      bookings: { ...stats(latencies), n, concurrency, per_s: round(n / elapsed), failures, statuses },
      slots: { range_days: 31, slots_listed: listed, existing_bookings: rows.length, ...slots },
      compute_only: stats(computeTimes),
      met: { slots_p99: slots.p99_ms <= BOOKING_TARGETS.slots_p99_ms },
      failures,
    };
  } finally {
    agent.destroy();
    await app.close();
    await boss.stop({ graceful: false });
    await pool.end();
  }
}

export function printBookingsReport(r: BookingsResult): void {
  console.log(`\nBookings (POST /v1/bookings, distinct slots, ${r.bookings.concurrency} at a time) and slots (31-day range, ${r.slots.existing_bookings} bookings)`);
  console.table({
    'POST /v1/bookings': { 'per s': r.bookings.per_s, 'p50 ms': r.bookings.p50_ms, 'p99 ms': r.bookings.p99_ms, 'max ms': r.bookings.max_ms, n: r.bookings.n, failed: r.bookings.failures },
    'GET slots (31 days)': { 'per s': round(1000 / r.slots.mean_ms), 'p50 ms': r.slots.p50_ms, 'p99 ms': r.slots.p99_ms, 'max ms': r.slots.max_ms, n: r.slots.n, failed: 0 },
    'computeSlots alone': { 'per s': round(1000 / r.compute_only.mean_ms), 'p50 ms': r.compute_only.p50_ms, 'p99 ms': r.compute_only.p99_ms, 'max ms': r.compute_only.max_ms, n: r.compute_only.n, failed: 0 },
  });
  console.log(`slots p99: ${r.slots.p99_ms} ms (target <= ${BOOKING_TARGETS.slots_p99_ms} ms) ${r.met.slots_p99 ? 'met' : 'NOT MET'}; ${r.slots.slots_listed} free slots listed`);
  console.log(`bookings/s on distinct slots: ${r.bookings.per_s} with ${r.bookings.failures} failures ${r.bookings.failures === 0 ? '(no error)' : 'FAILED'}`);
}
