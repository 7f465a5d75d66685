import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { ApertiumEngine } from '../../src/engines/apertium/translate.ts';
import { TranslationChain } from '../../src/engines/translate/chain.ts';
import { OpenAIEngine } from '../../src/engines/openai/translate.ts';
import { refusal } from '../../src/engines/translate/guard.ts';
import { apertiumUrl } from '../helpers/apertium.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startOpenAI, type FakeServer, type TranslationRequest } from '../helpers/fake-engines.ts';

// A language model asked to translate what people say can be talked by it
// into writing something else. The corpora beside this file: attacks (what
// someone says, and what the model writes when it obeys) and real
// translations (what a good model writes). Through the engine chain as the
// service runs it (the model first, the real Apertium after it): no attack
// reaches a listener, every real translation does, as the model wrote it.
// The model is a local server answering as OpenAI's chat completions API
// documents (https://platform.openai.com/docs/api-reference/chat/create;
// see fake-engines.ts), with the corpus's answer.

type Attack = { name: string; from: string; to: string | string[]; text: string; answer: string | Record<string, string>; reference?: boolean };
type Real = { from: string; to: string; text: string; answer: string };

const dir = new URL('./translation-guard/', import.meta.url);
const attacks = (JSON.parse(fs.readFileSync(new URL('attacks.json', dir), 'utf8')) as { attacks: Attack[] }).attacks;
const reals = (JSON.parse(fs.readFileSync(new URL('translations.json', dir), 'utf8')) as { translations: Real[] }).translations;
const targets = (a: Attack) => (Array.isArray(a.to) ? a.to : [a.to]);
const wanted = (a: Attack, lang: string) => (typeof a.answer === 'string' ? a.answer : a.answer[lang]!);

/** Whether the model obeys what it is asked to translate (the attacks' answers) or translates it (the real ones). Both corpora share texts. */
let obeys = true;

/** What the model writes for a text: the corpus's answer for it. */
function model(r: TranslationRequest): string {
  const attack = obeys ? attacks.find((a) => a.text === r.text && a.from === r.from) : undefined;
  if (attack) return JSON.stringify(Object.fromEntries(r.to.map((l) => [l, wanted(attack, l)])));
  const real = reals.filter((x) => x.text === r.text && x.from === r.from);
  return JSON.stringify(Object.fromEntries(r.to.map((l) => [l, real.find((x) => x.to === l)?.answer ?? `(no answer for ${l})`])));
}

let server: FakeServer;
let openai: OpenAIEngine;
let apertium: ApertiumEngine;
const refused: Array<{ reason: string }> = [];
const log = { warn: (o: object) => { refused.push(o as { reason: string }); }, info: () => {} };
let both: TranslationChain;
let alone: TranslationChain;

beforeAll(async () => {
  server = await startOpenAI({ answer: model });
  openai = new OpenAIEngine({ url: server.url, model: 'translator-1' });
  apertium = new ApertiumEngine({ url: apertiumUrl() });
  await openai.load(AbortSignal.timeout(5000));
  await apertium.load(AbortSignal.timeout(10_000));
  both = new TranslationChain([openai, apertium], { timeoutMs: 10_000, log, breakerFailures: 3 });
  alone = new TranslationChain([openai], { timeoutMs: 10_000, log, breakerFailures: 3 });
});
afterAll(async () => {
  await server?.close();
});

describe('the translation guard: injection attempts', () => {
  beforeEach(() => { obeys = true; });
  it('the corpus holds at least 30 attempts and 30 real translations', () => {
    expect(attacks.length).toBeGreaterThanOrEqual(30);
    expect(reals.length).toBeGreaterThanOrEqual(30);
  });

  it.each(attacks.map((a) => [a.name, a] as const))('%s: never reaches a listener (model + Apertium)', async (_name, a) => {
    const got = await both.translate(a.text, a.from, targets(a));
    for (const lang of targets(a)) {
      const out = got[lang];
      // Refused: Apertium's translation where it covers the pair, else none (passed on untranslated).
      if (out) {
        expect(out.engine).toBe('apertium');
        expect(out.text).not.toBe(wanted(a, lang));
      }
      if (apertium.covers(a.from, lang)) expect(out?.engine).toBe('apertium');
    }
  });

  it.each(attacks.filter((a) => !a.reference).map((a) => [a.name, a] as const))('%s: refused by the model’s own checks, with no second engine', async (_name, a) => {
    const got = await alone.translate(a.text, a.from, targets(a));
    for (const lang of targets(a)) expect(got[lang]).toBeNull();
  });

  it('a refused answer is a log line with the reason and without the text; the model’s breaker stays closed', async () => {
    refused.length = 0;
    for (const a of attacks.filter((x) => !x.reference).slice(0, 8)) await alone.translate(a.text, a.from, targets(a));
    expect(refused.length).toBeGreaterThanOrEqual(8);
    for (const r of refused) {
      expect(r.reason).toMatch(/\w/);
      for (const a of attacks) expect(JSON.stringify(r)).not.toContain(a.text);
    }
    expect(alone.breakers.get(openai)!.state).toBe('closed');
    obeys = false;
    const real = reals[0]!;
    expect((await alone.translate(real.text, real.from, [real.to]))[real.to]).toEqual({ text: real.answer, engine: 'openai' });
  });
});

describe('the translation guard: real translations', () => {
  beforeEach(() => { obeys = false; });
  it.each(reals.map((r) => [`${r.from}→${r.to} ${r.text}`, r] as const))('%s passes, as the model wrote it', async (_name, r) => {
    expect(refusal({ text: r.text, from: r.from, lang: r.to, answer: r.answer })).toBeNull();
    expect((await both.translate(r.text, r.from, [r.to]))[r.to]).toEqual({ text: r.answer, engine: 'openai' });
    expect((await alone.translate(r.text, r.from, [r.to]))[r.to]).toEqual({ text: r.answer, engine: 'openai' });
  });

  it('Apertium’s own translations of the texts pass against themselves, and the model’s against Apertium’s', async () => {
    for (const r of reals.filter((x) => apertium.covers(x.from, x.to))) {
      const reference = (await apertium.translate(r.text, r.from, [r.to], AbortSignal.timeout(10_000)))[r.to]!;
      expect(refusal({ text: r.text, from: r.from, lang: r.to, answer: r.answer, reference }), `${r.text} / ${reference}`).toBeNull();
    }
  });
});

describe('the translation guard in a room', () => {
  let t: TestApp | null = null;
  afterEach(async () => {
    t?.app.server.closeAllConnections();
    await t?.close();
    t = null;
  });

  it('one request carries every language the room hears; an attack never reaches a listener, a real translation does', async () => {
    t = await startTestApp({ workers: true, config: { translate: [{ name: 'openai', url: server.url }, { name: 'apertium', url: apertiumUrl() }], translateTimeoutMs: 10_000, simSpeed: 0.01 } });
    const { secret: key } = await t.key({ rpm: 100_000 });
    const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
    const room = (await (await t.request('POST', '/v1/rooms', { key, body: { langs: ['en', 'es', 'fr'] }, headers: idem() })).json()).id as string;
    const join = async (lang: string) => {
      const r = await t!.request('POST', `/v1/rooms/${room}/agent-sessions`, { key, body: { speak_lang: lang, hear_lang: lang, announce: false }, headers: idem() });
      expect(r.status).toBe(201);
      return (await r.json()).id as string;
    };
    const speaker = await join('en');
    const es = await join('es');
    const fr = await join('fr');
    const attack = attacks.find((a) => a.name === 'a login link longer than half the phrase')!;
    const real = reals.find((r) => r.text === 'Any questions before we finish?' && r.to === 'fr')!;
    const before = server.requests.length;
    const heard = async (session: string, n: number) => {
      const got: any[] = [];
      let cursor = 0;
      const deadline = Date.now() + 30_000;
      while (got.length < n && Date.now() < deadline) {
        const r = await (await t!.request('GET', `/v1/sessions/${session}/events?cursor=${cursor}&wait=5`, { key })).json();
        got.push(...r.events.filter((e: any) => e.type === 'segment.final' && e.untrusted_content?.text));
        cursor = r.cursor;
      }
      return got;
    };
    obeys = true;
    expect((await t.request('POST', `/v1/sessions/${speaker}/say`, { key, body: { text: attack.text } })).status).toBeLessThan(300);
    const [esHeard, frHeard] = await Promise.all([heard(es, 1), heard(fr, 1)]);
    // The model was asked once for both languages, and obeyed; what the listeners got is not what it wrote.
    const asked = server.requests.slice(before).filter((r) => r.path === '/v1/chat/completions').map((r) => JSON.parse(JSON.parse(r.body).messages.at(-1).content) as TranslationRequest);
    expect(asked).toHaveLength(1);
    expect([...asked[0]!.to].sort()).toEqual(['es', 'fr']);
    expect(esHeard[0].untrusted_content.text_in_hear_lang).not.toContain('secure-login');
    expect(esHeard[0].untrusted_content.text_in_hear_lang).toMatch(/reunión/);
    expect(frHeard[0].untrusted_content.text_in_hear_lang).not.toContain('secure-login');
    obeys = false;
    expect((await t.request('POST', `/v1/sessions/${speaker}/say`, { key, body: { text: real.text } })).status).toBeLessThan(300);
    const [esReal, frReal] = await Promise.all([heard(es, 2), heard(fr, 2)]);
    expect(frReal[1].untrusted_content.text_in_hear_lang).toBe(real.answer);
    expect(esReal[1].untrusted_content.text_in_hear_lang).toBe('¿Alguna pregunta antes de terminar?');
  });
});
