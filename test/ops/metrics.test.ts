import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

// GET /metrics (operator.md, Health and metrics): the Prometheus text format
// for the Bearer of TOLK_METRICS_TOKEN, not served without it; what an
// operator graphs after real traffic, under bounded labels.

vi.setConfig({ testTimeout: 60_000 });

const TOKEN = 'metrics-token-for-tests-0123456789';

// Inside every calling window of the policy table (calls.test.ts does the same).
const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
const clock = () => new Date(Date.now() + offset);

let t: TestApp;
let key: string;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  t = await startTestApp({ workers: true, clock, config: { simSpeed: 10, metricsToken: TOKEN, webhookAllowOrigins: [rx.origin] } });
  ({ secret: key } = await t.key({ rpm: 100_000 }));
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

async function scrape(): Promise<string> {
  const res = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** A sample's value: the line `name{labels} value` whose labels include all of `labels`; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  it('needs the token: missing or wrong is 401 problem+json, right is the Prometheus text format', async () => {
    const none = await t.request('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await none.json()).code).toBe('unauthorized');
    for (const wrong of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer ', `Basic ${TOKEN}`, key]) {
      expect((await t.request('GET', '/metrics', { headers: { authorization: wrong } })).status).toBe(401);
    }
    // An API key is not the metrics token.
    expect((await t.request('GET', '/metrics', { key })).status).toBe(401);
    const text = await scrape();
    expect(text).toContain('# TYPE tolk_http_requests_total counter');
    // Node's process metrics too.
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('not served when TOLK_METRICS_TOKEN is unset: 404', async () => {
    const off = await startTestApp();
    try {
      const res = await off.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(404);
      expect((await off.request('GET', '/healthz')).status).toBe(200);
    } finally {
      await off.close();
    }
  });

  it('an HTTP request is counted under its route template and status, with its latency', async () => {
    const before = await scrape();
    const room = await (await t.request('POST', '/v1/rooms', { key, body: { title: 'Metrics' }, headers: { 'idempotency-key': crypto.randomUUID() } })).json();
    expect((await t.request('GET', `/v1/rooms/${room.id}`, { key })).status).toBe(200);
    expect((await t.request('GET', `/v1/rooms/${room.id}`, { key })).status).toBe(200);
    expect((await t.request('GET', '/v1/rooms/room_doesnotexist', { key })).status).toBe(404);
    expect((await t.request('GET', '/no/such/path')).status).toBe(404);
    const after = await scrape();
    const route = { method: 'GET', route: '/v1/rooms/:id' };
    const delta = (labels: Record<string, string>, name = 'tolk_http_requests_total') => sample(after, name, labels) - sample(before, name, labels);
    expect(delta({ ...route, status: '200' })).toBe(2);
    expect(delta({ ...route, status: '404' })).toBe(1);
    expect(delta({ method: 'POST', route: '/v1/rooms', status: '201' })).toBe(1);
    expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(delta(route, 'tolk_http_request_duration_seconds_count')).toBe(3);
    expect(delta({ ...route, le: '+Inf' }, 'tolk_http_request_duration_seconds_bucket')).toBe(3);
    expect(after).not.toContain(room.id);
    expect(after).not.toContain('room_doesnotexist');
    expect(after).not.toContain('/no/such/path');
  });

  it('a call placed, answered and ended, and one refused with a SIP code, are counted with their outcomes', async () => {
    const before = await scrape();
    const place = async (to: string) => {
      const res = await t.request('POST', '/v1/calls', {
        key, headers: { 'idempotency-key': crypto.randomUUID() },
        body: { to, purpose: 'support', consent: { kind: 'prior_express', ref: 'crm-1' }, agent_lang: 'en', remote_lang: 'es' },
      });
      expect(res.status, await res.clone().text()).toBe(201);
      return res.json();
    };
    const status = (id: string, want: string[]) => until(`call ${id} ${want.join('/')}`, async () => {
      const c = await (await t.request('GET', `/v1/calls/${id}`, { key })).json();
      return want.includes(c.status) ? c : null;
    }, { timeoutMs: 20_000, intervalMs: 150 });
    const answered = await place('+14155550142');
    await status(answered.id, ['answered']);
    const during = await scrape();
    expect(sample(during, 'tolk_calls_in_progress')).toBeGreaterThanOrEqual(1);
    // An open stream's packets are counted while the call goes on (read at each scrape), not only when it ends.
    await until('the open stream counted during the call', async () => {
      const text = await scrape();
      return sample(text, 'tolk_rtp_packets_total', { kind: 'received' }) > sample(before, 'tolk_rtp_packets_total', { kind: 'received' }) ? text : null;
    }, { timeoutMs: 10_000, intervalMs: 200 });
    expect((await t.request('POST', `/v1/calls/${answered.id}/hangup`, { key })).status).toBe(200);
    await status(answered.id, ['completed']);
    // 0101: the simulated callee rings, then answers 480.
    const refused = await place('+14155550101');
    const ended = await status(refused.id, ['no_answer', 'failed', 'busy']);
    expect(ended.sip_code).toBe(480);

    const after = await until('the media stream closed and counted', async () => {
      const text = await scrape();
      return sample(text, 'tolk_rtp_packets_total', { kind: 'sent' }) > sample(before, 'tolk_rtp_packets_total', { kind: 'sent' }) ? text : null;
    });
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('tolk_calls_placed_total', { mode: 'test' })).toBe(2);
    expect(delta('tolk_calls_answered_total', { mode: 'test' })).toBe(1);
    expect(delta('tolk_calls_ended_total', { mode: 'test', outcome: 'completed' })).toBe(1);
    expect(delta('tolk_calls_ended_total', { mode: 'test', outcome: ended.status, sip_code: '480' })).toBe(1);
    expect(delta('tolk_call_setup_seconds_count', { mode: 'test' })).toBe(1);
    expect(delta('tolk_rtp_packets_total', { kind: 'received' })).toBeGreaterThan(0);
    expect(after).toContain('tolk_rtp_packets_total{kind="lost"}');
    expect(sample(after, 'tolk_calls_in_progress')).toBe(0);
    expect(after).not.toContain('14155550');
    expect(after).not.toContain(answered.id);
  });

  it('webhook deliveries are counted by result', async () => {
    const before = await scrape();
    const ep = await t.request('POST', '/v1/webhook-endpoints', { key, body: { url: rx.url, events: ['room.started'] } });
    expect(ep.status, await ep.clone().text()).toBe(201);
    rx.respond.status = 200;
    await t.request('POST', '/v1/rooms', { key, body: {}, headers: { 'idempotency-key': crypto.randomUUID() } });
    await rx.waitFor(1, 20_000);
    const after = await until('the delivery counted', async () => {
      const text = await scrape();
      return sample(text, 'tolk_webhook_deliveries_total', { result: 'succeeded' }) > sample(before, 'tolk_webhook_deliveries_total', { result: 'succeeded' }) ? text : null;
    });
    expect(sample(after, 'tolk_webhook_deliveries_total', { result: 'succeeded' }) - sample(before, 'tolk_webhook_deliveries_total', { result: 'succeeded' })).toBe(1);
  });

  it('reads at each scrape: queue depths, the outbox backlog, the pool, open connections, breakers', async () => {
    const text = await scrape();
    expect(text).toMatch(/^tolk_job_queue_depth\{queue="[\w.-]+"\} \d+$/m);
    expect(text).toMatch(/^tolk_outbox_backlog \d+$/m);
    expect(sample(text, 'tolk_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(text).toContain('tolk_db_pool_connections{state="waiting"}');
    for (const kind of ['long_poll', 'page_stream', 'audio_socket']) expect(text).toContain(`tolk_open_connections{kind="${kind}"}`);
    expect(text).toMatch(/^tolk_engine_breaker_state\{kind="speech",engine="[\w-]+"\} 0$/m);

    // A long-poll waiting is counted while it waits.
    const room = await (await t.request('POST', '/v1/rooms', { key, body: {}, headers: { 'idempotency-key': crypto.randomUUID() } })).json();
    const ses = await (await t.request('POST', `/v1/rooms/${room.id}/agent-sessions`, { key, body: { name: 'Bot', hear_lang: 'en', speak_lang: 'en' }, headers: { 'idempotency-key': crypto.randomUUID() } })).json();
    expect(ses.id, JSON.stringify(ses)).toMatch(/^ses_/);
    const waiting = t.request('GET', `/v1/sessions/${ses.id}/events?cursor=999999&wait=3`, { key });
    await until('the long-poll counted', async () => sample(await scrape(), 'tolk_open_connections', { kind: 'long_poll' }) >= 1);
    await waiting;
  });

  it('every label value is bounded: no id, key or phone number in any label', async () => {
    const text = await scrape();
    const values = [...text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => m[2]!);
    expect(values.length).toBeGreaterThan(20);
    for (const v of values) {
      expect(v).not.toMatch(/(room|call|ses|req|key|org|evt|whe|mtg|bkg|voice)_[A-Za-z0-9]{6,}/);
      expect(v).not.toMatch(/sk_(test|live)_/);
      expect(v).not.toMatch(/\+?\d{7,}/);
    }
    const routes = new Set([...text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]));
    for (const r of routes) expect(r === 'unmatched' || r!.startsWith('/')).toBe(true);
  });
});

describe('the Grafana dashboard', () => {
  it('queries only metrics this server exposes', async () => {
    const dashboard = JSON.parse(fs.readFileSync(new URL('../../ops/grafana/tolk.json', import.meta.url), 'utf8'));
    const exprs: string[] = [];
    const walk = (o: unknown) => {
      if (Array.isArray(o)) o.forEach(walk);
      else if (o && typeof o === 'object') {
        for (const [k, v] of Object.entries(o)) (k === 'expr' && typeof v === 'string' ? exprs.push(v) : walk(v));
      }
    };
    walk(dashboard);
    expect(exprs.length).toBeGreaterThan(10);
    const text = await scrape();
    const exposed = new Set([...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].flatMap((m) =>
      m[2] === 'histogram' ? [`${m[1]}_bucket`, `${m[1]}_sum`, `${m[1]}_count`] : [m[1]!]));
    // Every metric a query names is written with its selector (`name{job=~"$job"}`).
    const named = new Set(exprs.flatMap((e) => [...e.matchAll(/([a-zA-Z_:][\w:]*)\{/g)].map((m) => m[1]!)));
    expect([...named].every((n) => /^(tolk|nodejs|process)_/.test(n))).toBe(true);
    for (const n of named) expect(exposed, `${n} in the dashboard`).toContain(n);
    // And the dashboard covers what the operator asked for.
    for (const m of ['tolk_http_requests_total', 'tolk_calls_in_progress', 'tolk_calls_ended_total', 'tolk_rtp_packets_total', 'tolk_engine_breaker_state', 'tolk_outbox_backlog', 'tolk_job_queue_depth', 'tolk_db_pool_connections', 'tolk_open_connections']) {
      expect(named).toContain(m);
    }
  });
});
