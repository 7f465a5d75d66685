import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { createNetns, NETNS_INTERFACE, type Netns } from '../helpers/netns.ts';
import { heardFrom, interpretation, interpretationLinked, joinRoom, launchIn, me, microphoneFile } from '../helpers/room-voices.ts';
import { freePort, ROOT, serverNode } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';

// Two Tolk processes sharing one Janus the operator runs (TOLK_MEDIA_SERVER=janus=ws://...,
// with its api_secret and admin_key): people linked through either process are in one room and
// hear each other; a room's interpretation channel in a language is spoken by one process at a
// time (the lease, rooms/interpretation-leases.ts), and by the other once that one is killed.
// Everything runs in a network namespace of the test's own (test/helpers/netns.ts).

vi.setConfig({ testTimeout: 150_000, hookTimeout: 90_000 });

const DATA = '/usr/share/pocketsphinx/test/data/librivox';
const SPEECH = `${DATA}/sense_and_sensibility_01_austen_64kb-0870.wav`;

type Proc = { child: ChildProcess; port: number; out: string };

let ns: Netns;
let db: TestDb;
let pool: Pool;
let janus: ChildProcess;
let operator: { url: string; apiSecret: string; adminKey: string };
let a: Proc;
let b: Proc;
let key: string;
let speaker: Browser;
let listeners: Browser;
const contexts: BrowserContext[] = [];

/** The Janus "the operator runs": started in the namespace, its ICE on the namespace's interface; its address and keys. */
async function operatorJanus(): Promise<{ url: string; apiSecret: string; adminKey: string }> {
  const script = `
    const { startJanus } = await import(${JSON.stringify(path.join(ROOT, 'src/media/janus-process.ts'))});
    const j = await startJanus({ iceOnly: ${JSON.stringify(NETNS_INTERFACE)} });
    console.log(JSON.stringify({ url: j.url, apiSecret: j.apiSecret, adminKey: j.adminKey }));
    setInterval(() => {}, 1 << 30);`;
  janus = ns.spawn(serverNode(), ['--input-type=module', '-e', script], { cwd: ROOT });
  let text = '';
  janus.stdout!.on('data', (d) => { text += d; });
  janus.stderr!.on('data', (d) => { text += d; });
  return until('the operator\'s Janus', async () => {
    if (janus.exitCode !== null) throw new Error(`janus did not start: ${text}`);
    const line = text.split('\n').find((l) => l.startsWith('{'));
    return line ? JSON.parse(line) as { url: string; apiSecret: string; adminKey: string } : false;
  }, 30_000);
}

async function tolk(dbUrl: string, j: { url: string; apiSecret: string; adminKey: string }, name: string): Promise<Proc> {
  const port = await freePort();
  const child = ns.spawn(serverNode(), ['src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env, DATABASE_URL: dbUrl, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info', TOLK_DATA_DIR: path.join(ns.dir, `data-${name}`), TOLK_TRANSLATE: 'apertium', TOLK_RECOGNIZE: 'pocketsphinx',
      TOLK_MEDIA_SERVER: `janus=${j.url}`, TOLK_JANUS_API_SECRET: j.apiSecret, TOLK_JANUS_ADMIN_KEY: j.adminKey, TOLK_SIP_LISTEN: '127.0.0.1:0',
    },
  });
  const p: Proc = { child, port, out: '' };
  const take = (d: Buffer) => { p.out = (p.out + d).slice(-200_000); };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  await until(`Tolk process ${name}`, async () => {
    if (child.exitCode !== null) throw new Error(`process ${name} exited: ${p.out}`);
    return (await ns.request(port, 'GET', '/readyz').catch(() => ({ status: 0 }))).status === 200;
  }, 60_000);
  return p;
}

/** A VideoRoom request to the operator's Janus, as its operator makes one (from inside the namespace). */
async function operatorRequest(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const script = `
    const { JanusConnection } = await import(${JSON.stringify(path.join(ROOT, 'src/media/janus-client.ts'))});
    const c = await JanusConnection.open(${JSON.stringify(operator.url)}, ${JSON.stringify(operator.apiSecret)});
    const h = await (await c.createSession()).attach('janus.plugin.videoroom');
    console.log(JSON.stringify(await h.request(${JSON.stringify({ ...body, admin_key: operator.adminKey })})));
    c.close();
    process.exit(0);`;
  const child = ns.spawn(serverNode(), ['--input-type=module', '-e', script], { cwd: ROOT });
  let text = '';
  child.stdout!.on('data', (d) => { text += d; });
  child.stderr!.on('data', (d) => { text += d; });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`the operator's request failed: ${text}`);
  return JSON.parse(text.trim().split('\n').pop()!) as Record<string, unknown>;
}

/** What the processes said last (a failure's detail). */
const logs = () => `a: ${a.out.slice(-4000)}\nb: ${b.out.slice(-4000)}`;

/** The room's page as served by process `p`. */
const pageOn = (p: Proc, roomId: string) => `http://127.0.0.1:${p.port}/r/${roomId}`;

/** How many times process `p` said it took the room's channel in `lang`. */
const speaks = (p: Proc, roomId: string, lang: string) =>
  p.out.split('\n').filter((l) => l.includes(`this process speaks room ${roomId}'s interpretation in ${lang}`)).length;

const api = (p: Proc, method: string, route: string, body?: unknown) =>
  ns.request(p.port, method, route, { headers: { authorization: `Bearer ${key}`, 'idempotency-key': crypto.randomUUID() }, body });

beforeAll(async () => {
  ns = await createNetns();
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
  const org = await createOrg(pool, { name: 'Shared Janus' });
  key = (await createKey(pool, { mode: 'test', org: org.id, rpm: 100_000 })).secret;
  const j = await operatorJanus();
  operator = j;
  const dbUrl = await ns.database(db.url);
  [a, b] = await Promise.all([tolk(dbUrl, j, 'a'), tolk(dbUrl, j, 'b')]);
  // Ana's microphone: her recorded sentence then 3 s of silence, over and over.
  const wav = microphoneFile(ns.dir, SPEECH, 3);
  speaker = await launchIn(ns, ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`]);
  listeners = await launchIn(ns, ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']);
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await speaker?.close().catch(() => {});
  await listeners?.close().catch(() => {});
  await ns?.close();
  await pool?.end();
  await db?.drop();
});

describe('two processes, one Janus the operator runs', () => {
  it('Ana linked through one process is heard by Bea linked through the other; Carl and Dan, who hear Spanish through each, get one interpretation, spoken by one process, then by the other when it is killed; a room the operator destroys at Janus is linked again', async () => {
    const made = await api(b, 'POST', '/v1/rooms', { langs: ['en', 'es'], visibility: 'public' });
    expect(made.status, made.text).toBe(201);
    const roomId = made.body.id as string;

    // The voices cross processes: the room lives on the one Janus.
    const ana = await joinRoom(speaker, contexts, pageOn(b, roomId), 'Ana', 'en', 'en');
    const bea = await joinRoom(listeners, contexts, pageOn(a, roomId), 'Bea', 'en', 'en');
    const anaId = await me(ana);
    await ana.getByRole('button', { name: 'Microphone' }).click();
    await until('Bea (through a) hears Ana (through b)', async () => (await heardFrom(bea)).includes(anaId), { timeoutMs: 20_000, detail: logs });

    // Carl listens in Spanish through a, first: a takes the channel; Dan, through b, listens to the same one.
    const carl = await joinRoom(listeners, contexts, pageOn(a, roomId), 'Carl', 'es', 'es');
    await interpretationLinked(carl);
    await until('a speaks the Spanish channel', async () => speaks(a, roomId, 'es') === 1, 10_000);
    const dan = await joinRoom(listeners, contexts, pageOn(b, roomId), 'Dan', 'es', 'es');
    await interpretationLinked(dan);

    const ses = await api(b, 'POST', `/v1/rooms/${roomId}/agent-sessions`, { name: 'Helper', speak_lang: 'en', hear_lang: 'en', announce: false });
    expect(ses.status, ses.text).toBe(201);
    const say = (p: Proc, text: string) => ns.request(p.port, 'POST', `/v1/sessions/${ses.body.id}/say`, { headers: { authorization: `Bearer ${key}` }, body: { text } });

    const heard = Promise.all([interpretation(carl, 15_000), interpretation(dan, 15_000)]);
    expect((await say(b, 'Good morning, everyone. The meeting starts now.')).status).toBe(202);
    const [c1, d1] = await heard;
    expect(c1.filter((x) => x.level > 0.01).length, 'Carl hears the agent in Spanish').toBeGreaterThanOrEqual(10);
    expect(d1.filter((x) => x.level > 0.01).length, 'so does Dan, on the same channel').toBeGreaterThanOrEqual(10);
    // One process speaks it: b, with a listener too, never took it.
    expect(speaks(a, roomId, 'es')).toBe(1);
    expect(speaks(b, roomId, 'es')).toBe(0);

    // a is killed outright: its lease goes with its database connection, and b takes the channel.
    a.child.kill('SIGKILL');
    await until('b speaks the Spanish channel', async () => speaks(b, roomId, 'es') === 1, 15_000);
    const again = interpretation(dan, 15_000);
    expect((await say(b, 'We go on without the other server.')).status).toBe(202);
    expect((await again).filter((x) => x.level > 0.01).length, 'Dan still hears the agent in Spanish').toBeGreaterThanOrEqual(10);
    // Ana (through b) is still heard by a listener of b.
    expect(await heardFrom(dan)).toContain(anaId);

    // The operator destroys the room at Janus: the pages are told, link again (the room made anew), and Dan hears Ana again.
    expect(await operatorRequest({ request: 'destroy', room: roomId })).toMatchObject({ videoroom: 'destroyed' });
    await until('Dan is told', async () => /voices stopped/i.test((await dan.locator('#voices-status').textContent()) ?? ''), 10_000);
    await until('Dan hears Ana again', async () => (await heardFrom(dan)).includes(anaId), { timeoutMs: 40_000, detail: logs });
  });
});
