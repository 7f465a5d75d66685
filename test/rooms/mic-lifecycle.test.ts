import { readFileSync } from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, startTestApp, type TestApp, type TestDb } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { PUBLIC_LIMITS } from '../../src/public-limits.ts';

// A room page's audio socket goes with its person (src/rooms/mic-watch.ts):
// when they leave, on whichever server process, when the room ends, when
// the socket goes quiet or only trickles bytes; and tolk_open_connections
// counts the sockets really open. Two server processes share one database,
// as behind a load balancer; the recognizer is the real PocketSphinx.

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const TOKEN = 'metrics-token-for-the-mic-lifecycle-test';
const IDLE_SECONDS = 2;
const LIMITS = { ...PUBLIC_LIMITS, joinsPerClientMinute: 1000, audioIdleSeconds: IDLE_SECONDS };
const SPEECH = readFileSync('/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav').subarray(44);

let db: TestDb;
let a: TestApp;
let b: TestApp;
let key: string;
beforeAll(async () => {
  db = await createTestDatabase();
  const config = { recognize: [{ name: 'pocketsphinx' as const }], publicLimits: LIMITS };
  // Metrics are per process (one registry), and both apps run in this one: only a serves them.
  a = await startTestApp({ db, config: { ...config, metricsToken: TOKEN } });
  b = await startTestApp({ db, config });
  key = (await a.key({ rpm: 100_000 })).secret;
});
afterAll(async () => {
  for (const t of [a, b]) {
    t?.app.server.closeAllConnections();
    await t?.close();
  }
  await db?.drop();
});

async function room(): Promise<string> {
  const res = await a.request('POST', '/v1/rooms', { key, headers: { 'idempotency-key': crypto.randomUUID() }, body: { langs: ['en', 'es'], visibility: 'public' } });
  expect(res.status).toBe(201);
  return (await res.json()).id;
}

type Person = { id: string; secret: string };
async function join(app: TestApp, roomId: string, name: string): Promise<Person> {
  const res = await fetch(`${app.url}/r/${roomId}/participants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, speak: 'en', hear: 'es' }) });
  expect(res.status).toBe(201);
  return res.json() as Promise<Person>;
}

async function microphone(app: TestApp, roomId: string, p: Person) {
  const ws = new WebSocket(`${app.url.replace(/^http/, 'ws')}/r/${roomId}/audio?participant=${p.id}&secret=${p.secret}`);
  ws.binaryType = 'arraybuffer';
  const messages: any[] = [];
  let closed: { code: number; reason: string } | null = null;
  ws.addEventListener('message', (e) => messages.push(JSON.parse(String(e.data))));
  ws.addEventListener('close', (e) => { closed = { code: e.code, reason: e.reason }; });
  await until('the socket ready', async () => messages.some((m) => m.type === 'ready') || closed !== null, 10_000);
  return {
    ws,
    messages,
    get closed() { return closed; },
    closedWith: (timeoutMs = 10_000) => until('the socket closed', async () => closed, { timeoutMs, intervalMs: 20 }),
  };
}

async function openSockets(app: TestApp): Promise<number> {
  const res = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const m = /^tolk_open_connections\{kind="audio_socket"\} (\d+)$/m.exec(await res.text());
  return Number(m?.[1] ?? NaN);
}

const phrasesOf = async (roomId: string) =>
  (await a.pool.query<{ text: string }>(`SELECT text FROM room_segments WHERE room_id = $1 AND kind = 'person'`, [roomId])).rows;

describe('an audio socket goes with its person', () => {
  it('they leave through another server process: the socket closes 4009 at once, and what it was saying is not recognized', async () => {
    const roomId = await room();
    const ana = await join(a, roomId, 'Ana');
    const mic = await microphone(a, roomId, ana);
    expect(mic.closed).toBeNull();
    // Half a sentence, still under way, when she leaves on the other process.
    for (let i = 0; i < SPEECH.length / 2; i += 3200) mic.ws.send(SPEECH.subarray(i, i + 3200));
    const res = await fetch(`${b.url}/r/${roomId}/leave`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ participant: ana.id, secret: ana.secret }) });
    expect(res.status).toBeLessThan(300);
    const closed = await mic.closedWith(5000);
    expect(closed.code).toBe(4009);
    expect(mic.messages.find((m) => m.type === 'error')?.code).toBe('left');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await phrasesOf(roomId)).toEqual([]);
  });

  it('the room ends (DELETE /v1/rooms/{id}) on another process: every socket of the room closes 4009', async () => {
    const roomId = await room();
    const mics = [await microphone(a, roomId, await join(a, roomId, 'Ana')), await microphone(b, roomId, await join(b, roomId, 'Bea'))];
    expect((await b.request('DELETE', `/v1/rooms/${roomId}`, { key })).status).toBe(200);
    for (const mic of mics) expect((await mic.closedWith(5000)).code).toBe(4009);
  });

  it('a socket that sends nothing, or only pings, is closed 4008 after the idle limit; pings keep it open', async () => {
    const roomId = await room();
    const quiet = await microphone(a, roomId, await join(a, roomId, 'Quiet'));
    const pinging = await microphone(a, roomId, await join(a, roomId, 'Muted'));
    const ping = setInterval(() => pinging.ws.send(JSON.stringify({ type: 'ping' })), 500);
    try {
      expect((await quiet.closedWith(IDLE_SECONDS * 1000 + 8000)).code).toBe(4008);
      await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
      expect(pinging.closed).toBeNull();
    } finally {
      clearInterval(ping);
    }
    expect((await pinging.closedWith(IDLE_SECONDS * 1000 + 8000)).code).toBe(4008);
  });

  it('a client that trickles one byte of a frame every half second never completes a message: its connection is closed', async () => {
    const roomId = await room();
    const p = await join(a, roomId, 'Slow');
    const u = new URL(a.url);
    const sock = net.connect(Number(u.port), u.hostname);
    let ended = false;
    sock.on('close', () => { ended = true; });
    sock.on('error', () => {});
    await new Promise<void>((r) => sock.once('connect', () => r()));
    sock.write([`GET /r/${roomId}/audio?participant=${p.id}&secret=${p.secret} HTTP/1.1`, `Host: ${u.host}`, 'Connection: Upgrade', 'Upgrade: websocket',
      'Sec-WebSocket-Version: 13', `Sec-WebSocket-Key: ${Buffer.from('0123456789abcdef').toString('base64')}`, '', ''].join('\r\n'));
    // A masked binary frame of 3200 bytes, sent one byte at a time.
    const header = Buffer.from([0x82, 0xfe, 0x0c, 0x80, 1, 2, 3, 4]);
    const frame = Buffer.concat([header, Buffer.alloc(3200)]);
    let at = 0;
    const drip = setInterval(() => { if (!ended && at < frame.length) sock.write(frame.subarray(at, ++at)); }, 500);
    try {
      await until('the trickling connection closed', async () => ended, { timeoutMs: IDLE_SECONDS * 1000 + 10_000, intervalMs: 50 });
    } finally {
      clearInterval(drip);
      sock.destroy();
    }
    expect(at).toBeLessThan(frame.length);
  });

  it('tolk_open_connections{kind="audio_socket"} counts the sockets open on the process', async () => {
    const roomId = await room();
    const before = await openSockets(a);
    expect(before).toBe(0);
    const mics = await Promise.all([1, 2, 3].map(async (n) => microphone(a, roomId, await join(a, roomId, `P${n}`))));
    await microphone(b, roomId, await join(b, roomId, 'Elsewhere'));
    const pings = setInterval(() => { for (const m of mics) if (m.ws.readyState === WebSocket.OPEN) m.ws.send(JSON.stringify({ type: 'ping' })); }, 500);
    try {
      expect(await openSockets(a)).toBe(before + 3);
      for (const m of mics) m.ws.close(1000);
      await until('the sockets counted closed', async () => (await openSockets(a)) === before, 5000);
    } finally {
      clearInterval(pings);
    }
  });
});
