import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { apertiumUrl, withApertium } from '../helpers/apertium.ts';
import { readSse, type Sse } from '../helpers/sse.ts';
import { until } from '../helpers/wait.ts';
import { ApertiumEngine } from '../../src/engines/apertium/translate.ts';
import { TranslationChain } from '../../src/engines/translate/chain.ts';

// Real translation by Apertium (Debian's apertium-apy with the eng-spa,
// es-pt, fr-es and spa-ita pairs, started once for the run by
// test/helpers/global-setup.ts): the engine itself, the chain's pivot
// (Apertium has no English–Portuguese pair: en→es→pt), and end to end: an
// agent's say read by sessions in Spanish and Portuguese, the room page's
// captions, a transcript in another language, each phrase translated once
// per language whatever the number of listeners.

vi.setConfig({ testTimeout: 60_000 });

describe('the Apertium engine', () => {
  it('lists what it covers and translates for real; English–Portuguese goes through Spanish', async () => {
    const e = new ApertiumEngine({ url: apertiumUrl() });
    await e.load(AbortSignal.timeout(10_000));
    expect(e.covers('en', 'es')).toBe(true);
    expect(e.covers('es', 'pt')).toBe(true);
    expect(e.covers('pt-BR', 'es')).toBe(true);
    expect(e.covers('en', 'pt')).toBe(false);
    const direct = await e.translate('Good morning, how are you?', 'en', ['es'], AbortSignal.timeout(10_000));
    expect(direct.es).toMatch(/^Buenos días, cómo eres\?|^Buenos días, ¿cómo estás\?|^Buenos días/);
    const chain = new TranslationChain([e]);
    expect(chain.covers('en', 'pt')).toBe(true);
    expect(chain.route('en', 'pt')).toMatchObject({ via: 'es' });
    const before = e.requests;
    const out = await chain.translate('Good morning, how are you?', 'en', ['es', 'pt', 'fr', 'it']);
    // One request per target language: en→es, then es→pt, es→fr, es→it from it.
    expect(e.requests - before).toBe(4);
    expect(out.es?.text).toMatch(/Buenos días/);
    expect(out.pt?.text).toMatch(/Bom dia|Bons dias/);
    expect(out.fr?.text).toMatch(/Bonjour|Bon matin|Bons jours/i);
    expect(out.it?.text).toMatch(/Buongiorno|Buon giorno|Buoni giorni/i);
    // Italian as a source (its pipeline needs cg3's cg-proc, which .ci/run installs).
    expect((await chain.translate('Grazie mille.', 'it', ['es'])).es?.text).toMatch(/gracias/i);
    // No pair at all (German): null, never invented.
    expect((await chain.translate('Good morning', 'en', ['de'])).de).toBeNull();
  });
});

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ workers: true, config: { ...withApertium(), simSpeed: 0.01, maxSessions: 50 } });
  ({ secret: key } = await t.key({ rpm: 100_000 }));
});
afterAll(async () => {
  t?.app.server.closeAllConnections();
  await t?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
const engine = () => t.services.translation!.engines[0]!;

async function room(k = key, body: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/v1/rooms', { key: k, body: { title: 'Real translation', langs: ['en', 'es'], visibility: 'public', ...body }, headers: idem() });
  expect(res.status).toBe(201);
  return (await res.json()).id as string;
}

async function join(roomId: string, body: Record<string, unknown>) {
  const res = await t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key, body: { announce: false, ...body }, headers: idem() });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

/** The session's events until one says `text` (the original), reading with long-polls. */
async function heard(sessionId: string, text: string, ms = 20_000): Promise<any> {
  let cursor = 0;
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const res = await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=${cursor}&wait=5`, { key });
    const body = await res.json();
    const e = body.events.find((x: any) => x.untrusted_content.text === text);
    if (e) return e;
    cursor = body.cursor;
  }
  throw new Error(`${sessionId} never heard "${text}"`);
}

describe('phrases are translated for real, once per language', () => {
  it('an agent says English; sessions read it in Spanish and in Portuguese (through Spanish); five listeners of a language cost one request', async () => {
    const r = await room();
    const speaker = await join(r, { speak_lang: 'en', hear_lang: 'en', name: 'Speaker' });
    const es = await Promise.all(Array.from({ length: 5 }, (_, i) => join(r, { speak_lang: 'es', hear_lang: 'es', name: `Oyente ${i}` })));
    const pt = await Promise.all(Array.from({ length: 5 }, (_, i) => join(r, { speak_lang: 'pt', hear_lang: 'pt', name: `Ouvinte ${i}` })));
    const before = engine().requests;
    const text = 'Good morning, I am calling about your order.';
    const said = await t.request('POST', `/v1/sessions/${speaker.id}/say`, { key, body: { text } });
    expect(said.status).toBe(202);
    const inEs = await Promise.all(es.map((s: any) => heard(s.id, text)));
    const inPt = await Promise.all(pt.map((s: any) => heard(s.id, text)));
    for (const e of inEs) {
      expect(e.untrusted_content.text_in_hear_lang).toMatch(/^Buenos días, estoy llamando sobre (vuestro|su|tu) (orden|pedido)\.$/);
      expect(e.meta.untranslated).toBeUndefined();
    }
    for (const e of inPt) {
      expect(e.untrusted_content.text_in_hear_lang).toMatch(/^Bons dias, estou a chamar sobre (vossa|vosso|sua|seu|tua|teu) (ordem|pedido)\.$|^Bom dia/);
      expect(e.untrusted_content.text_in_hear_lang).not.toMatch(/\[/);
    }
    // Two target languages: two engine requests (en→es, es→pt), whatever the ten listeners.
    expect(engine().requests - before).toBe(2);
    const { rows } = await t.pool.query(`SELECT lang, status, engine FROM room_translations WHERE room_id = $1 ORDER BY lang`, [r]);
    expect(rows).toEqual([{ lang: 'es', status: 'done', engine: 'apertium' }, { lang: 'pt', status: 'done', engine: 'apertium' }]);
  });

  it('a pair no engine covers comes untranslated and flagged: marked in test mode', async () => {
    const r = await room();
    const speaker = await join(r, { speak_lang: 'en', hear_lang: 'en' });
    const de = await join(r, { speak_lang: 'de', hear_lang: 'de' });
    await t.request('POST', `/v1/sessions/${speaker.id}/say`, { key, body: { text: 'See you at noon' } });
    const e = await heard(de.id, 'See you at noon');
    expect(e.untrusted_content.text_in_hear_lang).toBe('[en→de] See you at noon');
    expect(e.meta.untranslated).toBe(true);
  });

  it('the room page shows a person what an agent said in their language, and a transcript reads in another', async () => {
    const r = await room();
    const speaker = await join(r, { speak_lang: 'en', hear_lang: 'en' });
    const res = await fetch(`${t.url}/r/${r}/participants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ana', speak: 'pt', hear: 'pt' }) });
    const ana: any = await res.json();
    const events: Sse[] = [];
    const ctl = new AbortController();
    const stream = await fetch(`${t.url}/r/${r}/stream?participant=${ana.id}&secret=${ana.secret}`, { signal: ctl.signal });
    void readSse(stream.body!, (e) => events.push(e));
    const text = 'Thank you very much.';
    await t.request('POST', `/v1/sessions/${speaker.id}/say`, { key, body: { text } });
    const phrase = await until('the phrase on the page', async () => events.find((e) => e.event === 'phrase' && e.data.original === text)?.data, { timeoutMs: 15_000, intervalMs: 50 })
      .finally(() => ctl.abort());
    expect(phrase).toMatchObject({ lang: 'pt', untranslated: false });
    expect(phrase.text).toMatch(/^Muito obrigad[oa]\.$|^Obrigad[oa]/);
    // The person types Portuguese: the agent hears it in English, and its transcript reads in Spanish.
    await fetch(`${t.url}/r/${r}/say`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ participant: ana.id, secret: ana.secret, text: 'Bom dia a todos.' }) });
    const e = await heard(speaker.id, 'Bom dia a todos.');
    expect(e.untrusted_content.text_in_hear_lang).toMatch(/^Good (morning|day) (to|at) all\.$|^Good/);
    expect((await t.request('POST', `/v1/sessions/${speaker.id}/leave`, { key })).status).toBe(200);
    const list = await (await t.request('GET', `/v1/transcripts?room_id=${r}`, { key })).json();
    const tr = await (await t.request('GET', `/v1/transcripts/${list.data[0].id}?lang=es`, { key })).json();
    const seg = tr.segments.find((x: any) => x.untrusted_content.text === 'Bom dia a todos.');
    expect(seg.untrusted_content.text_in_lang).toMatch(/^Buenos días a todos\.$|^Buen/);
  });
});
