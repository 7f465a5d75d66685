import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

// `tolk listen --forward-to`: the CLI as a process of its own on the database
// of a running server (its workers on, so the webhook dispatcher runs beside
// it), forwarding the organization's test events to a receiver on 127.0.0.1
// that no endpoint registers and no allow-list names. Signatures are checked
// as the webhook tests check deliveries: Stripe's constructEvent and the
// standardwebhooks package. Every stdout line is one JSON object (NDJSON).

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const stripe = new Stripe('sk_test_verifier_only');

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  t = await startTestApp({ workers: true });
  rx = await startReceiver('/hooks');
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

type Cli = { child: ChildProcess; lines: any[]; stderr: () => string; exited: Promise<number | null>; next: (n: number) => Promise<any[]> };

/** Starts `tolk listen ...` (bin/tolk.js under this Node) and reads its stdout line by line, each parsed as JSON. */
function tolk(...args: string[]): Cli {
  const child = spawn(process.execPath, ['bin/tolk.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: t.db.url, LOG_LEVEL: 'silent', TOLK_WEBHOOK_ALLOW_ORIGINS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: any[] = [];
  let buf = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      // Each line one JSON object, nothing else.
      const o = JSON.parse(line);
      expect(typeof o === 'object' && o !== null && !Array.isArray(o), line).toBe(true);
      lines.push(o);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { err += d; });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => {
    expect(buf, 'stdout ends with a whole line').toBe('');
    resolve(code);
  }));
  return {
    child, lines, exited, stderr: () => err,
    next: (n) => until(`${n} lines of tolk listen (stderr: ${err})`, async () => (lines.length >= n ? lines.slice(0, n) : undefined), { timeoutMs: 30_000, intervalMs: 50 }),
  };
}

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

async function room(key: string) {
  const res = await t.request('POST', '/v1/rooms', { key, headers: idem(), body: { title: 'listen' } });
  expect(res.status).toBe(201);
  return res.json();
}

function verified(r: { headers: Record<string, unknown>; body: string }, secret: string) {
  const ev = stripe.webhooks.constructEvent(r.body, String(r.headers['service-signature']), secret) as unknown as Record<string, any>;
  const h = r.headers as Record<string, string>;
  const std = new Webhook(secret).verify(r.body, { 'webhook-id': h['webhook-id']!, 'webhook-timestamp': h['webhook-timestamp']!, 'webhook-signature': h['webhook-signature']! }) as Record<string, any>;
  expect(std.id).toBe(ev.id);
  expect(h['webhook-id']).toBe(ev.id);
  return ev;
}

describe('tolk listen --forward-to', () => {
  it("forwards the organization's test events, signed, as they happen; prints each; stops cleanly on SIGINT", async () => {
    const started = Date.now();
    const { orgId, secret: testKey } = await t.key();
    const { secret: liveKey } = await t.key({ org: orgId, mode: 'live' });
    const { secret: otherKey } = await t.key();
    rx.received.length = 0;
    // Before it starts: not forwarded.
    await room(testKey);

    const cli = tolk('listen', '--org', orgId, '--forward-to', rx.url);
    const [hello] = await cli.next(1);
    expect(hello).toMatchObject({ listening: true, forward_to: rx.url, org_id: orgId, livemode: false });
    expect(hello.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    // Events as they happen: this organization's test rooms, not its live one, nor another organization's.
    const a = await room(testKey);
    await room(liveKey);
    await room(otherKey);
    const b = await room(testKey);
    expect((await t.request('DELETE', `/v1/rooms/${b.id}`, { key: testKey })).status).toBe(200);

    // It forwards in the log's order, one at a time: the live room and the other
    // organization's, made between a and b, would have come before b's events.
    const got = await rx.waitFor(3);
    expect(rx.received).toHaveLength(3);
    const events = got.map((r) => verified(r, hello.secret));
    expect(events.map((e) => [e.type, e.data.object.id])).toEqual([['room.started', a.id], ['room.started', b.id], ['room.ended', b.id]]);
    for (const e of events) expect(e).toMatchObject({ livemode: false, org_id: orgId, api_version: 'v1' });
    // The same events as the log's (GET /v1/events), ids and all.
    const log = await (await t.request('GET', '/v1/events?limit=10', { key: testKey })).json();
    for (const e of events) expect(log.data.find((x: any) => x.id === e.id)).toMatchObject({ type: e.type, data: { object: { id: e.data.object.id } } });
    // A wrong secret does not verify.
    expect(() => verified(got[0]!, `${hello.secret.slice(0, -2)}AA`)).toThrow();

    // One line per event forwarded: id, type, the receiver's status, the time it took.
    const printed = (await cli.next(4)).slice(1);
    expect(printed.map((l) => [l.id, l.type, l.status, l.error])).toEqual(events.map((e) => [e.id, e.type, 200, null]));
    for (const l of printed) expect(l.latency_ms).toBeGreaterThanOrEqual(0);
    for (const l of printed) expect(l.latency_ms).toBeLessThanOrEqual(Date.now() - started);

    // An answer that is not 2xx is printed as it is, and not retried.
    rx.respond.status = 500;
    const c = await room(testKey);
    const [failed] = (await cli.next(5)).slice(4);
    expect(failed).toMatchObject({ type: 'room.started', status: 500, error: 'http status 500' });
    rx.respond.status = 200;

    // Ctrl-C: a last line, exit 0.
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    expect(cli.lines.at(-1)).toEqual({ listening: false, forwarded: 4 });
    expect(rx.received.filter((r) => JSON.parse(r.body).data.object.id === c.id)).toHaveLength(1);
    // Nothing was registered.
    expect((await t.pool.query(`SELECT 1 FROM webhook_endpoints WHERE org_id = $1`, [orgId])).rowCount).toBe(0);

    // A second run: the same secret; --events chooses.
    rx.received.length = 0;
    const again = tolk('listen', '--org', orgId, '--forward-to', rx.url, '--events', 'room.ended');
    const [hello2] = await again.next(1);
    expect(hello2.secret).toBe(hello.secret);
    expect(hello2.events).toEqual(['room.ended']);
    const d = await room(testKey);
    expect((await t.request('DELETE', `/v1/rooms/${d.id}`, { key: testKey })).status).toBe(200);
    // d's room.started comes first in the log: forwarded, it would be the first received.
    const [ended] = await rx.waitFor(1);
    expect(verified(ended!, hello.secret)).toMatchObject({ type: 'room.ended', data: { object: { id: d.id } } });
    expect(rx.received).toHaveLength(1);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    expect(again.lines.at(-1)).toEqual({ listening: false, forwarded: 1 });
  });

  it('refuses what it cannot do with one {"error"} naming the option', async () => {
    const { orgId } = await t.key();
    for (const [args, field] of [
      [['--org', orgId, '--forward-to', 'ftp://127.0.0.1/x'], '--forward-to'],
      [['--org', orgId, '--forward-to', 'not a url'], '--forward-to'],
      [['--org', orgId, '--forward-to', rx.url, '--events', 'room.exploded'], '--events'],
      [['--org', 'org_nope', '--forward-to', rx.url], '--org'],
      [['--forward-to', rx.url], '--org'],
    ] as const) {
      const cli = tolk('listen', ...args);
      expect(await cli.exited, cli.stderr()).not.toBe(0);
      expect(cli.lines).toHaveLength(1);
      expect(cli.lines[0].error, JSON.stringify(args)).toContain(field);
    }
  });
});

describe('a local webhook url', () => {
  it('is refused with the two ways out: the allow-list, and tolk listen (test mode)', async () => {
    const { orgId, secret: key } = await t.key();
    const res = await t.request('POST', '/v1/webhook-endpoints', { key, body: { url: 'http://127.0.0.1:4567/hooks', events: ['room.started'] } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe('invalid_request');
    expect(body.message).toMatch(/^url: url must use https/);
    expect(body.message).toContain('TOLK_WEBHOOK_ALLOW_ORIGINS=http://127.0.0.1:4567');
    expect(body.message).toContain(`npx tolk listen --org ${orgId} --forward-to http://127.0.0.1:4567/hooks`);

    // https to a loopback or private address, and a local name, too.
    for (const url of ['https://127.0.0.1/hooks', 'https://10.1.2.3/hooks', 'https://localhost/hooks']) {
      const r = await (await t.request('POST', '/v1/webhook-endpoints', { key, body: { url, events: ['room.started'] } })).json();
      expect(r.message, url).toContain('npx tolk listen');
    }
    // Live mode: the allow-list only (listen forwards test events).
    const { secret: live } = await t.key({ org: orgId, mode: 'live' });
    const l = await (await t.request('POST', '/v1/webhook-endpoints', { key: live, body: { url: 'http://127.0.0.1:4567/hooks', events: ['room.started'] } })).json();
    expect(l.message).toContain('TOLK_WEBHOOK_ALLOW_ORIGINS=http://127.0.0.1:4567');
    expect(l.message).not.toContain('tolk listen');
    // Other refusals: no hint.
    const f = await (await t.request('POST', '/v1/webhook-endpoints', { key, body: { url: 'ftp://example.com/x', events: ['room.started'] } })).json();
    expect(f.message).toBe('url: url must use https');
  });
});
