import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { simulatedTranslator } from '../../src/sim/translator.ts';

// Publishing a phrase costs the same whatever the number of listeners: the
// room's log holds it once and every session reads it from there, in its own
// language. Measured by what the say's transaction wrote, table by table.

vi.setConfig({ testTimeout: 90_000 });

let t: TestApp;
let key: string;

beforeAll(async () => {
  // No workers: the robots stay silent, so the room says only what the test says.
  t = await startTestApp({ workers: false, config: { maxSessions: 1000 } });
  ({ secret: key } = await t.key({ rpm: 1_000_000 }));
});
afterAll(async () => {
  await t?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
const LANGS = ['de', 'fr', 'pt'];

async function roomWith(listeners: number) {
  const res = await t.request('POST', '/v1/rooms', { key, body: { langs: ['en', 'es'] }, headers: idem() });
  const roomId = (await res.json()).id as string;
  const join = async (body: Record<string, unknown>) => {
    const r = await t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key, body: { speak_lang: 'en', announce: false, ...body }, headers: idem() });
    expect(r.status).toBe(201);
    return (await r.json()) as { id: string; hear_lang: string };
  };
  const speaker = await join({ name: 'Speaker', hear_lang: 'en' });
  const ls: Array<{ id: string; hear_lang: string }> = [];
  for (let i = 0; i < listeners; i += 25) {
    ls.push(...(await Promise.all(Array.from({ length: Math.min(25, listeners - i) }, (_, j) => join({ hear_lang: LANGS[(i + j) % LANGS.length] })))));
  }
  return { roomId, speaker, listeners: ls };
}

/** Rows the transaction that wrote the utterance inserted or updated, per table (those with any). */
async function writtenBy(utteranceId: string): Promise<Record<string, number>> {
  const { rows: [seg] } = await t.pool.query(`SELECT xmin::text AS xid FROM room_segments WHERE utterance_id = $1`, [utteranceId]);
  const { rows: tables } = await t.pool.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
  const out: Record<string, number> = {};
  for (const { tablename } of tables) {
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM "${tablename}" WHERE xmin = $1::text::xid`, [seg.xid]);
    if (rows[0].n > 0) out[tablename] = rows[0].n;
  }
  return out;
}

describe('fan-out', () => {
  it('a say writes the same rows in a room of 300 listeners as in a room of 1, and each listener reads it in its language', async () => {
    const small = await roomWith(1);
    const large = await roomWith(300);
    const text = 'The same few rows, however many listen.';
    const said: Record<string, string> = {};
    for (const r of [small, large]) {
      const res = await t.request('POST', `/v1/sessions/${r.speaker.id}/say`, { key, body: { text } });
      expect(res.status).toBe(202);
      said[r.roomId] = (await res.json()).utterance_id;
    }
    const one = await writtenBy(said[small.roomId]!);
    const many = await writtenBy(said[large.roomId]!);
    expect(many).toEqual(one);
    // The phrase and its say.started once, the room's number once, the speaker's row once: no row per listener.
    expect(many).toMatchObject({ room_segments: 2, room_logs: 1, agent_sessions: 1 });

    const reads = await Promise.all(
      large.listeners.map(async (l) => {
        const res = await t.request('GET', `/v1/sessions/${l.id}/events?cursor=0`, { key });
        expect(res.status).toBe(200);
        return { l, body: await res.json() };
      }),
    );
    for (const { l, body } of reads) {
      expect(body.events).toHaveLength(1);
      expect(body.events[0]).toMatchObject({
        type: 'segment.final', speaker: 'Speaker', src_lang: 'en',
        untrusted_content: { text, text_in_hear_lang: simulatedTranslator.translate(text, 'en', l.hear_lang) },
        meta: { lang: l.hear_lang, participant_id: large.speaker.id },
      });
      // Past the say's say.started too, which only the speaker receives.
      expect(body.cursor).toBe(body.events[0].id + 1);
    }
    // Each listener was billed its listening of the phrase, once.
    const { rows } = await t.pool.query(
      `SELECT count(*)::int AS n, count(DISTINCT billed_seconds)::int AS amounts FROM agent_sessions WHERE room_id = $1 AND id <> $2 AND billed_seconds > 0`,
      [large.roomId, large.speaker.id],
    );
    expect(rows[0]).toEqual({ n: 300, amounts: 1 });
  });
});
