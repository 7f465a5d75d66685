import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { PicoSynthesizer } from '../../src/engines/pico/synthesizer.ts';
import { PocketsphinxRecognizer } from '../../src/engines/pocketsphinx/recognizer.ts';
import { RecognizerChain } from '../../src/engines/speech/recognizers.ts';
import { FirstThatSpeaks } from '../../src/engines/speech/synthesizer.ts';
import { loadResampler, resample } from '../../src/engines/speech/resample.ts';
import { setEngineLog } from '../../src/engines/supervisor.ts';

// The speech engines' children die and come back: a PocketSphinx decoder
// killed (kill -9) in the middle of an utterance fails that utterance only,
// is logged, and a new decoder reads the next one; Pico's worker thread
// stopped fails what it was saying, is logged and started again; an espeak-ng
// process (one a phrase) killed fails its phrase, logged. While one is
// down /readyz says so (engines_recognizer, engines_speech), and once it is
// back /readyz is ready again by itself. The pauses are 3 s here (0.5 s by
// default) so that the test can look at the time between.

vi.setConfig({ testTimeout: 90_000 });

const logged: Array<{ level: 'warn' | 'info'; msg: string; o: any }> = [];
let t: TestApp;
beforeAll(async () => {
  setEngineLog({ warn: (o, msg) => logged.push({ level: 'warn', msg, o }), info: (o, msg) => logged.push({ level: 'info', msg, o }) });
  t = await startTestApp();
  await loadResampler();
});
afterAll(async () => { await t?.close(); });

const ready = async () => { const r = await t.request('GET', '/readyz'); return { status: r.status, body: await r.json() } as { status: number; body: any }; };
/** The first line matching `re` logged at or after index `from` (what an earlier death, e.g. under a loaded machine, logged is not this one's). */
const line = (re: RegExp, from = 0) => logged.slice(from).find((l) => re.test(l.msg));

/** Debian's recorded sentences (pocketsphinx-testdata), 16 kHz, with what was said. */
function sentences(): Array<{ reference: string; pcm: Int16Array }> {
  const dir = '/usr/share/pocketsphinx/test/data/librivox';
  return fs.readFileSync(path.join(dir, 'transcription'), 'utf8').trim().split('\n').map((l) => {
    const m = /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)$/.exec(l.trim())!;
    const data = fs.readFileSync(path.join(dir, `${m[2]}.wav`)).subarray(44);
    return { reference: m[1]!, pcm: resample(new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)), 16_000, 8_000) };
  });
}

/** The pocketsphinx_batch processes this test process runs (from /proc). */
function decoders(): number[] {
  const parent = (pid: string) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('/usr/bin/pocketsphinx_batch\0')) return false;
      for (let p = parent(pid), i = 0; p > 1 && i < 6; p = parent(String(p)), i++) if (p === process.pid) return true;
      return false;
    } catch {
      return false;
    }
  }).map(Number);
}

describe('a PocketSphinx decoder killed mid-utterance', () => {
  it('fails that utterance only, is logged, is replaced after its pause, and the next utterance is read', async () => {
    const ps = new PocketsphinxRecognizer({ processes: 1, backoff: { initialMs: 3000 } });
    const chain = new RecognizerChain([ps], { timeoutMs: 30_000 });
    try {
      const s = sentences();
      const first = await chain.recognize({ key: 'k', pcm: s[0]!.pcm, audioMs: s[0]!.pcm.length / 8, lang: 'en', at: Date.now() });
      expect(first.text).toMatch(/\w+ \w+ \w+/);
      expect(await ready()).toMatchObject({ status: 200, body: { checks: { engines_recognizer: 'ok' } } });
      const [pid, ...more] = decoders();
      expect(more).toEqual([]);

      // Every sentence in one utterance (about 30 s of speech: seconds of decoding), killed while it is read.
      const long = new Int16Array(s.reduce((n, x) => n + x.pcm.length, 0));
      s.reduce((at, x) => { long.set(x.pcm, at); return at + x.pcm.length; }, 0);
      const reading = chain.recognize({ key: 'k', pcm: long, audioMs: long.length / 8, lang: 'en', at: Date.now() });
      await new Promise((r) => setTimeout(r, 500));
      const from = logged.length;
      process.kill(pid!, 'SIGKILL');
      expect(await reading).toEqual({ text: null, engine: null });
      // Logged once its shell has said how it ended (a moment after).
      const died = await until('its death logged', async () => line(new RegExp(`^pocketsphinx decoder \\(pid ${pid}\\) died`), from), { timeoutMs: 5_000, intervalMs: 50 });
      expect(died?.level).toBe('warn');
      expect(died?.o).toMatchObject({ pid, signal: 'SIGKILL', restart_in_ms: 3000 });

      // Its only decoder down: an utterance meanwhile gets no text at once, /readyz is not ready.
      expect(await ready()).toMatchObject({ status: 503, body: { checks: { engines_recognizer: 'down' } } });
      expect((await ps.recognize({ key: 'k', pcm: s[1]!.pcm, audioMs: 1000, lang: 'en', at: Date.now() }).catch((e: Error) => e)) as Error).toMatchObject({ message: expect.stringMatching(/being started again/) });

      await until('a new decoder, logged', async () => line(/^pocketsphinx decoder is back/, from), { timeoutMs: 15_000, intervalMs: 100 });
      // Logged once its shell has its pid, a moment before `nice` has become the decoder (under load, seconds).
      const now = await until('the new decoder running', async () => { const d = decoders(); return d.length > 0 && d; }, { timeoutMs: 10_000, intervalMs: 50 });
      expect(now).toHaveLength(1);
      expect(now[0]).not.toBe(pid);
      expect(line(/^pocketsphinx decoder is back/, from)?.o).toMatchObject({ pid: now[0] });
      await until('/readyz ready again', async () => (await ready()).status === 200, { timeoutMs: 5_000, intervalMs: 100 });
      const next = await chain.recognize({ key: 'k', pcm: s[0]!.pcm, audioMs: s[0]!.pcm.length / 8, lang: 'en', at: Date.now() });
      expect(next.text).toBe(first.text);
    } finally {
      await chain.close();
    }
    // Closed: its decoder goes and none is started after.
    await until('its decoders gone', async () => decoders().length === 0, { timeoutMs: 5_000, intervalMs: 100 });
  });
});

describe('Pico\'s worker thread stopped', () => {
  it('fails what it was saying, is logged, is started again after its pause, and speaks again; /readyz follows', async () => {
    const pico = new PicoSynthesizer({ backoff: { initialMs: 3000 } });
    const speech = new FirstThatSpeaks([pico]);
    try {
      const first = await speech.synthesize('Good morning, and welcome.', 'en');
      expect(first.ms).toBeGreaterThan(500);
      expect(await ready()).toMatchObject({ status: 200, body: { checks: { engines_speech: 'ok' } } });
      const tid = pico.threadId;
      expect(tid).toBeGreaterThan(0);

      // What a crash of the engine does to its thread (a worker thread cannot be sent a signal).
      const saying = speech.synthesize('This is a much longer sentence, which the thread is still saying when it stops.', 'en');
      await (pico as unknown as { supervisor: { child: { worker: { terminate: () => Promise<number> } } } }).supervisor.child.worker.terminate();
      await expect(saying).rejects.toThrow(/its thread stopped/);
      const died = line(/^svox-pico's thread \(pid \d+\) died/);
      expect(died?.level).toBe('warn');
      expect(died?.o).toMatchObject({ pid: tid, engine: 'svox-pico', restart_in_ms: 3000 });

      expect(await ready()).toMatchObject({ status: 503, body: { checks: { engines_speech: 'down' } } });
      await expect(speech.synthesize('Meanwhile.', 'en')).rejects.toThrow();

      await until('its thread back, logged', async () => line(/^svox-pico's thread is back/), { timeoutMs: 15_000, intervalMs: 100 });
      expect(pico.threadId).not.toBe(tid);
      await until('/readyz ready again', async () => (await ready()).status === 200, { timeoutMs: 5_000, intervalMs: 100 });
      const again = await speech.synthesize('Good morning, and welcome.', 'en');
      expect(again.pcm).toEqual(first.pcm);
    } finally {
      await speech.close();
    }
    // Closed: nothing is started after.
    const backs = logged.filter((l) => /is back/.test(l.msg)).length;
    await new Promise((r) => setTimeout(r, 500));
    expect(logged.filter((l) => /is back/.test(l.msg)).length).toBe(backs);
  });
});

describe('an espeak-ng process killed while it speaks', () => {
  it('fails that phrase only, logged; the next phrase is spoken by a new process', async () => {
    const { EspeakSynthesizer } = await import('../../src/engines/espeak/synthesizer.ts');
    const espeak = new EspeakSynthesizer();
    try {
      /** The espeak-ng processes this test process runs (from /proc). */
      const running = () => fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(' ').filter(Boolean)
        .filter((pid) => { try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('/usr/bin/espeak-ng\0'); } catch { return false; } }).map(Number);
      // Long enough to be caught speaking (thousands of words take seconds).
      const saying = espeak.synthesize(Array.from({ length: 4000 }, (_, i) => `palavra ${i}.`).join(' '), 'pt');
      const [pid] = await until('espeak-ng running', async () => { const r = running(); return r.length > 0 && r; }, { timeoutMs: 5_000, intervalMs: 10 });
      process.kill(pid!, 'SIGKILL');
      await expect(saying).rejects.toThrow(/SIGKILL/);
      expect(line(/^espeak-ng \(pid \d+\) died \(SIGKILL\)/)?.o).toMatchObject({ pid, signal: 'SIGKILL', engine: 'espeak-ng' });
      const next = await espeak.synthesize('Bom dia.', 'pt');
      expect(next.ms).toBeGreaterThan(300);
    } finally {
      await espeak.close();
    }
  });
});
