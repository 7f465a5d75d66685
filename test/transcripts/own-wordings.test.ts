import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { disclosure } from '../../src/i18n/disclosure.ts';
import { CALL_AGENT_NAME } from '../../src/calls/calls.ts';
import { ANNOUNCEMENT } from '../../src/sim/phrasebook.ts';

// Text Tolk writes itself in several languages (a call's AI disclosure, a
// room's "X joined" announcements) is read back from a transcript in its own
// wording for the language asked, never through translation and never in the
// simulator's marked form (`[pt→en] …`), as the session events give it.

vi.setConfig({ testTimeout: 60_000 });

// The service's clock from a Wednesday, 17:00 UTC: inside every calling window.
const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
const clock = () => new Date(Date.now() + offset);

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ workers: true, clock, config: { simSpeed: 10 } });
  ({ secret: key } = await t.key({ rpm: 100_000 }));
});
afterAll(async () => {
  await t?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

async function read(id: string, lang: string) {
  const res = await t.request('GET', `/v1/transcripts/${id}?lang=${lang}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

describe('a transcript read in a language', () => {
  it("a call's disclosure: its own wording in en, pt and es, never marked", async () => {
    const placed = await t.request('POST', '/v1/calls', {
      key, headers: idem(),
      body: { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express', ref: 'crm-1' }, agent_lang: 'en', remote_lang: 'pt' },
    });
    expect(placed.status, await placed.clone().text()).toBe(201);
    const c = await placed.json();
    await until('the call to be answered', async () => {
      const r = await (await t.request('GET', `/v1/calls/${c.id}`, { key })).json();
      return r.status === 'answered' ? r : null;
    }, { timeoutMs: 15_000, intervalMs: 150 });
    // The session's event says it in English.
    const ev = await (await t.request('GET', `/v1/sessions/${c.session_id}/events?cursor=0&wait=5`, { key })).json();
    expect(ev.events[0].untrusted_content.text_in_hear_lang).toBe(disclosure(CALL_AGENT_NAME, 'en'));
    expect((await t.request('POST', `/v1/calls/${c.id}/hangup`, { key })).status).toBe(200);
    const tr = await until('the call transcript', async () => {
      const list = await (await t.request('GET', '/v1/transcripts', { key })).json();
      return list.data.find((x: any) => x.room_id === null) ?? null;
    });
    // ja: the disclosure has no wording there; its English one, as it is.
    for (const lang of ['en', 'pt', 'es', 'ja']) {
      const full = await read(tr.id, lang);
      expect(full.lang).toBe(lang);
      const first = full.segments[0];
      expect(first).toMatchObject({ speaker: CALL_AGENT_NAME, src_lang: 'pt', untrusted_content: { text: disclosure(CALL_AGENT_NAME, 'pt') } });
      expect(first.untrusted_content.text_in_lang, lang).toBe(disclosure(CALL_AGENT_NAME, lang));
      expect(first.untrusted_content.text_in_lang).not.toMatch(/\[\w+→\w+\]/);
    }
  });

  it("a room's announcement that an AI assistant joined: its own wording in en, pt and es, never marked", async () => {
    const res = await t.request('POST', '/v1/rooms', { key, headers: idem(), body: { langs: ['pt', 'en'], visibility: 'public' } });
    expect(res.status).toBe(201);
    const room = await res.json();
    const joined = await t.request('POST', `/v1/rooms/${room.id}/agent-sessions`, {
      key, headers: idem(), body: { name: 'Ada', speak_lang: 'pt', hear_lang: 'pt', announce: true },
    });
    expect(joined.status, await joined.clone().text()).toBe(201);
    expect((await t.request('DELETE', `/v1/rooms/${room.id}`, { key })).status).toBe(200);
    const tr = await until('the room transcript', async () => {
      const list = await (await t.request('GET', `/v1/transcripts?room_id=${room.id}`, { key })).json();
      return list.data.find((x: any) => x.room_id === room.id) ?? null;
    });
    const wording = (lang: string) => ANNOUNCEMENT[lang as keyof typeof ANNOUNCEMENT].split('{name}').join('Ada');
    for (const [lang, want] of [['en', wording('en')], ['pt', wording('pt')], ['es', wording('es')], ['ja', wording('en')]] as const) {
      const full = await read(tr.id, lang);
      const seg = full.segments.find((g: any) => g.untrusted_content.text === wording('en'));
      expect(seg, JSON.stringify(full.segments.slice(0, 3))).toBeTruthy();
      expect(seg.untrusted_content.text_in_lang, lang).toBe(want);
      expect(seg.untrusted_content.text_in_lang).not.toMatch(/\[\w+→\w+\]/);
    }
  });
});
