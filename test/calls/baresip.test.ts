import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, startTestApp, type TestApp, type TestDb } from '../helpers/app.ts';
import { startBaresip, type Baresip } from '../helpers/baresip.ts';
import { until } from '../helpers/wait.ts';
import { disclosure } from '../../src/i18n/disclosure.ts';
import { partsOf, trimQuiet } from '../../src/calls/line.ts';
import { PicoSynthesizer } from '../../src/engines/pico/synthesizer.ts';

// A call to a real softphone: baresip (Debian's package) answers by itself
// and records what it hears. What the person who picks up hears is checked
// from that recording: the AI disclosure first, in remote_lang, the very
// audio the speech engine made for it, at its length.

vi.setConfig({ testTimeout: 60_000 });

const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
const clock = () => new Date(Date.now() + offset);

let db: TestDb;
let t: TestApp;
let phone: Baresip;
let key: string;
let pico: PicoSynthesizer;

beforeAll(async () => {
  db = await createTestDatabase();
  phone = await startBaresip({ user: '+14155550142' });
  t = await startTestApp({ db, workers: true, clock, config: { simSipPeer: `sip:${phone.address}` } });
  key = (await t.key({ rpm: 100_000 })).secret;
  pico = new PicoSynthesizer();
});
afterAll(async () => {
  await t?.close();
  await phone?.stop();
  await pico?.close();
  await db?.drop();
});

/** Normalized correlation of a and b (same length). */
function correlation(a: Int16Array, b: Int16Array): number {
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) { ab += a[i]! * b[i]!; aa += a[i]! * a[i]!; bb += b[i]! * b[i]!; }
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
}

/** The best correlation of `sent` within `heard`, over every alignment (coarse by 20 ms frames, then fine). */
function bestMatch(heard: Int16Array, sent: Int16Array): { corr: number; at: number } {
  let best = { corr: -1, at: 0 };
  for (let at = 0; at + sent.length <= heard.length; at += 160) {
    const c = correlation(heard.subarray(at, at + sent.length), sent);
    if (c > best.corr) best = { corr: c, at };
  }
  const coarse = best.at;
  for (let at = Math.max(0, coarse - 160); at <= coarse + 160 && at + sent.length <= heard.length; at++) {
    const c = correlation(heard.subarray(at, at + sent.length), sent);
    if (c > best.corr) best = { corr: c, at };
  }
  return best;
}

describe('a call to baresip', () => {
  it('the person who picks up hears the AI disclosure first, in remote_lang, as the engine spoke it', async () => {
    const res = await t.request('POST', '/v1/calls', {
      key, headers: { 'idempotency-key': crypto.randomUUID() },
      body: { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' }, agent_lang: 'en', remote_lang: 'es' },
    });
    const c = await res.json();
    expect(res.status, JSON.stringify(c)).toBe(201);
    const plane = t.services.gateway!.media;
    const spoken = new Promise<void>((ok) => plane.on('finished', (k, u) => { if (k === c.id && u === 'disclosure') ok(); }));
    let startedAt = 0;
    plane.on('started', (k, u) => { if (k === c.id && u === 'disclosure' && !startedAt) startedAt = Date.now(); });
    // baresip sends silence. The disclosure starts at the pick-up while answering-machine detection listens
    // beside it (asynchronous AMD); the call is answered once detection takes it for a person.
    const answered = await until('answered', async () => {
      const x = await (await t.request('GET', `/v1/calls/${c.id}`, { key })).json();
      return x.status === 'answered' ? x : null;
    }, { timeoutMs: 15_000, intervalMs: 200, detail: () => phone.log() });
    // No dead air: the first frame of the disclosure left at the pick-up (answered_at, on the service's
    // clock), not after answering-machine detection, which takes silence for a verdict only after
    // AMD_DEFAULTS.waitMs (5 s). Under 300 ms on a quiet machine; the bound leaves room for a busy one
    // without letting a disclosure that waited for the detection pass.
    const pickUp = Date.parse(answered.answered_at) - offset;
    expect(startedAt).toBeGreaterThan(0);
    expect(startedAt - pickUp).toBeLessThanOrEqual(1000);
    await spoken;
    // The last frames are still on their way and in baresip's jitter buffer: played out before the hangup closes its recording.
    await new Promise((r) => setTimeout(r, 500));
    const ended = await (await t.request('POST', `/v1/calls/${c.id}/hangup`, { key })).json();
    expect(ended.status).toBe('completed');

    const [heard] = await phone.heard();
    expect(heard, phone.log()).toBeDefined();
    // As the line speaks it: its first sentence, then the rest (the line starts on the first while the rest is made).
    const said = await Promise.all(partsOf(disclosure('Tolk Assistant', 'es')).map((p) => pico.synthesize(p, 'es')));
    const parts = said.map((p, i) => (said.length === 1 ? p.pcm : trimQuiet(p.pcm, { start: i > 0, end: i < said.length - 1 })));
    // Each part goes out in whole 20 ms frames, its last one padded with silence.
    const padded = parts.map((p) => p.length % 160 === 0 ? p : Int16Array.from({ length: Math.ceil(p.length / 160) * 160 }, (_, i) => p[i] ?? 0));
    const made = new Int16Array(padded.reduce((n, p) => n + p.length, 0));
    padded.reduce((at, p) => { made.set(p, at); return at + p.length; }, 0);
    // Its sound, from the first audible sample to the last (the engine pads speech with quiet).
    const loud = (x: number) => Math.abs(x) > 500;
    const span = (p: Int16Array) => ({ from: p.findIndex(loud), to: p.findLastIndex(loud) + 1 });
    const s = span(made);
    const sent = made.subarray(s.from, s.to);
    const h = span(heard!);
    // The same audio, through G.711 and the network: it correlates almost perfectly.
    const m = bestMatch(heard!, sent);
    expect(m.corr).toBeGreaterThan(0.95);
    // It is the first sound on the line, and all of it arrived: the recording's sound spans exactly it.
    expect(Math.abs(h.from - m.at)).toBeLessThanOrEqual(160);
    expect(Math.abs((h.to - h.from) - sent.length)).toBeLessThanOrEqual(320);
    const rms = Math.sqrt(sent.reduce((n, x) => n + x * x, 0) / sent.length);
    const heardRms = Math.sqrt(heard!.subarray(m.at, m.at + sent.length).reduce((n, x) => n + x * x, 0) / sent.length);
    expect(heardRms / rms).toBeGreaterThan(0.9);
    expect(heardRms / rms).toBeLessThan(1.1);
  });
});
