import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { apertiumUrl } from '../helpers/apertium.ts';
import { ROOT, startServerProcess } from '../helpers/process.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';
import { createPool } from '../../src/db/pool.ts';
import { until } from '../helpers/wait.ts';

// What an operator sees of the translation engines: `npx tolk engines`
// (operator.md), and a plain start on a machine with Apertium installed,
// which translates for real with nothing configured and leaves no
// apertium-apy behind when the server goes.

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

let db: TestDb;
beforeAll(async () => { db = await createTestDatabase(); });
afterAll(async () => { await db?.drop(); });

function tolk(args: string[], env: Record<string, string>): Promise<{ code: number | null; json: any; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', ['bin/tolk.js', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve({ code, json: JSON.parse(out), stderr: err });
      } catch {
        reject(new Error(`not one JSON object: ${out} (stderr ${err})`));
      }
    });
  });
}

/** The apertium-apy processes running now (their pids). */
function apys(): number[] {
  // Read from /proc (what pgrep -f reads), so the test needs no procps.
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try {
      return /^\/usr\/bin\/python3 \/usr\/bin\/apertium-apy -p/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      return false; // gone meanwhile
    }
  }).map(Number);
}

describe('npx tolk engines', () => {
  it('prints each engine\'s pairs and pivots, whether it answers and its latency; one that does not answer says why', async () => {
    const started = Date.now();
    const r = await tolk(['engines'], { TOLK_TRANSLATE: `apertium=${apertiumUrl()},libretranslate=http://127.0.0.1:9` });
    const took = Date.now() - started;
    expect(r.code).toBe(0);
    const [apertium, libre] = r.json.translate;
    expect(apertium).toMatchObject({ name: 'apertium', url: apertiumUrl(), answers: true, error: null });
    // Its own round trip: a whole number of milliseconds within the command's run.
    expect(Number.isInteger(apertium.latency_ms)).toBe(true);
    expect(apertium.latency_ms).toBeGreaterThanOrEqual(0);
    expect(apertium.latency_ms).toBeLessThan(took);
    expect(apertium.pairs).toEqual(expect.arrayContaining(['en→es', 'es→en', 'es→pt', 'pt→es', 'es→fr', 'es→it']));
    expect(apertium.pivots).toEqual(expect.arrayContaining(['en→pt via es', 'pt→en via es', 'en→fr via es']));
    expect(libre).toMatchObject({ name: 'libretranslate', answers: false, latency_ms: null, pairs: [] });
    expect(libre.error).toMatch(/does not answer|fetch failed|ECONNREFUSED/);
  });

  it('also lists the recognizers and the speech engines with the languages they take', async () => {
    const r = await tolk(['engines'], { TOLK_TRANSLATE: '', TOLK_RECOGNIZE: 'pocketsphinx,deepgram', TOLK_SPEECH_ENGINES: 'pico,espeak' });
    expect(r.code).toBe(0);
    expect(r.json.recognize).toEqual([
      { name: 'pocketsphinx', url: null, langs: ['en'], error: null },
      { name: 'deepgram', url: null, langs: [], error: expect.stringMatching(/DEEPGRAM_API_KEY/) },
    ]);
    expect(r.json.speech[0]).toEqual({ name: 'pico', url: null, langs: ['en', 'es', 'fr', 'de', 'it'], error: null });
    expect(r.json.speech[1].langs).toEqual(expect.arrayContaining(['pt', 'nl', 'pl']));
  });

  it('an engine name that does not exist is an {"error"} naming it', async () => {
    const r = await tolk(['engines'], { TOLK_TRANSLATE: 'babelfish' });
    expect(r.code).not.toBe(0);
    expect(r.json.error).toMatch(/babelfish/);
  });
});

describe('a start whose apertium-apy cannot run', () => {
  it('starts anyway and says so, in its log and its banner', async () => {
    // A PATH without apertium-apy (the server's own node is found by its absolute path).
    const server = await startServerProcess(db.url, { TOLK_TRANSLATE: 'apertium', PATH: '/nonexistent', LOG_LEVEL: 'warn' });
    try {
      const r = await fetch(`${server.base}/v1/openapi.json`);
      expect(r.status).toBe(200);
      expect(server.output()).toMatch(/translation engine apertium left out: .*apertium-apy is not installed/);
      expect(server.stderr()).toMatch(/translation: none/);
    } finally {
      await server.kill();
    }
  });
});

describe('a plain start on a machine with Apertium', () => {
  it('translates for real with nothing configured, and its apertium-apy goes with it, even when it is killed', async () => {
    const before = new Set(apys());
    const env: Record<string, string> = {};
    // Whatever the test run's environment says: the default is what is being tested.
    const server = await startServerProcess(db.url, env, undefined, { unset: ['TOLK_TRANSLATE'] });
    try {
      const mine = apys().filter((p) => !before.has(p));
      expect(mine).toHaveLength(1);
      const pool = createPool(db.url, 2);
      const org = await createOrg(pool, { name: 'Default start' });
      const { secret } = await createKey(pool, { org: org.id, mode: 'test', rpm: 10_000 });
      await pool.end();
      const h = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
      const room = await (await fetch(`${server.base}/v1/rooms`, { method: 'POST', headers: { ...h, 'idempotency-key': crypto.randomUUID() }, body: JSON.stringify({ langs: ['en', 'pt'] }) })).json() as any;
      const join = async (speak: string, hear: string) => (await (await fetch(`${server.base}/v1/rooms/${room.id}/agent-sessions`, {
        method: 'POST', headers: { ...h, 'idempotency-key': crypto.randomUUID() }, body: JSON.stringify({ speak_lang: speak, hear_lang: hear, announce: false }),
      })).json() as any).id as string;
      const speaker = await join('en', 'en');
      const listener = await join('pt', 'pt');
      await fetch(`${server.base}/v1/sessions/${speaker}/say`, { method: 'POST', headers: h, body: JSON.stringify({ text: 'Thank you very much.' }) });
      let cursor = 0;
      let heard: any = null;
      for (let i = 0; i < 10 && !heard; i++) {
        const r = await (await fetch(`${server.base}/v1/sessions/${listener}/events?cursor=${cursor}&wait=5`, { headers: h })).json() as any;
        heard = r.events.find((e: any) => e.untrusted_content.text === 'Thank you very much.');
        cursor = r.cursor;
      }
      expect(heard.untrusted_content.text_in_hear_lang).toMatch(/^Muito obrigad[oa]\.$/);
      await server.kill();
      // Killed outright (SIGKILL): its apertium-apy notices within a second or two.
      await until('its apertium-apy gone', async () => !apys().some((p) => mine.includes(p)), { timeoutMs: 5_000, intervalMs: 100, detail: () => `still running: ${apys().filter((p) => mine.includes(p))}` });
    } finally {
      await server.kill();
    }
  });
});
