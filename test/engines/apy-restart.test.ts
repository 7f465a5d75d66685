import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { apertiumUrl } from '../helpers/apertium.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';
import { createPool } from '../../src/db/pool.ts';

// The apertium-apy a server runs itself (TOLK_TRANSLATE=apertium, no URL),
// killed outright as an operator or the kernel's OOM killer would: the server
// logs its death, passes phrases on untranslated and flagged while it is down,
// says so in /readyz, starts another (after a pause that grows while starts
// fail), translates again with the new one and is ready again by itself. A
// stop of the server leaves no apertium-apy behind and starts none.
//
// The server's PATH finds apertium-apy through a wrapper of the test's that
// runs Debian's /usr/bin/apertium-apy, or fails at once while a file says so:
// that holds the engine down for as long as the test looks at it.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });

let db: TestDb;
let dir: string;
beforeAll(async () => {
  apertiumUrl(); // Apertium missing is a failure, never a skip.
  db = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-apy-bin-'));
  fs.writeFileSync(path.join(dir, 'apertium-apy'), `#!/bin/sh\nif [ -e "${dir}/hold" ]; then echo 'held down by the test' >&2; exit 1; fi\nexec /usr/bin/apertium-apy "$@"\n`, { mode: 0o755 });
});
afterAll(async () => {
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The process's parent, from /proc; 0 when it is gone. */
function parentOf(pid: number): number {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
  } catch {
    return 0;
  }
}

/** The apertium-apy processes running now under process `root` (0: anywhere), from /proc (other tests run their own). */
function apys(root: number): number[] {
  const under = (pid: number): boolean => {
    if (root === 0) return true;
    for (let p = parentOf(pid), i = 0; p > 1 && i < 10; p = parentOf(p), i++) if (p === root) return true;
    return false;
  };
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try {
      return /^\/usr\/bin\/python3 \/usr\/bin\/apertium-apy -p/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      return false;
    }
  }).map(Number).filter(under);
}

/** The platform's log lines (JSON, one a line, on stderr). */
function lines(server: ServerProcess): any[] {
  return server.stderr().split('\n').flatMap((l) => { try { return [JSON.parse(l)]; } catch { return []; } });
}

describe('the apertium-apy the server runs', () => {
  it('killed: logged, phrases flagged meanwhile and /readyz down; restarted with backoff, translating again and ready again by itself', async () => {
    const server = await startServerProcess(db.url, { TOLK_TRANSLATE: 'apertium', LOG_LEVEL: 'info', PATH: `${dir}:${process.env.PATH}` });
    const root = server.child.pid!;
    try {
      const started = lines(server).find((l) => /^apertium-apy runs \(pid \d+\)$/.test(l.msg));
      expect(started, server.stderr()).toBeDefined();
      const pid = started.pid as number;
      expect(apys(root)).toEqual([pid]);

      const pool = createPool(db.url, 2);
      const org = await createOrg(pool, { name: 'Restarts' });
      const { secret } = await createKey(pool, { org: org.id, mode: 'test', rpm: 100_000 });
      await pool.end();
      const h = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
      const post = async (url: string, body: unknown) => fetch(`${server.base}${url}`, { method: 'POST', headers: { ...h, 'idempotency-key': crypto.randomUUID() }, body: JSON.stringify(body) });
      const room = await (await post('/v1/rooms', { langs: ['en', 'es'] })).json() as any;
      const join = async (speak: string, hear: string) => (await (await post(`/v1/rooms/${room.id}/agent-sessions`, { speak_lang: speak, hear_lang: hear, announce: false })).json() as any).id as string;
      const speaker = await join('en', 'en');
      const listener = await join('es', 'es');
      let cursor = 0;
      /** What the Spanish listener reads of `text` once said. */
      const sayAndHear = async (text: string) => {
        const said = await post(`/v1/sessions/${speaker}/say`, { text });
        expect(said.status).toBe(202);
        for (let i = 0; i < 10; i++) {
          const r = await (await fetch(`${server.base}/v1/sessions/${listener}/events?cursor=${cursor}&wait=5`, { headers: h })).json() as any;
          cursor = r.cursor;
          const e = r.events.find((x: any) => x.untrusted_content.text === text);
          if (e) return e;
        }
        throw new Error(`never heard: ${text}`);
      };
      const ready = async () => { const r = await fetch(`${server.base}/readyz`); return { status: r.status, body: await r.json() as any }; };

      expect((await sayAndHear('Thank you very much.')).untrusted_content.text_in_hear_lang).toMatch(/^Muchas gracias\.$/);
      expect(await ready()).toMatchObject({ status: 200, body: { checks: { engines_translation: 'ok' } } });

      // Held down: every start fails until the file goes.
      fs.writeFileSync(path.join(dir, 'hold'), '');
      const killedAt = Date.now();
      process.kill(pid, 'SIGKILL');
      await until('its death logged', async () => lines(server).find((l) => l.msg?.startsWith(`apertium-apy (pid ${pid}) died`)), { timeoutMs: 10_000, intervalMs: 100 });
      const died = lines(server).find((l) => l.msg?.startsWith(`apertium-apy (pid ${pid}) died`));
      expect(died).toMatchObject({ level: 40, engine: 'apertium', pid, signal: 'SIGKILL', restart_in_ms: 500 });
      expect(died.lived_ms).toBeGreaterThan(0);

      // Meanwhile: not ready (its only translation engine is down), and a phrase passes untranslated and flagged.
      expect(await ready()).toMatchObject({ status: 503, body: { status: 'not_ready', checks: { engines_translation: 'down', database: 'ok' } } });
      const meanwhile = await sayAndHear('Good morning.');
      expect(meanwhile.meta.untranslated).toBe(true);
      // Test mode marks a phrase passed on untranslated (operator.md).
      expect(meanwhile.untrusted_content.text_in_hear_lang).toBe('[en→es] Good morning.');
      // Its starts fail, each logged, each after a longer pause.
      await until('two failed starts logged', async () => lines(server).filter((l) => l.msg?.startsWith('apertium-apy did not start again')).length >= 2, { timeoutMs: 20_000, intervalMs: 100 });
      const pauses = lines(server).filter((l) => l.msg?.startsWith('apertium-apy did not start again')).map((l) => l.restart_in_ms);
      expect(pauses.slice(0, 2)).toEqual([1000, 2000]);
      expect((await ready()).status).toBe(503);

      // Let it start: back by itself, on its port, without a person or a request.
      fs.rmSync(path.join(dir, 'hold'));
      await until('it back, in the log', async () => lines(server).find((l) => l.msg?.startsWith('apertium-apy is back')), { timeoutMs: 40_000, intervalMs: 100 });
      const back = lines(server).find((l) => l.msg?.startsWith('apertium-apy is back'));
      const mine = apys(root);
      expect(mine).toHaveLength(1);
      expect(back).toMatchObject({ level: 30, engine: 'apertium', pid: mine[0] });
      expect(mine[0]).not.toBe(pid);
      await until('/readyz 200 again', async () => (await ready()).status === 200, { timeoutMs: 5_000, intervalMs: 100 });
      console.log(`apertium-apy killed: /readyz 200 again ${Date.now() - killedAt} ms after the kill (held down for the first part; back ${back.down_ms} ms after its death)`);
      expect((await ready()).body.checks.engines_translation).toBe('ok');
      expect((await sayAndHear('Thank you very much.')).untrusted_content.text_in_hear_lang).toMatch(/^Muchas gracias\.$/);

      // Killed again, not held: back within seconds, without a failed start.
      const again = Date.now();
      process.kill(mine[0]!, 'SIGKILL');
      await until('back again', async () => lines(server).filter((l) => l.msg?.startsWith('apertium-apy is back')).length === 2, { timeoutMs: 30_000, intervalMs: 100 });
      await until('/readyz 200 again', async () => (await ready()).status === 200, { timeoutMs: 5_000, intervalMs: 100 });
      console.log(`apertium-apy killed again: /readyz 200 again ${Date.now() - again} ms after the kill`);
      expect(lines(server).filter((l) => l.msg?.startsWith('apertium-apy did not start again'))).toHaveLength(pauses.length);
      expect((await sayAndHear('Good morning.')).untrusted_content.text_in_hear_lang).toMatch(/^Buenos días\.$/);

      // A stop: its apertium-apy goes, and none is started after.
      const now = apys(root);
      const starts = () => lines(server).filter((l) => /^apertium-apy (runs|is back)/.test(l.msg)).length;
      const startsBefore = starts();
      server.child.kill('SIGTERM');
      await server.exited;
      await until('its apertium-apy gone', async () => !apys(0).some((p) => now.includes(p)), { timeoutMs: 10_000, intervalMs: 100 });
      await new Promise((r) => setTimeout(r, 1500));
      expect(starts()).toBe(startsBefore);
      expect(lines(server).filter((l) => /^apertium-apy .*died/.test(l.msg))).toHaveLength(2);
    } finally {
      fs.rmSync(path.join(dir, 'hold'), { force: true });
      await server.kill();
    }
  });
});
