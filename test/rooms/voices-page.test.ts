import fs from 'node:fs';
import path from 'node:path';
import { type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { createNetns, NETNS_ADDRESS, NETNS_INTERFACE, type Netns } from '../helpers/netns.ts';
import { heardFrom, interpretation, interpretationLinked, joinRoom, launchIn, levels, me, microphoneFile } from '../helpers/room-voices.ts';
import { freePort, ROOT, serverNode } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { addNumber, createKey, createOrg } from '../../src/cli/admin.ts';
import { addTrunk } from '../../src/cli/trunk.ts';
import { KAMAILIO, kamailioConfig } from '../helpers/kamailio.ts';
import { callerScenario } from '../helpers/dial-in-caller.ts';
import { saidInOrder, words } from '../../src/engines/speech/wer.ts';

// People in a room hear each other, live, through Janus (TOLK_MEDIA_SERVER=janus: the service
// runs Debian's janus itself), in Chromium with real recorded speech: Ana's microphone is a WAV
// of a sentence then three seconds of silence, over and over (--use-file-for-fake-audio-capture);
// Bea and Carl listen. What each page receives is measured in the page, with Web Audio, on the
// tracks it plays. The service, its Janus and the browsers run in a network namespace of the
// test's own (test/helpers/netns.ts): WebRTC gathers every interface's address, and nothing may
// be sent to this machine's others.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });

const DATA = '/usr/share/pocketsphinx/test/data/librivox';
const NAME = 'sense_and_sensibility_01_austen_64kb-0870';

let ns: Netns;
/** What the TURN server logged. */
let turnLog = '';
let db: TestDb;
let pool: Pool;
let server: ChildProcess;
let port: number;
let out = '';
/** The Janus the service runs (its log says it). */
let janusPid: string | undefined;
/** Microphone PCM sockets opened (GET /r/{id}/audio): none where the voice goes over WebRTC. */
let pcmSockets = 0;
let key: string;
let orgId: string;
/** The service's SIP address inside the namespace. */
let sipPort: number;
let speaker: Browser;
let listeners: Browser;
let wav: string;
let said: string;
const contexts: BrowserContext[] = [];

const launch = (args: string[]) => launchIn(ns, args);

const api = (method: string, p: string, body?: unknown) =>
  ns.request(port, method, p, { headers: { authorization: `Bearer ${key}`, 'idempotency-key': crypto.randomUUID() }, body });

beforeAll(async () => {
  ns = await createNetns();
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
  const org = await createOrg(pool, { name: 'Voices' });
  key = (await createKey(pool, { mode: 'test', org: org.id, rpm: 100_000 })).secret;
  orgId = org.id;
  port = await freePort();
  sipPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The operator's TURN server (Debian's coturn), in the namespace, handed to the pages through TOLK_ICE_SERVERS.
  const turnPort = await freePort();
  const turn = ns.spawn('turnserver', [
    '-n', '--listening-ip', NETNS_ADDRESS, '--relay-ip', NETNS_ADDRESS, '--listening-port', String(turnPort), '--lt-cred-mech',
    '--user', 'tolk:turn-pass', '--realm', 'tolk.test', '--no-tls', '--no-dtls', '--no-cli', '--log-file', 'stdout', '--verbose',
  ]);
  turn.stdout!.on('data', (d) => { turnLog = (turnLog + d).slice(-50_000); });
  turn.stderr!.on('data', (d) => { turnLog = (turnLog + d).slice(-50_000); });
  server = ns.spawn(serverNode(), ['src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env, DATABASE_URL: await ns.database(db.url), PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: base,
      LOG_LEVEL: 'info', TOLK_DATA_DIR: path.join(ns.dir, 'data'), TOLK_TRANSLATE: 'apertium', TOLK_RECOGNIZE: 'pocketsphinx',
      TOLK_MEDIA_SERVER: 'janus', TOLK_JANUS_ICE_ONLY: NETNS_INTERFACE, TOLK_SIP_LISTEN: `127.0.0.1:${sipPort}`, TOLK_TRUNK_PING_SECONDS: '1',
      TOLK_ICE_SERVERS: `turn:tolk:turn-pass@${NETNS_ADDRESS}:${turnPort}`,
    },
  });
  const take = (d: Buffer) => {
    out = (out + d).slice(-20_000);
    janusPid = /janus runs \(pid (\d+)\)/.exec(String(d))?.[1] ?? janusPid;
    if (/\/audio\?participant=/.test(String(d))) pcmSockets++;
  };
  server.stdout!.on('data', take);
  server.stderr!.on('data', take);
  await until('the service in the namespace', async () => {
    if (server.exitCode !== null) throw new Error(`the service exited: ${out}`);
    return (await ns.request(port, 'GET', '/readyz').catch(() => ({ status: 0 }))).status === 200;
  }, 60_000);
  // Janus starts beside the rest: the voices are ready once readiness says so.
  await until('the media server up', async () => (await ns.request(port, 'GET', '/readyz')).body.checks.media === 'ok', 30_000);
  wav = microphoneFile(ns.dir, `${DATA}/${NAME}.wav`, 3);
  const lines = fs.readFileSync(`${DATA}/transcription`, 'utf8').trim().split('\n');
  said = lines.map((l) => /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)$/.exec(l.trim())!).find((m) => m[2] === NAME)![1]!;
  speaker = await launch(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`]);
  listeners = await launch(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']);
});

// Each test's people leave when it ends: their pages' live audio (a microphone file looping, every
// voice received) would otherwise go on through the file's later tests and take the processor.
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close().catch(() => {});
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await speaker?.close().catch(() => {});
  await listeners?.close().catch(() => {});
  await ns?.close();
  await pool?.end();
  await db?.drop();
});

async function room(): Promise<string> {
  const res = await api('POST', '/v1/rooms', { langs: ['en', 'es'], visibility: 'public' });
  expect(res.status, res.text).toBe(201);
  return res.body.url;
}

const open = (browser: Browser, url: string, name: string, speak: string, hear: string) => joinRoom(browser, contexts, url, name, speak, hear);

/** A room where Ana (English, her recorded sentence) has turned her microphone on and Bea hears her. */
async function anaHeardByBea(): Promise<{ ana: Page; bea: Page; anaId: string }> {
  const url = await room();
  const ana = await open(speaker, url, 'Ana', 'en', 'en');
  const bea = await open(listeners, url, 'Bea', 'en', 'en');
  const anaId = await me(ana);
  await ana.getByRole('button', { name: 'Microphone' }).click();
  await until('Bea hears Ana', async () => (await heardFrom(bea)).includes(anaId), 20_000);
  return { ana, bea, anaId };
}

describe('a room\'s voices through Janus', () => {
  it('Bea and Carl hear Ana live while she speaks, and silence in her pauses; nobody hears themselves; her phrase is captioned from the same audio', async () => {
    const url = await room();
    const ana = await open(speaker, url, 'Ana', 'en', 'en');
    const bea = await open(listeners, url, 'Bea', 'en', 'en');
    const carl = await open(listeners, url, 'Carl', 'es', 'es');
    const anaId = await me(ana);
    // Nobody speaks yet: nothing to hear.
    expect(await heardFrom(bea)).toEqual([]);

    await ana.getByRole('button', { name: 'Microphone' }).click();
    await until('Bea hears Ana', async () => (await heardFrom(bea)).includes(anaId), 20_000);
    await until('Carl hears Ana', async () => (await heardFrom(carl)).includes(anaId), 20_000);
    // Ana's file: about 7 s of speech then 3 s of silence; ten seconds cover both.
    const heard = (await levels(bea, 10_000))[anaId]!;
    expect(Math.max(...heard), 'Ana\'s voice reaches Bea').toBeGreaterThan(0.02);
    const quiet = heard.filter((l) => l < 0.002).length;
    expect(quiet, 'and her pauses are silent').toBeGreaterThanOrEqual(10);
    expect(Math.max(...(await levels(carl, 3000))[anaId]!)).toBeGreaterThan(0);
    // Ana hears nobody: not herself.
    expect(await heardFrom(ana)).toEqual([]);

    // What she said is captioned, read from the audio Janus forwarded (the page uploaded nothing else).
    const phrase = bea.locator('#phrases li.phrase:not(.live)', { hasText: 'Ana' }).first();
    await phrase.waitFor({ timeout: 40_000 });
    expect(saidInOrder(words(said), words((await phrase.locator('.text').textContent()) ?? ''))).toBeGreaterThan(0.4);
    expect(pcmSockets).toBe(0);

    // Her microphone off: the others stop hearing her at once.
    await ana.getByRole('button', { name: 'Microphone on' }).click();
    await until('Bea no longer hears Ana', async () => !(await heardFrom(bea)).includes(anaId), 10_000);
  });

  it('Carl, who hears Spanish, hears Ana\'s phrase interpreted after she said it, her voice lowered meanwhile; Bea, who hears English as Ana speaks it, hears no interpretation', async () => {
    const url = await room();
    const ana = await open(speaker, url, 'Ana', 'en', 'en');
    const bea = await open(listeners, url, 'Bea', 'en', 'en');
    const carl = await open(listeners, url, 'Carl', 'es', 'es');
    for (const p of [bea, carl]) await interpretationLinked(p);
    const anaId = await me(ana);
    await ana.getByRole('button', { name: 'Microphone' }).click();
    await until('Carl hears Ana', async () => (await heardFrom(carl)).includes(anaId), 20_000);
    // Her sentence is about 7 s; then it is read, translated and spoken: 30 s covers it on a busy machine.
    const [carlHeard, beaHeard] = await Promise.all([interpretation(carl, 30_000), interpretation(bea, 30_000)]);
    const speaking = carlHeard.filter((x) => x.level > 0.01);
    expect(speaking.length, 'Carl hears the interpretation').toBeGreaterThanOrEqual(10);
    // While it speaks, Ana's voice plays lowered (-12 dB), and back up once it has finished.
    expect(speaking.filter((x) => x.ducked && x.voices.every((v) => v <= 0.25 + 1e-6)).length).toBeGreaterThanOrEqual(speaking.length * 0.8);
    expect(carlHeard.some((x) => !x.ducked && x.voices.some((v) => v > 0.9))).toBe(true);
    // The same phrase in the language it was said in is never re-spoken.
    expect(Math.max(...beaHeard.map((x) => x.level)), 'Bea hears no interpretation').toBeLessThan(0.003);
    // The balance: all interpretation, no original voice.
    await carl.locator('#balance').fill('100');
    expect(await carl.evaluate<{ voices: number[]; interpretation: number }>('window.tolkVoices.volumes()')).toMatchObject({ voices: [0], interpretation: 1 });
  });

  it('Ana muted is silent for the others at once; unmuted, heard again', async () => {
    const { ana, bea, anaId } = await anaHeardByBea();
    await ana.getByRole('button', { name: 'Mute' }).click();
    // From 300 ms after the click (what is on its way), ten seconds: her sentence would have played in them.
    await new Promise((r) => setTimeout(r, 300));
    expect(Math.max(...(await levels(bea, 10_000))[anaId]!), 'nothing of Ana while she is muted').toBeLessThan(0.002);
    await ana.getByRole('button', { name: 'Unmute' }).click();
    expect(Math.max(...(await levels(bea, 10_000))[anaId]!), 'Ana again').toBeGreaterThan(0.02);
  });

  it('an AI agent has no voice of its own: what it says reaches every listener on the interpretation channel, in their language', async () => {
    const url = await room();
    const roomId = new URL(url).pathname.split('/').pop()!;
    const bea = await open(listeners, url, 'Bea', 'en', 'en');
    const carl = await open(listeners, url, 'Carl', 'es', 'es');
    for (const p of [bea, carl]) await interpretationLinked(p);
    const ses = await api('POST', `/v1/rooms/${roomId}/agent-sessions`, { name: 'Helper', speak_lang: 'en', hear_lang: 'en', announce: false });
    expect(ses.status, ses.text).toBe(201);
    const listening = Promise.all([interpretation(bea, 15_000), interpretation(carl, 15_000)]);
    const said = await ns.request(port, 'POST', `/v1/sessions/${ses.body.id}/say`, { headers: { authorization: `Bearer ${key}` }, body: { text: 'Good morning, everyone. The meeting starts now.' } });
    expect(said.status, said.text).toBe(202);
    const [b, c] = await listening;
    expect(b.filter((x) => x.level > 0.01).length, 'Bea hears the agent in English').toBeGreaterThanOrEqual(10);
    expect(c.filter((x) => x.level > 0.01).length, 'Carl hears it in Spanish').toBeGreaterThanOrEqual(10);
  });

  it('the operator\'s TURN server (TOLK_ICE_SERVERS) reaches the pages: their connections take a relay on it with its credentials', async () => {
    await anaHeardByBea();
    await until('an allocation on the TURN server', async () => /user <tolk>: incoming packet ALLOCATE processed, success/.test(turnLog), { timeoutMs: 10_000, detail: () => turnLog.slice(-2000) });
  });

  it('a person who leaves stops being heard, and the others keep hearing each other', async () => {
    const { ana, bea } = await anaHeardByBea();
    await ana.getByRole('button', { name: 'Leave' }).click();
    await until('Ana gone from Bea\'s voices', async () => (await heardFrom(bea)).length === 0, 10_000);
  });

  it('the voices link takes its JSON messages only, a few a second: text that is not one, or audio sent on it, closes it 1003, saying what it takes; a flood closes it 1008', async () => {
    const dan = await open(listeners, await room(), 'Dan', 'en', 'en');
    const closes = await dan.evaluate<Array<{ code: number; error: { code: string; message: string } | null }>>(`(async () => {
      const me = window.tolkRoom.me;
      const one = (bad) => new Promise((resolve) => {
        const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + location.pathname + '/voices?participant=' + me.id + '&secret=' + me.secret);
        let error = null;
        ws.onmessage = (e) => {
          const m = JSON.parse(e.data);
          if (m.type === 'ready') for (const b of Array.isArray(bad) ? bad : [bad]) ws.send(b);
          if (m.type === 'error') error = m;
        };
        ws.onclose = (e) => resolve({ code: e.code, error });
      });
      return [await one('{"type":"shout"}'), await one(new Uint8Array([1, 2, 3, 4])), await one(Array(30).fill('{"type":"ping"}'))];
    })()`);
    for (const c of closes.slice(0, 2)) {
      expect(c.code).toBe(1003);
      expect(c.error?.code).toBe('bad_message');
    }
    // A flood (even of pings) ends the link: 1008, rate_limited.
    expect(closes[2]).toMatchObject({ code: 1008, error: { code: 'rate_limited' } });
    expect(closes[0]!.error!.message).toMatch(/"publish"\|"answer"/);
    expect(closes[1]!.error!.message).toMatch(/JSON text only/);
  });

  it('a person on the phone in the room hears Ana\'s own voice, mixed from Janus, and no reading of her English phrases over it', async () => {
    // The carrier (Kamailio) in the namespace, its trunk, and a number of it that takes calls.
    const kport = await freePort();
    const cfg = path.join(ns.dir, 'kamailio.cfg');
    fs.writeFileSync(cfg, `${kamailioConfig({ listen: [`udp:127.0.0.3:${kport}`], children: 1 })}  record_route();\n  $du = "sip:127.0.0.1:${sipPort}";\n  t_relay();\n}\n`);
    const children: ChildProcess[] = [ns.spawn(KAMAILIO, ['-f', cfg, '-DD', '-E', '-n', '1', '-Y', ns.dir, '-P', path.join(ns.dir, 'kamailio.pid')])];
    try {
      const trunk = await addTrunk(pool, undefined, { org: orgId, uri: `sip:127.0.0.3:${kport}` });
      await addNumber(pool, { org: orgId, e164: '+12125550197', trunk: trunk.id, inbound: true });
      await until('the trunk up', async () => (await pool.query(`SELECT state FROM trunks WHERE id = $1`, [trunk.id])).rows[0]?.state === 'up', 20_000);
      const url = await room();
      const roomId = new URL(url).pathname.split('/').pop()!;
      const ana = await open(speaker, url, 'Ana', 'en', 'en');
      await ana.getByRole('button', { name: 'Microphone' }).click();
      const link = await api('POST', `/v1/rooms/${roomId}/join-links`, { name: 'Paula', speak: 'en', hear: 'en' });
      expect(link.status, link.text).toBe(201);
      // Paula's phone: its audio in a process beside the service, SIPp dialing through the carrier.
      const phone = ns.spawn(serverNode(), ['test/helpers/phone-media-child.ts'], { cwd: ROOT });
      children.push(phone);
      const levels: Array<{ at: number; rms: number }> = [];
      let mediaPort = 0;
      let buf = '';
      phone.stdout!.on('data', (d: Buffer) => {
        buf += String(d);
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const m = JSON.parse(buf.slice(0, i));
          buf = buf.slice(i + 1);
          if (m.port) mediaPort = m.port; else levels.push(m);
        }
      });
      await until('the phone\'s audio', async () => mediaPort > 0, 10_000);
      const scenario = path.join(ns.dir, 'caller.xml');
      fs.writeFileSync(scenario, callerScenario({ to: '+12125550197', carrier: `127.0.0.3:${kport}`, from: '+14155550150', media: { port: mediaPort }, pins: [link.body.phone.pin], waitMs: 1_500, byeTimeoutMs: 120_000 }));
      children.push(ns.spawn('/usr/bin/sipp', [`127.0.0.3:${kport}`, '-sf', scenario, '-i', '127.0.0.1', '-p', String(await freePort()), '-m', '1', '-nostdin', '-timeout', '150s']));
      await until('Paula in the room', async () => (await pool.query(`SELECT 1 FROM room_participants WHERE room_id = $1 AND phone IS NOT NULL AND left_at IS NULL`, [roomId])).rows.length > 0, 30_000);
      await until('Ana\'s voice mixed for the phone', async () => /a voice of the room is mixed for its phone lines/.test(out), 15_000);
      // Past the welcome (a few seconds), ten seconds of the phone: Ana's 7 s sentence and her 3 s pause.
      await new Promise((r) => setTimeout(r, 9_000));
      const from = Date.now();
      await new Promise((r) => setTimeout(r, 10_000));
      const heard = levels.filter((l) => l.at > from).map((l) => l.rms);
      expect(Math.max(...heard), `Ana's voice on the phone: ${heard.join(' ')}`).toBeGreaterThan(1_000);
      const quiet = heard.filter((l) => l < 100).length;
      expect(quiet, `and her pause is quiet there: ${heard.join(' ')}`).toBeGreaterThanOrEqual(5);
      // Her English phrases were not read to Paula, who hears English: she hears Ana herself.
      expect(out).not.toMatch(/a phrase was not spoken to the caller/);
    } finally {
      for (const c of children) c.kill('SIGKILL');
    }
  });

  it('Janus killed mid-room: the pages say the voices stopped, typing goes on, and the voices come back with a new Janus', async () => {
    const { ana, bea, anaId } = await anaHeardByBea();
    expect(janusPid, out).toBeTruthy();
    // The Janus that runs now (a retry of this test finds the one the service started again, once it says so).
    const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };
    const pid = await until('Janus running', async () => (alive(Number(janusPid)) ? Number(janusPid) : null), 30_000);
    process.kill(pid, 'SIGKILL');
    await until('Bea is told', async () => /voices stopped/i.test((await bea.locator('#voices-status').textContent()) ?? ''), 10_000);
    expect(await heardFrom(bea)).toEqual([]);
    // The process stays ready meanwhile (rooms go on without voices); its media check says whether Janus is back.
    // (An engine whose every instance a loaded machine's timeouts tripped makes it unready too: not this test's.)
    const ready = await ns.request(port, 'GET', '/readyz');
    expect(['ok', 'degraded']).toContain(ready.body.checks.media);
    const engineDown = Object.entries(ready.body.checks as Record<string, string>).some(([k, v]) => k.startsWith('engines_') && v === 'down');
    if (!engineDown) expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    // Typing still reaches the room.
    await bea.getByLabel('Say something').fill('Still here');
    await bea.getByRole('button', { name: 'Send' }).click();
    await ana.locator('#phrases li.phrase', { hasText: 'Still here' }).first().waitFor({ timeout: 30_000 });
    // Janus is back (the service restarts it): the pages link again, and Ana is heard again.
    await until('Bea hears Ana again', async () => (await heardFrom(bea)).includes(anaId), 40_000);
  });
});
