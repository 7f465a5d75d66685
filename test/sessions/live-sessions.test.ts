import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { withApertium } from '../helpers/apertium.ts';
import { readSse, type Sse } from '../helpers/sse.ts';
import { until } from '../helpers/wait.ts';

// Live agent sessions (operator.md: "Live agent sessions work when the engines
// cover the room's languages") over real HTTP, translated by the run's real
// Apertium (en↔es, es↔pt: en→pt through es): a live key joins a room whose
// languages the engines cover, people on the room page read it translated and
// it hears them; it pays from the organization's balance as api.md's say and
// listen costs say; a pair no engine covers is 501 naming it; a spent balance
// is 402; a live room never has the simulator's robots, even with the
// simulator running (workers on, robots at 20 times their pace).

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

let t: TestApp;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestApp({ workers: true, config: { ...withApertium(), simSpeed: 20 } });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  // Every page's stream ended on the server before the connections go (one cut mid-stream makes the client
  // open new ones, which the server would wait for until its keep-alive timeout).
  if (t) await until('the pages\' streams end', async () => (await t.pool.query('SELECT 1 FROM room_streams')).rowCount === 0);
  t?.app.server.closeAllConnections();
  await t?.close();
});

const idem = () => ({ 'idempotency-key': randomUUID() });

/** Spoken seconds of a text at 15 characters a second (at least 1), as api.md's costs count them. */
const spoken = (text: string) => Math.max(1, Math.ceil([...text].length / 15));

async function liveKey(o: { minutes?: number; spendDay?: number; org?: string } = {}) {
  return t.key({ mode: 'live', rpm: 100_000, ...o });
}

async function room(secret: string, langs: string[]): Promise<string> {
  const res = await t.request('POST', '/v1/rooms', { key: secret, body: { title: 'Live', langs, visibility: 'public' }, headers: idem() });
  expect(res.status, await res.clone().text()).toBe(201);
  const r = await res.json();
  expect(r.livemode).toBe(true);
  return r.id;
}

async function joinSession(secret: string, roomId: string, body: Record<string, unknown>) {
  return t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key: secret, body: { announce: false, ...body }, headers: idem() });
}

async function joined(secret: string, roomId: string, body: Record<string, unknown>) {
  const res = await joinSession(secret, roomId, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

async function balanceSeconds(orgId: string): Promise<number> {
  const { rows } = await t.pool.query(`SELECT balance_seconds::float8 AS b FROM organizations WHERE id = $1`, [orgId]);
  return rows[0].b;
}

async function ledger(keyId: string): Promise<Array<{ kind: string; seconds: number; livemode: boolean }>> {
  const { rows } = await t.pool.query(
    `SELECT kind, seconds::float8 AS seconds, livemode FROM usage_ledger WHERE credential_id = $1 ORDER BY id`, [keyId],
  );
  return rows;
}

/** A person on the room page: joins through the page's own API and keeps its event stream open. */
async function person(roomId: string, name: string, speak: string, hear: string) {
  const res = await fetch(`${t.url}/r/${roomId}/participants`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, speak, hear }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const p: any = await res.json();
  const events: Sse[] = [];
  const ctl = new AbortController();
  const stream = await fetch(`${t.url}/r/${roomId}/stream?participant=${p.id}&secret=${p.secret}`, { signal: ctl.signal });
  expect(stream.status).toBe(200);
  void readSse(stream.body!, (e) => events.push(e)).catch(() => {});
  return {
    id: p.id as string,
    secret: p.secret as string,
    events,
    close: () => ctl.abort(),
    next: (event: string, pred: (d: any) => boolean = () => true) =>
      until(`${name}'s page gets a ${event} event`, async () => events.find((e) => e.event === event && pred(e.data))?.data, { timeoutMs: 15_000 }),
    say: async (text: string) => {
      const r = await fetch(`${t.url}/r/${roomId}/say`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ participant: p.id, secret: p.secret, text }),
      });
      expect(r.status, await r.clone().text()).toBe(202);
    },
  };
}

/** The session's events from cursor 0 until one matches (long-polls, no fixed sleep); answers that event and everything read. */
async function hear(secret: string, sessionId: string, match: (e: any) => boolean) {
  const all: any[] = [];
  let cursor = 0;
  const event = await until('the session hears it', async () => {
    const res = await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=${cursor}&wait=5`, { key: secret });
    expect(res.status, await res.clone().text()).toBe(200);
    const r = await res.json();
    all.push(...r.events);
    cursor = r.cursor;
    return all.find(match);
  });
  return { event, all, cursor };
}

/** What Apertium itself makes of a text (the run's server, through the app's own engines). */
async function apertium(text: string, from: string, to: string): Promise<string> {
  const out = await t.services.translation!.chain.translate(text, from, [to]);
  return out[to]!.text;
}

describe('a live agent session in a room the engines cover', () => {
  it('joins an en/es room without robots; people on the page read its say translated by Apertium and it hears them in English; the balance pays exactly what api.md says', async () => {
    const k = await liveKey({ minutes: 10 });
    const roomId = await room(k.secret, ['en', 'es']);
    const elena = await person(roomId, 'Elena', 'es', 'es');
    const joao = await person(roomId, 'João', 'pt', 'pt');
    await elena.next('participants');

    const ses = await joined(k.secret, roomId, { name: 'Helper', speak_lang: 'en', hear_lang: 'en' });
    expect(ses).toMatchObject({ id: expect.stringMatching(/^ses_/), room_id: roomId, status: 'active', billed_seconds: 0, livemode: true });
    // The page lists the agent with its AI badge, and nobody else came with it: no robots in a live room.
    expect((await elena.next('joined', (d) => d.participant.id === ses.id)).participant).toMatchObject({ name: 'Helper', kind: 'agent', ai: true });
    const got = await (await t.request('GET', `/v1/sessions/${ses.id}`, { key: k.secret })).json();
    expect(got).toMatchObject({ id: ses.id, status: 'active', livemode: true });

    // The agent speaks English: Elena reads it in Spanish and João in Portuguese (en→es→pt), as Apertium translates it.
    const text = 'The report is ready.';
    const said = await t.request('POST', `/v1/sessions/${ses.id}/say`, { key: k.secret, body: { text } });
    expect(said.status, await said.clone().text()).toBe(202);
    const r = await said.json();
    expect(r).toMatchObject({ utterance_id: expect.stringMatching(/^utt_/), livemode: true });
    // Seconds spoken times the listener languages: es and pt (the people on the page).
    expect(r.charged_seconds).toBe(spoken(text) * 2);

    const es = await elena.next('phrase', (d) => d.participant_id === ses.id);
    expect(es).toMatchObject({ speaker: 'Helper', ai: true, kind: 'agent', original: text, lang: 'es', untranslated: false });
    expect(es.text).toBe(await apertium(text, 'en', 'es'));
    expect(es.text).toMatch(/informe/);
    expect(es.text).not.toMatch(/\[en→es\]/);
    const pt = await joao.next('phrase', (d) => d.participant_id === ses.id);
    expect(pt).toMatchObject({ ai: true, original: text, lang: 'pt', untranslated: false });
    expect(pt.text).not.toBe(text);
    expect(pt.text).toMatch(/relatório|informe/);
    expect(pt.text).not.toMatch(/\[/);

    // Elena types in Spanish: the agent hears it in English, translated by Apertium, with her as the speaker.
    const typed = 'Buenos días, ¿cómo estás?';
    await elena.say(typed);
    const { event: heard, all } = await hear(k.secret, ses.id, (e) => e.speaker === 'Elena');
    expect(heard).toMatchObject({ type: 'segment.final', src_lang: 'es', untrusted_content: { text: typed }, meta: { participant_id: elena.id, lang: 'en' } });
    expect(heard.untrusted_content.text_in_hear_lang).toBe(await apertium(typed, 'es', 'en'));
    expect(heard.untrusted_content.text_in_hear_lang).toMatch(/Good morning/);
    expect(heard.meta.untranslated).toBeUndefined();
    // Nothing but Elena was heard: no robot ever spoke, and the agent does not hear itself (its say comes back only as its progress).
    expect(all.filter((e) => !e.type.startsWith('say.')).map((e) => e.speaker)).toEqual(['Elena']);
    expect(all.filter((e) => e.type.startsWith('say.')).every((e) => e.meta.utterance_id === r.utterance_id)).toBe(true);

    // The balance paid the say and, once, the listening: a tenth of the spoken time of what was delivered.
    const listen = 0.1 * spoken(typed);
    expect(await ledger(k.keyId)).toEqual([
      { kind: 'say', seconds: r.charged_seconds, livemode: true },
      { kind: 'listen', seconds: listen, livemode: true },
    ]);
    expect(await balanceSeconds(k.orgId)).toBeCloseTo(600 - r.charged_seconds - listen, 9);
    // A re-read is free.
    const again = await (await t.request('GET', `/v1/sessions/${ses.id}/events?cursor=0`, { key: k.secret })).json();
    expect(again.events.filter((e: any) => !e.type.startsWith('say.')).map((e: any) => e.speaker)).toEqual(['Elena']);
    expect(await balanceSeconds(k.orgId)).toBeCloseTo(600 - r.charged_seconds - listen, 9);
    const bal = await (await t.request('GET', '/v1/balance', { key: k.secret })).json();
    expect(bal).toMatchObject({ source: 'organization', livemode: true, seconds_left: Math.floor(600 - r.charged_seconds - listen) });

    // The page never listed a robot, and the room has no simulator state.
    const everyone = elena.events.flatMap((e) => (e.event === 'participants' ? e.data.participants : e.event === 'joined' ? [e.data.participant] : []));
    expect(everyone.map((p: any) => p.kind)).not.toContain('robot');
    expect((await t.pool.query(`SELECT 1 FROM sim_rooms WHERE room_id = $1`, [roomId])).rowCount).toBe(0);

    const left = await (await t.request('POST', `/v1/sessions/${ses.id}/leave`, { key: k.secret })).json();
    expect(left).toMatchObject({ id: ses.id, status: 'ended', livemode: true });
    expect(left.billed_seconds).toBe(Math.round(r.charged_seconds + listen));
    const after = await t.request('POST', `/v1/sessions/${ses.id}/say`, { key: k.secret, body: { text: 'again' } });
    expect(after.status).toBe(409);
    expect((await after.json()).code).toBe('session_ended');
    elena.close();
    joao.close();
  });

  it('a person speaking a language no engine covers reaches the session as said, flagged, never in the marked form', async () => {
    const k = await liveKey();
    const roomId = await room(k.secret, ['en', 'es']);
    const ses = await joined(k.secret, roomId, { speak_lang: 'en', hear_lang: 'en' });
    const dieter = await person(roomId, 'Dieter', 'de', 'de');
    const typed = 'Guten Morgen zusammen';
    await dieter.say(typed);
    const { event } = await hear(k.secret, ses.id, (e) => e.speaker === 'Dieter');
    expect(event.untrusted_content).toEqual({ text: typed, text_in_hear_lang: typed });
    expect(event.meta.untranslated).toBe(true);
    dieter.close();
  });

  it('two keys of one organization saying at once: each say is debited once, and the balance never goes below zero', async () => {
    const a = await liveKey();
    const b = await liveKey({ org: a.orgId });
    const roomId = await room(a.secret, ['en', 'es']);
    const sa = await joined(a.secret, roomId, { speak_lang: 'en', hear_lang: 'en' });
    const sb = await joined(b.secret, roomId, { speak_lang: 'en', hear_lang: 'es' });
    // Each say costs 1 s (15 characters, one listener language: the other session's); the balance pays 6 of the 16 sent at once.
    await t.pool.query(`UPDATE organizations SET balance_seconds = 6 WHERE id = $1`, [a.orgId]);
    const text = 'Fifteen chars!!';
    const sends = Array.from({ length: 16 }, (_, i) => {
      const [k, s] = i % 2 === 0 ? [a, sa] : [b, sb];
      return t.request('POST', `/v1/sessions/${s.id}/say`, { key: k.secret, body: { text } });
    });
    const answers = await Promise.all(sends);
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses.filter((x) => x === 202)).toHaveLength(6);
    expect(statuses.filter((x) => x === 402)).toHaveLength(10);
    for (const res of answers) {
      const body = await res.json();
      if (res.status === 202) expect(body.charged_seconds).toBe(1);
      else expect(body).toMatchObject({ code: 'spend_limit_reached', message: expect.stringMatching(/balance/) });
    }
    expect(await balanceSeconds(a.orgId)).toBe(0);
    const says = [...(await ledger(a.keyId)), ...(await ledger(b.keyId))].filter((l) => l.kind === 'say');
    expect(says.reduce((n, l) => n + l.seconds, 0)).toBe(6);
    // The sessions' own totals add up to the same 6 s.
    const billed = await Promise.all([sa, sb].map(async (s, i) =>
      (await (await t.request('GET', `/v1/sessions/${s.id}`, { key: [a, b][i]!.secret })).json()).billed_seconds));
    expect(billed[0] + billed[1]).toBe(6);
  });
});

describe('live sessions refused', () => {
  it('501 not_available_yet naming the pairs no engine covers, and nothing joins; a covered room on the same key joins', async () => {
    const k = await liveKey();
    const de = await room(k.secret, ['en', 'de']);
    const res = await joinSession(k.secret, de, { speak_lang: 'en', hear_lang: 'en' });
    expect(res.status).toBe(501);
    const body = await res.json();
    expect(body.code).toBe('not_available_yet');
    expect(body.message).toContain('en→de');
    expect(body.message).toContain('de→en');
    expect(body.message).toContain('TOLK_TRANSLATE');
    expect(body.message).not.toContain('en→es');
    // Hearing a language no engine reaches from the room's: named too.
    const es = await room(k.secret, ['en', 'es']);
    const ja = await (await joinSession(k.secret, es, { speak_lang: 'en', hear_lang: 'ja' })).json();
    expect(ja).toMatchObject({ code: 'not_available_yet', message: expect.stringContaining('en→ja') });
    expect(ja.message).toContain('es→ja');
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM agent_sessions WHERE room_id = ANY($1)`, [[de, es]]);
    expect(rows[0].n).toBe(0);
    // en, es and pt (through es) are covered.
    const pt = await room(k.secret, ['es', 'pt']);
    expect((await joinSession(k.secret, pt, { speak_lang: 'en', hear_lang: 'pt' })).status).toBe(201);
  });

  it('402 spend_limit_reached when the balance cannot pay a say, and reading once it is spent', async () => {
    const k = await liveKey({ minutes: 0.05 });
    const roomId = await room(k.secret, ['en', 'es']);
    const ses = await joined(k.secret, roomId, { speak_lang: 'en', hear_lang: 'en' });
    const elena = await person(roomId, 'Elena', 'es', 'es');
    // 4 s of speech for one listener language: more than the 3 s left.
    const long = 'x'.repeat(60);
    const refused = await t.request('POST', `/v1/sessions/${ses.id}/say`, { key: k.secret, body: { text: long } });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ code: 'spend_limit_reached', message: expect.stringMatching(/balance/) });
    expect(await balanceSeconds(k.orgId)).toBe(3);
    // 3 s exactly is paid, and leaves nothing.
    const paid = await t.request('POST', `/v1/sessions/${ses.id}/say`, { key: k.secret, body: { text: 'x'.repeat(45) } });
    expect(paid.status).toBe(202);
    expect(await balanceSeconds(k.orgId)).toBe(0);
    await elena.say('Hola');
    await until('listening is refused', async () => {
      const res = await t.request('GET', `/v1/sessions/${ses.id}/events?cursor=0`, { key: k.secret });
      return res.status === 402 && (await res.json()).code === 'spend_limit_reached';
    });
    elena.close();
  });

  it('usage.threshold when a live key\'s says cross 80% of its daily limit, then 402 at the limit', async () => {
    const k = await liveKey({ spendDay: 1 });
    const roomId = await room(k.secret, ['en', 'es']);
    const ses = await joined(k.secret, roomId, { speak_lang: 'en', hear_lang: 'es' });
    const elena = await person(roomId, 'Elena', 'es', 'es');
    // 50 s of 60: past 80%.
    expect((await t.request('POST', `/v1/sessions/${ses.id}/say`, { key: k.secret, body: { text: 'y'.repeat(750) } })).status).toBe(202);
    const evt = await until('usage.threshold', async () => {
      const list = await (await t.request('GET', '/v1/events?type=usage.threshold', { key: k.secret })).json();
      return list.data[0];
    });
    expect(evt).toMatchObject({ type: 'usage.threshold', livemode: true });
    expect(evt.data.object).toMatchObject({ credential_id: k.keyId, period: 'day', threshold_percent: 80 });
    const over = await t.request('POST', `/v1/sessions/${ses.id}/say`, { key: k.secret, body: { text: 'y'.repeat(750) } });
    expect(over.status).toBe(402);
    expect(await over.json()).toMatchObject({ code: 'spend_limit_reached', message: expect.stringMatching(/daily limit/) });
    elena.close();
  });
});

describe('a server with no translation engine', () => {
  it('refuses a live join and answers 501 for a session id it does not have, while a live session made elsewhere still works there', async () => {
    const bare = await startTestApp({ db: t.db });
    try {
      const k = await liveKey();
      const roomId = await room(k.secret, ['en', 'es']);
      const refused = await bare.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key: k.secret, body: { speak_lang: 'en', hear_lang: 'en' }, headers: idem() });
      expect(refused.status).toBe(501);
      expect((await refused.json()).message).toContain('TOLK_TRANSLATE');
      const missing = await bare.request('GET', '/v1/sessions/ses_missing', { key: k.secret });
      expect(missing.status).toBe(501);
      // Joined through the process that has Apertium: the other one serves it too (an existing session is not refused).
      const ses = await joined(k.secret, roomId, { speak_lang: 'en', hear_lang: 'en' });
      expect((await bare.request('GET', `/v1/sessions/${ses.id}`, { key: k.secret })).status).toBe(200);
      expect((await bare.request('GET', `/v1/sessions/${ses.id}/events?cursor=0`, { key: k.secret })).status).toBe(200);
      const left = await bare.request('POST', `/v1/sessions/${ses.id}/leave`, { key: k.secret });
      expect(left.status).toBe(200);
      expect((await left.json()).status).toBe('ended');
    } finally {
      bare.app.server.closeAllConnections();
      await bare.close();
    }
  });
});

describe('assistant tools with a live credential', () => {
  async function connect(secret: string): Promise<Client> {
    const client = new Client({ name: 'tolk-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
    clients.push(client);
    return client;
  }
  const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as any;

  it('join_room, say, listen and leave work where the engines cover the room; join_room names the pair where they do not', async () => {
    const k = await liveKey({ minutes: 10 });
    const c = await connect(k.secret);
    const roomId = await room(k.secret, ['en', 'es']);
    const elena = await person(roomId, 'Elena', 'es', 'es');
    const joinedRes = await call(c, 'join_room', { room_id: roomId, speak_lang: 'en', hear_lang: 'en', announce: false, idempotency_key: randomUUID() });
    expect(joinedRes.isError, joinedRes.content[0]?.text).toBeFalsy();
    const ses = joinedRes.structuredContent;
    expect(ses.livemode).toBe(true);

    const said = await call(c, 'say', { session_id: ses.id, text: 'The report is ready.' });
    expect(said.isError, said.content[0]?.text).toBeFalsy();
    expect(said.structuredContent).toMatchObject({ livemode: true, charged_seconds: 2 });
    expect((await elena.next('phrase', (d) => d.participant_id === ses.id)).text).toBe(await apertium('The report is ready.', 'en', 'es'));

    await elena.say('Buenos días');
    const heard = await until('listen hears Elena', async () => {
      const r = await call(c, 'listen', { session_id: ses.id, cursor: 0, wait: 5 });
      expect(r.isError, r.content[0]?.text).toBeFalsy();
      return r.structuredContent.events.find((e: any) => e.speaker === 'Elena');
    });
    expect(heard.untrusted_content.text_in_hear_lang).toBe(await apertium('Buenos días', 'es', 'en'));
    expect(heard.untrusted_content.text_in_hear_lang).not.toBe('Buenos días');

    const left = await call(c, 'leave', { session_id: ses.id });
    expect(left.structuredContent).toMatchObject({ status: 'ended', livemode: true });
    expect(await balanceSeconds(k.orgId)).toBeCloseTo(600 - 2 - 0.1, 9);

    const de = await room(k.secret, ['en', 'de']);
    const refused = await call(c, 'join_room', { room_id: de, speak_lang: 'en', hear_lang: 'en', idempotency_key: randomUUID() });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['tolk/problem']?.code).toBe('not_available_yet');
    expect(refused.content[0].text).toContain('en→de');
    elena.close();
  });
});
