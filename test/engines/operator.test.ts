import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { apertiumUrl } from '../helpers/apertium.ts';
import { ROOT, startServerProcess } from '../helpers/process.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';
import { createPool } from '../../src/db/pool.ts';
import { until } from '../helpers/wait.ts';

// What an operator sees of the engines: `npx tolk engines` (operator.md),
// as one JSON object for scripts and as a table on a terminal, and a plain
// start on a machine with Apertium installed,
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

/**
 * `tolk` as a person runs it: its stdout as text. `terminal`: under a
 * pseudo-terminal (util-linux `script`), as on an operator's screen.
 */
function tolkText(args: string[], env: Record<string, string>, unset: string[], o: { terminal?: boolean } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const full: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent', ...env };
  for (const k of unset) delete full[k];
  const [cmd, argv] = o.terminal
    ? ['script', ['-qec', ['node', 'bin/tolk.js', ...args].join(' '), '/dev/null']]
    : ['node', ['bin/tolk.js', ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd as string, argv as string[], { cwd: ROOT, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
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

  it('also lists the recognizers and the speech engines with the languages they take, each tried', async () => {
    const r = await tolk(['engines'], { TOLK_TRANSLATE: '', TOLK_RECOGNIZE: 'pocketsphinx,deepgram', TOLK_SPEECH_ENGINES: 'pico,espeak' });
    expect(r.code).toBe(0);
    expect(r.json.recognize).toEqual([
      { name: 'pocketsphinx', url: null, langs: ['en'], error: null, answers: true, latency_ms: expect.any(Number), runs: null },
      { name: 'deepgram', url: null, langs: [], error: expect.stringMatching(/DEEPGRAM_API_KEY/), answers: false, latency_ms: null, runs: null },
    ]);
    expect(r.json.speech[0]).toEqual({ name: 'pico', url: null, langs: ['en', 'es', 'fr', 'de', 'it'], error: null, answers: true, latency_ms: expect.any(Number), runs: null });
    expect(r.json.speech[1]).toMatchObject({ name: 'espeak', answers: true, error: null, runs: '/usr/bin/espeak-ng' });
    expect(r.json.speech[1].langs).toEqual(expect.arrayContaining(['pt', 'nl', 'pl']));
  });

  it('on a terminal, or with --table, prints a table a person reads: a row per language, then each engine; piped, one JSON object', async () => {
    // The defaults of this machine (Debian's espeak-ng installed) with Apertium and PocketSphinx, and one engine that cannot work.
    const env = { TOLK_TRANSLATE: `apertium=${apertiumUrl()},libretranslate=http://127.0.0.1:9`, TOLK_RECOGNIZE: 'pocketsphinx' };
    const unset = ['TOLK_SPEECH_ENGINES'];
    const checkTable = (out: string) => {
      const lines = out.replaceAll('\r\n', '\n').trimEnd().split('\n');
      expect(out.trimStart().startsWith('{'), 'a table, not JSON').toBe(false);
      for (const l of lines) expect(l.length, `within 100 columns: ${l}`).toBeLessThanOrEqual(100);
      const header = lines.find((l) => /^language\s+speak/.test(l))!;
      expect(header).toMatch(/^language\s+speak \(mic\)\s+read aloud\s+translate to \/ from/);
      const column = (name: string) => header.indexOf(name);
      const rowOf = (lang: string) => lines.find((l) => l.startsWith(`${lang} `))!;
      // Portuguese: nobody hears it here, espeak reads it aloud, Apertium translates it to and from Spanish, and English through Spanish.
      const pt = rowOf('pt');
      expect(pt).toMatch(/^pt\s+Portuguese/);
      expect(pt.slice(column('speak'), column('read aloud')).trim()).toBe('-');
      expect(pt.slice(column('read aloud'), column('translate')).trim()).toBe('espeak');
      expect(pt.slice(column('translate'))).toMatch(/^apertium: ⇄ es; ⇄ .*\ben\b.* via es/);
      // English: heard by PocketSphinx, read aloud by Pico.
      const en = rowOf('en');
      expect(en.slice(column('speak'), column('read aloud')).trim()).toBe('pocketsphinx');
      expect(en.slice(column('read aloud'), column('translate')).trim()).toBe('pico');
      // A common language nothing translates still has its row.
      expect(rowOf('nl').slice(column('read aloud'), column('translate')).trim()).toBe('espeak');
      // The languages only read aloud, in a few lines.
      expect(out).toMatch(/more languages, read aloud by espeak, not translated: af /);
      // A line per engine: whether it answers, how quickly, or why not, as a sentence (its continuation lines joined here).
      const engines = lines.join('\n').replace(/\n {30}(?=\S)/g, ' ');
      expect(engines).toMatch(/^ {2}translate +apertium +answers in \d+ ms \(http:\/\/.+\)\.$/m);
      expect(engines).toMatch(/^ {2}translate +libretranslate +does not work: libretranslate at http:\/\/127\.0\.0\.1:9 does not answer: .+\.$/m);
      expect(engines).toMatch(/^ {2}microphone +pocketsphinx +answers in \d+ ms\.$/m);
      expect(engines).toMatch(/^ {2}read aloud +pico +answers in \d+ ms\.$/m);
      expect(engines).toMatch(/^ {2}read aloud +espeak +answers in \d+ ms \(\/usr\/bin\/espeak-ng\)\.$/m);
    };
    const table = await tolkText(['engines', '--table'], env, unset);
    expect(table.code).toBe(0);
    checkTable(table.stdout);
    // Under a pseudo-terminal, the table without asking; --json there gives the JSON object.
    const tty = await tolkText(['engines'], env, unset, { terminal: true });
    expect(tty.code).toBe(0);
    checkTable(tty.stdout);
    const ttyJson = await tolkText(['engines', '--json'], env, unset, { terminal: true });
    expect(ttyJson.code).toBe(0);
    expect(ttyJson.stdout.trim().split(/\r?\n/)).toHaveLength(1);
    expect(JSON.parse(ttyJson.stdout).speech.map((e: { name: string }) => e.name)).toEqual(['pico', 'espeak']);
    // Piped: one JSON object, with what the table showed for each language.
    const piped = await tolkText(['engines'], env, unset);
    const lines = piped.stdout.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    const json = JSON.parse(lines[0]!);
    expect(Object.keys(json)).toEqual(['translate', 'recognize', 'speech', 'languages']);
    const pt = json.languages.find((l: { lang: string }) => l.lang === 'pt');
    expect(pt).toMatchObject({ lang: 'pt', name: 'Portuguese', recognize: [], speech: 'espeak' });
    expect(pt.to).toEqual(expect.arrayContaining([{ lang: 'es', engine: 'apertium', via: null }, { lang: 'en', engine: 'apertium', via: 'es' }]));
    expect(pt.from).toEqual(expect.arrayContaining([{ lang: 'es', engine: 'apertium', via: null }, { lang: 'en', engine: 'apertium', via: 'es' }]));
    expect(json.languages.find((l: { lang: string }) => l.lang === 'en')).toMatchObject({ recognize: ['pocketsphinx'], speech: 'pico' });
    expect(json.languages.find((l: { lang: string }) => l.lang === 'tlh')).toBeUndefined();
  });

  it('--help says what the table\'s columns mean', async () => {
    const r = await tolkText(['engines', '--help'], {}, []);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/--table/);
    expect(r.stderr).toMatch(/--json/);
    expect(r.stderr).toMatch(/read aloud +the speech engine that speaks it/);
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
