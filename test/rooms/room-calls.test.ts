import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { withApertium } from '../helpers/apertium.ts';
import { roomPeople } from '../../src/rooms/participants.ts';

// A call into a room (operator.md, Phone participants: POST /v1/calls with room_id), in test mode:
// the simulated callee answers, and instead of talking to an AI agent it is a participant of the
// room speaking and hearing remote_lang. Two calls into one room in two languages are a bridged,
// translated phone call: what each callee says reaches the other's line, spoken in their language.

vi.setConfig({ testTimeout: 90_000 });

let t: TestApp;
let key = '';
beforeAll(async () => {
  // Apertium translates between the callees (es and en); Pico speaks (the default).
  t = await startTestApp({ workers: true, config: { ...withApertium() } });
  key = (await t.key({ rpm: 100_000 })).secret;
});
afterAll(async () => {
  t?.app.server.closeAllConnections();
  await t?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

async function room(k = key): Promise<string> {
  const res = await t.request('POST', '/v1/rooms', { key: k, headers: idem(), body: { langs: ['en', 'es'], visibility: 'public' } });
  expect(res.status).toBe(201);
  return (await res.json()).id;
}

function call(body: Record<string, unknown>, k = key) {
  return t.request('POST', '/v1/calls', {
    key: k, headers: idem(), body: { purpose: 'support', consent: { kind: 'prior_express' }, agent_lang: 'en', ...body },
  });
}

/** What the gateway played on a call's line, by utterance, as the media plane finished it. */
function played(callId: string): Set<string> {
  const out = new Set<string>();
  t.services.gateway!.media.on('finished', (k, u) => { if (k === callId) out.add(u); });
  return out;
}

async function phoneOf(roomId: string, phone: RegExp) {
  return until('the callee in the room', async () => (await roomPeople(t.pool, roomId)).find((p) => p.phone && phone.test(p.name)) ?? null, { timeoutMs: 20_000, intervalMs: 100 });
}

/** The callee's phrase `text` in the room's log (its hello at the pick-up may come before it). */
async function phraseBy(roomId: string, participantId: string, text: string) {
  return until('the callee\'s phrase in the room', async () => {
    const { rows } = await t.pool.query(`SELECT seq, text, src_lang FROM room_segments WHERE room_id = $1 AND participant_id = $2 AND kind = 'person' AND text = $3`, [roomId, participantId, text]);
    return rows[0] ?? null;
  }, { timeoutMs: 20_000, intervalMs: 100 });
}

describe('a call into a room', () => {
  it('refuses a room that is not the caller\'s (400 naming room_id) or not live (409)', async () => {
    const other = await t.key({ rpm: 100_000 });
    const theirs = await room(other.secret);
    const res = await call({ to: '+14155550142', room_id: theirs });
    expect(res.status).toBe(400);
    const p = await res.json();
    expect(p.code).toBe('invalid_request');
    expect(p.message).toMatch(/^room_id: /);
    const gone = await room();
    expect((await t.request('DELETE', `/v1/rooms/${gone}`, { key })).status).toBe(200);
    const late = await call({ to: '+14155550142', room_id: gone });
    expect(late.status).toBe(409);
    expect((await late.json()).message).toMatch(/room_id: this room has ended/);
  });

  it('two callees in two languages hear each other through the room; ending the room ends both calls', async () => {
    const roomId = await room();
    const es = await call({ to: '+14155550142', remote_lang: 'es', room_id: roomId });
    const a = await es.json();
    expect(es.status, JSON.stringify(a)).toBe(201);
    expect(a).toMatchObject({ room_id: roomId, remote_lang: 'es', status: expect.any(String) });
    const en = await call({ to: '+14155550143', remote_lang: 'en', room_id: roomId });
    const b = await en.json();
    expect(en.status, JSON.stringify(b)).toBe(201);
    const onA = played(a.id);
    const onB = played(b.id);
    const pa = await phoneOf(roomId, /42$/);
    const pb = await phoneOf(roomId, /43$/);
    expect(pa).toMatchObject({ kind: 'person', phone: true, speak_lang: 'es', hear_lang: 'es' });
    expect(pb).toMatchObject({ kind: 'person', phone: true, speak_lang: 'en', hear_lang: 'en' });
    // Both were told where they are and that the others are translated by AI, then nothing else until someone speaks.
    await until('the welcome said on both lines', async () => (onA.has('notice') && onB.has('notice')) || null, { timeoutMs: 20_000, intervalMs: 100 });

    // The simulator gives the built-in callee its words (a notice on the calls' channel), as it does in a call with an agent.
    const callee = (callId: string, text: string, lang: string) =>
      t.pool.query(`SELECT pg_notify('tolk_calls', $1)`, [JSON.stringify({ type: 'callee', call: callId, lang, text })]);
    await callee(a.id, '¿Me oyen bien desde Madrid?', 'es');
    const saidA = await phraseBy(roomId, pa.id, '¿Me oyen bien desde Madrid?');
    expect(saidA).toMatchObject({ text: '¿Me oyen bien desde Madrid?', src_lang: 'es' });
    await until('A\'s phrase spoken on B\'s line', async () => onB.has(`seq-${saidA.seq}`) || null, { timeoutMs: 20_000, intervalMs: 100 });
    expect(onA.has(`seq-${saidA.seq}`)).toBe(false);

    await callee(b.id, 'Yes, loud and clear.', 'en');
    const saidB = await phraseBy(roomId, pb.id, 'Yes, loud and clear.');
    expect(saidB).toMatchObject({ text: 'Yes, loud and clear.', src_lang: 'en' });
    await until('B\'s phrase spoken on A\'s line', async () => onA.has(`seq-${saidB.seq}`) || null, { timeoutMs: 20_000, intervalMs: 100 });

    // Nobody talked to an AI agent: the calls' own conversations heard nothing.
    const { rows: agentLog } = await t.pool.query(`SELECT count(*)::int AS n FROM room_segments WHERE room_id = $1 AND kind = 'person'`, [a.id]);
    expect(agentLog[0].n).toBe(0);

    expect((await t.request('DELETE', `/v1/rooms/${roomId}`, { key })).status).toBe(200);
    for (const c of [a, b]) {
      const ended = await until('the call ended', async () => {
        const x = await (await t.request('GET', `/v1/calls/${c.id}`, { key })).json();
        return x.status === 'completed' ? x : null;
      }, { timeoutMs: 20_000, intervalMs: 200 });
      expect(ended.billed_seconds).toBeGreaterThan(0);
    }
    await until('both gone from the room', async () => (await roomPeople(t.pool, roomId)).length === 0 || null, { timeoutMs: 5_000, intervalMs: 100 });
  });
});
