import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { readSse, type Sse } from '../helpers/sse.ts';
import { withTx } from '../../src/db/pool.ts';

// The room page's feed (src/rooms/stream.ts) as things are said, over real
// HTTP on a real database: who starts and stops talking, another person's
// words so far (untranslated, with the segment id their phrase then
// carries), never a person's own words so far, and never a say's progress
// (the sessions' event, not the page's).

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  // The feeds' connections are cut however the close goes: a loaded CI machine still had its close
  // wait on one (a connection this file's aborted fetches leave behind), after the server's own fix
  // for connections that never sent a request (src/http/quiet-connections.ts).
  const sweep = setInterval(() => t?.app.server.closeAllConnections(), 200);
  try {
    t?.app.server.closeAllConnections();
    await t?.close();
  } finally {
    clearInterval(sweep);
  }
});

async function joined(roomId: string, body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${t.url}/r/${roomId}/participants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json() as Promise<{ id: string; secret: string }>;
}

function stream(roomId: string, p: { id: string; secret: string }) {
  const events: Sse[] = [];
  const ctl = new AbortController();
  void fetch(`${t.url}/r/${roomId}/stream?participant=${p.id}&secret=${p.secret}`, { signal: ctl.signal })
    .then((res) => readSse(res.body!, (e) => events.push(e)))
    .catch(() => {});
  return { events, close: () => ctl.abort() };
}

describe('the room page hears people as they talk', () => {
  it('others see speech activity and words so far, replaced by the phrase of the same segment id; the speaker sees no partial; says\' progress stays out', async () => {
    const k = await t.key({ rpm: 100_000 });
    const res = await t.request('POST', '/v1/rooms', { key: k.secret, headers: { 'idempotency-key': crypto.randomUUID() }, body: { langs: ['en', 'pt'], visibility: 'public' } });
    expect(res.status).toBe(201);
    const roomId = (await res.json()).id as string;
    const ana = await joined(roomId, { name: 'Ana', speak: 'en', hear: 'pt' });
    const bea = await joined(roomId, { name: 'Bea', speak: 'pt', hear: 'en' });
    const feeds = { ana: stream(roomId, ana), bea: stream(roomId, bea) };
    await until('both pages listed', async () => Object.values(feeds).every((f) => f.events.some((e) => e.event === 'participants')), 5000);

    const segmentId = 'seg_live_feed_1';
    const signal = (fn: (tx: Parameters<typeof t.reactions.speechActivity>[1]) => Promise<unknown>) => withTx(t.pool, async (tx) => { await fn(tx); });
    await signal((tx) => t.reactions.speechActivity(t.services, tx, { logId: roomId, speaker: 'Ana', participantId: ana.id, kind: 'started' }));
    for (const text of ['Good', 'Good morning']) {
      await signal((tx) => t.reactions.partialHeard(t.services, tx, { logId: roomId, speaker: 'Ana', participantId: ana.id, srcLang: 'en', segmentId, text }));
    }
    // A say's progress of some session of the room: not the page's.
    await signal((tx) => t.reactions.sayProgress(t.services, tx, { logId: roomId, sessionId: 'ses_live_feed', utteranceId: 'utt_live_feed', kind: 'started', spokenMs: 0 }));
    await signal((tx) => t.reactions.speechActivity(t.services, tx, { logId: roomId, speaker: 'Ana', participantId: ana.id, kind: 'stopped' }));
    await signal((tx) => t.reactions.personSaid(t.services, tx, { logId: roomId, participantId: ana.id, speaker: 'Ana', lang: 'en', text: 'Good morning, everyone.', segmentId }));

    const live = (f: { events: Sse[] }) => f.events.filter((e) => ['speech', 'partial', 'phrase'].includes(e.event)).filter((e) => e.event !== 'phrase' || e.data.speaker === 'Ana');
    for (const f of Object.values(feeds)) await until('Ana\'s phrase', async () => live(f).some((e) => e.event === 'phrase'), 10_000);

    // Bea: Ana talking, her words so far as heard (in English, untranslated), her stop, then her phrase under the partials' segment id.
    const b = live(feeds.bea);
    expect(b.map((e) => e.event)).toEqual(['speech', 'partial', 'partial', 'speech', 'phrase']);
    expect(b[0]!.data).toMatchObject({ state: 'started', participant_id: ana.id, speaker: 'Ana' });
    expect(b.slice(1, 3).map((e) => e.data)).toEqual([
      expect.objectContaining({ segment_id: segmentId, participant_id: ana.id, speaker: 'Ana', src_lang: 'en', text: 'Good' }),
      expect.objectContaining({ segment_id: segmentId, text: 'Good morning' }),
    ]);
    expect(b[3]!.data).toMatchObject({ state: 'stopped', participant_id: ana.id });
    expect(b[4]!.data).toMatchObject({ segment_id: segmentId, original: 'Good morning, everyone.', own: false });
    // Each carries its log number, so a page that reconnects resumes after it.
    expect(b.map((e) => Number(e.id))).toEqual(b.map((e) => e.data.seq));
    // Ana: her own activity and her phrase, never her own words so far (her microphone's socket showed them).
    const a = live(feeds.ana);
    expect(a.map((e) => e.event)).toEqual(['speech', 'speech', 'phrase']);
    expect(a[2]!.data).toMatchObject({ segment_id: segmentId, own: true });
    // The say's progress reached neither page.
    const seqs = new Set(Object.values(feeds).flatMap((f) => f.events.filter((e) => e.id !== undefined).map((e) => Number(e.id))));
    const { rows } = await t.pool.query(`SELECT seq FROM room_segments WHERE room_id = $1 AND kind = 'say.started'`, [roomId]);
    expect(rows).toHaveLength(1);
    expect(seqs.has(Number(rows[0].seq))).toBe(false);
    for (const f of Object.values(feeds)) f.close();
  });
});
