import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { readSse, type Sse } from '../helpers/sse.ts';
import { until } from '../helpers/wait.ts';
import { createEventType } from '../../src/cli/admin.ts';
import { PUBLIC_LIMITS } from '../../src/public-limits.ts';
import { WINDOW_DAYS } from '../../src/bookings/links.ts';
import { mailboxKey } from '../../src/http/quotas.ts';

// What an anonymous visitor of the public pages can make the service do
// (issue: an anonymous mail relay through the booking page, a late joiner
// reading a room's past, floods of joins, streams and phrases): the limits
// of src/http/quotas.ts over real HTTP, shared by two server processes on
// one database. `t` trusts 127.0.0.1 as a reverse proxy (TOLK_TRUSTED_PROXIES),
// so X-Forwarded-For names the client there; `u` trusts no proxy.

let t: TestApp;
let u: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config: { trustedProxies: ['127.0.0.1'] } });
  u = await startTestApp({ db: t.db });
});
afterAll(async () => {
  for (const a of [t, u]) a?.app.server.closeAllConnections();
  await u?.close();
  await t?.close();
});
beforeEach(() => {
  // Each test sets the limits it is about; the others stay the defaults.
  for (const a of [t, u]) a.config.publicLimits = { ...PUBLIC_LIMITS };
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
let n = 0;
/** A client address of its own (through the trusted proxy). */
const client = () => `203.0.113.${++n % 250}`;

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }) as Promise<never>;
}
const get = (url: string, headers: Record<string, string> = {}): Promise<TestResponse> => fetch(url, { headers }) as Promise<never>;

async function host(): Promise<{ page: string; slug: string; orgId: string }> {
  const { orgId } = await t.key({ rpm: 100_000 });
  const page = `host-${crypto.randomUUID().slice(0, 8)}`;
  await t.pool.query(`UPDATE organizations SET owner_email = $2 WHERE id = $1`, [orgId, `${page}@host.example`]);
  await createEventType(t.pool, t.config.publicBaseUrl, { org: orgId, page, slug: 'intro', title: 'Intro call', tz: 'UTC', hours: 'mon-sun 00:00-24:00', duration: 30 });
  return { page, slug: 'intro', orgId };
}

/** Free slots of a link over the next days (the page's own JSON). */
async function slots(h: { page: string; slug: string }, from?: string, to?: string): Promise<string[]> {
  const q = from ? `?from=${from}&to=${to}` : '';
  const res = await get(`${t.url}/book/${h.page}/${h.slug}/slots${q}`);
  expect(res.status).toBe(200);
  return (await res.json()).slots;
}

const guest = (email: string, start: string, name = 'Jane') => ({ start, name, email, speak: 'en', tz: 'Europe/Lisbon' });

async function mailsTo(addr: string): Promise<number> {
  const { rows } = await t.pool.query(`SELECT to_addr FROM mail_outbox`);
  return rows.filter((r) => mailboxKey(r.to_addr) === mailboxKey(addr)).length;
}

async function expectLimited(res: TestResponse, what: RegExp) {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(429);
  expect(body.code).toBe('rate_limited');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(body.error).toMatch(what);
  expect(body.error).toMatch(/try again in \d+ (seconds?|minutes|hours)/);
  return body;
}

describe('mail from the public pages cannot be aimed', () => {
  it('booking and canceling in a loop mails a victim at most the per-recipient limit, however the address is written, from any process', async () => {
    for (const a of [t, u]) a.config.publicLimits = { ...PUBLIC_LIMITS, mailPerClientHour: 1000, mailPerRecipientHour: 5 };
    const h = await host();
    const free = await slots(h);
    const victim = `victim-${crypto.randomUUID().slice(0, 6)}@mail.example`;
    // Variations of one mailbox: case, sub-addresses.
    const forms = [victim, victim.toUpperCase(), victim.replace('@', '+a@'), victim.replace('@', '+b@')];
    let refused: Response | null = null;
    for (let i = 0; i < 10 && !refused; i++) {
      const app = i % 2 ? u : t;
      const res = await post(app.url, `/book/${h.page}/${h.slug}`, guest(forms[i % forms.length]!, free[i]!, `Click http://phish.example/${i}`), { 'x-forwarded-for': client() });
      if (res.status === 429) { refused = res; break; }
      expect(res.status, await res.clone().text()).toBe(201);
      const b = await res.json();
      const token = new URL(b.manage_url).pathname.split('/').pop();
      const cancel = await post(app.url, `/bookings/manage/${token}/cancel`, {}, { 'x-forwarded-for': client() });
      if (cancel.status === 429) { refused = cancel; break; }
      expect(cancel.status).toBe(200);
    }
    expect(refused, 'the loop was never refused').not.toBeNull();
    await expectLimited(refused!, /e-mails to this address/);
    expect(await mailsTo(victim)).toBe(5);
  });

  it('twenty bookings at once for one address: exactly the limit go through, the rest are 429 and leave no booking or mail', async () => {
    t.config.publicLimits = { ...PUBLIC_LIMITS, mailPerClientHour: 1000, mailPerRecipientHour: 4 };
    const h = await host();
    const free = await slots(h);
    const victim = `burst-${crypto.randomUUID().slice(0, 6)}@mail.example`;
    const answers = await Promise.all(free.slice(0, 20).map((start) =>
      post(t.url, `/book/${h.page}/${h.slug}`, guest(victim, start), { 'x-forwarded-for': client() })));
    const codes = answers.map((r) => r.status).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(4);
    expect(codes.filter((c) => c !== 201 && c !== 429)).toEqual([]);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM bookings WHERE lower(guest_email) = $1`, [victim]);
    expect(rows[0].n).toBe(4);
    expect(await mailsTo(victim)).toBe(4);
  });

  it('one client address is limited whatever the recipients; another client behind the same trusted proxy is not', async () => {
    t.config.publicLimits = { ...PUBLIC_LIMITS, mailPerClientHour: 3 };
    const h = await host();
    const free = await slots(h);
    const ip = client();
    for (let i = 0; i < 3; i++) {
      const res = await post(t.url, `/book/${h.page}/${h.slug}`, guest(`r${i}-${ip}@mail.example`, free[i]!), { 'x-forwarded-for': ip });
      expect(res.status).toBe(201);
    }
    await expectLimited(await post(t.url, `/book/${h.page}/${h.slug}`, guest(`r9-${ip}@mail.example`, free[5]!), { 'x-forwarded-for': ip }), /from your network/);
    const other = await post(t.url, `/book/${h.page}/${h.slug}`, guest(`other-${ip}@mail.example`, free[6]!), { 'x-forwarded-for': client() });
    expect(other.status).toBe(201);
  });

  it('without a trusted proxy X-Forwarded-For is ignored: every "client" shares the connection\'s budget', async () => {
    u.config.publicLimits = { ...PUBLIC_LIMITS, joinsPerClientMinute: 2 };
    const { secret } = await t.key({ rpm: 100_000 });
    const res = await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: { visibility: 'public' } });
    const room = await res.json();
    // Through `u` (no trusted proxy), on another database client key than t's 127.0.0.1 tests use.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await post(u.url, `/r/${room.id}/participants`, { name: `P${i}`, speak: 'en', hear: 'en' }, { 'x-forwarded-for': client() })).status);
    }
    expect(statuses).toEqual([201, 201, 429]);
  });

  it('a manage link changes a booking only a few times a day; reschedules mail and count', async () => {
    t.config.publicLimits = { ...PUBLIC_LIMITS, changesPerBookingDay: 2 };
    const h = await host();
    const free = await slots(h);
    const res = await post(t.url, `/book/${h.page}/${h.slug}`, guest(`move-${n}@mail.example`, free[0]!), { 'x-forwarded-for': client() });
    const token = new URL((await res.json()).manage_url).pathname.split('/').pop();
    for (const start of [free[1], free[2]]) {
      expect((await post(t.url, `/bookings/manage/${token}/reschedule`, { start }, { 'x-forwarded-for': client() })).status).toBe(200);
    }
    await expectLimited(await post(t.url, `/bookings/manage/${token}/reschedule`, { start: free[3] }, { 'x-forwarded-for': client() }), /changes to this booking/);
    const { rows } = await t.pool.query(`SELECT start_at FROM bookings WHERE manage_token = $1`, [token]);
    expect(rows[0].start_at.toISOString().replace('.000', '')).toBe(free[2]);
  });

  it('consent codes count against the same per-recipient limit as bookings', async () => {
    t.config.publicLimits = { ...PUBLIC_LIMITS, mailPerRecipientHour: 2 };
    const { secret } = await t.key({ rpm: 100_000 });
    const person = `person-${crypto.randomUUID().slice(0, 6)}@mail.example`;
    const h = await host();
    const free = await slots(h);
    expect((await post(t.url, `/book/${h.page}/${h.slug}`, guest(person, free[0]!), { 'x-forwarded-for': client() })).status).toBe(201);
    // The request mail itself is sent by the organization (an API key), not counted.
    const v = await (await t.request('POST', '/v1/voices', { key: secret, headers: idem(), body: { name: 'V', language: 'en', person: { name: 'P', email: person } } })).json();
    const token = new URL(v.consent_url).pathname.split('/').pop();
    expect((await post(t.url, `/consent/${token}/code`, {}, { 'x-forwarded-for': client() })).status).toBe(200);
    // A second code (after the resend wait) would be the third mail of the hour.
    await t.pool.query(`UPDATE voices SET code_sent_at = now() - interval '1 hour' WHERE id = $1`, [v.id]);
    await expectLimited(await post(t.url, `/consent/${token}/code`, {}, { 'x-forwarded-for': client() }), /e-mails to this address/);
  });
});

describe('what reaches a mail or a page is one line', () => {
  it('a name or title with a line break or control character is refused naming the field, everywhere', async () => {
    const { secret } = await t.key({ rpm: 100_000 });
    const h = await host();
    const free = await slots(h);
    const evil = 'Evil\r\nBcc: victim@mail.example';
    const page = await post(t.url, `/book/${h.page}/${h.slug}`, guest('g@mail.example', free[0]!, evil), { 'x-forwarded-for': client() });
    expect(page.status).toBe(400);
    expect((await page.json()).field).toBe('name');
    const checks: Array<[string, string, unknown, string]> = [
      ['POST', '/v1/bookings', { page: h.page, event: h.slug, start: free[1], guest: { name: evil, email: 'g@mail.example', speak: 'en' } }, 'guest.name'],
      ['POST', '/v1/rooms', { title: 'Stand\nup' }, 'title'],
      ['POST', '/v1/meetings', { title: 'A\u0007', starts_at: free[2] }, 'title'],
      ['POST', '/v1/voices', { name: 'V', language: 'en', person: { name: 'P\u202eevil', email: 'p@mail.example' } }, 'person.name'],
      ['POST', '/v1/voices', { name: 'V', language: 'en', person: { name: 'P', email: 'p@mail.example' }, purpose: 'Support\r\nBcc: x@mail.example' }, 'purpose'],
    ];
    for (const [method, path, body, field] of checks) {
      const res = await t.request(method, path, { key: secret, headers: idem(), body });
      const p = await res.json();
      expect(res.status, path).toBe(400);
      expect(p.message, path).toMatch(new RegExp(`^${field.replace('.', '\\.')}: .*one line`));
    }
    const r = await (await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: { visibility: 'public' } })).json();
    const join = await post(t.url, `/r/${r.id}/participants`, { name: 'A\nB', speak: 'en', hear: 'en' }, { 'x-forwarded-for': client() });
    expect(join.status).toBe(400);
    expect((await join.json()).field).toBe('name');
    expect(await mailsTo('victim@mail.example')).toBe(0);
  });
});

describe('a booking is inside the window the page offers', () => {
  it(`slots and bookings end ${WINDOW_DAYS} days ahead; two years ahead is refused naming start`, async () => {
    const { secret } = await t.key({ rpm: 100_000 });
    const h = await host();
    const day = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
    expect(await slots(h, day(WINDOW_DAYS + 1), day(WINDOW_DAYS + 20))).toEqual([]);
    const last = await slots(h, day(WINDOW_DAYS - 2), day(WINDOW_DAYS + 1));
    expect(last.length).toBeGreaterThan(0);
    const end = Date.now() + WINDOW_DAYS * 86_400_000;
    expect(Date.parse(last.at(-1)!)).toBeLessThan(end);
    const far = new Date(Date.now() + 730 * 86_400_000);
    far.setUTCHours(10, 0, 0, 0);
    const res = await post(t.url, `/book/${h.page}/${h.slug}`, guest('far@mail.example', far.toISOString()), { 'x-forwarded-for': client() });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ field: 'start', error: expect.stringMatching(/too far ahead/) });
    const api = await t.request('POST', '/v1/bookings', { key: secret, headers: idem(), body: { page: h.page, event: h.slug, start: far.toISOString(), guest: { name: 'G', email: 'far@mail.example', speak: 'en' } } });
    expect(api.status).toBe(400);
    expect((await api.json()).message).toMatch(/^start: .*too far ahead/);
    // The last slot the window offers can be booked.
    expect((await post(t.url, `/book/${h.page}/${h.slug}`, guest('last@mail.example', last.at(-1)!), { 'x-forwarded-for': client() })).status).toBe(201);
  });
});

/** A page's stream, read until closed: its events as they arrive. */
function stream(base: string, roomId: string, p: { id: string; secret: string }, o: { after?: number; lastEventId?: string } = {}) {
  const events: Sse[] = [];
  const ctl = new AbortController();
  const status = (async () => {
    const q = o.after !== undefined ? `&after=${o.after}` : '';
    const res = (await fetch(`${base}/r/${roomId}/stream?participant=${p.id}&secret=${p.secret}${q}`, {
      signal: ctl.signal, headers: o.lastEventId !== undefined ? { 'last-event-id': o.lastEventId } : {},
    })) as unknown as TestResponse & { body: ReadableStream<Uint8Array> };
    if (res.status !== 200) return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
    void readSse(res.body, (e) => events.push(e));
    return { status: 200, body: null, retryAfter: null };
  })();
  const phrases = () => events.filter((e) => e.event === 'phrase').map((e) => e.data);
  return { events, phrases, status, close: () => ctl.abort() };
}

const waitFor = <T>(what: string, f: () => T | undefined | null | false, ms = 5000): Promise<T> =>
  until(what, async () => f(), { timeoutMs: ms, intervalMs: 20, retryErrors: false });

async function publicRoom(body: Record<string, unknown> = {}) {
  const { secret, orgId } = await t.key({ rpm: 100_000 });
  const res = await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: { visibility: 'public', langs: ['en', 'pt'], ...body } });
  expect(res.status).toBe(201);
  return { room: await res.json(), secret, orgId };
}

async function joinRoom(base: string, roomId: string, body: Record<string, unknown> = {}, ip = client()) {
  return post(base, `/r/${roomId}/participants`, { name: 'Ana', speak: 'en', hear: 'pt', ...body }, { 'x-forwarded-for': ip });
}

async function joined(roomId: string, body: Record<string, unknown> = {}): Promise<any> {
  const res = await joinRoom(t.url, roomId, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

describe('a participant reads from their join onward', () => {
  it('a late joiner cannot read what was said before, whatever after or Last-Event-ID says; a reconnect resumes exactly', async () => {
    const { room } = await publicRoom();
    const first = await joined(room.id, { name: 'First' });
    for (let i = 0; i < 5; i++) {
      expect((await post(t.url, `/r/${room.id}/say`, { participant: first.id, secret: first.secret, text: `early ${i}` })).status).toBe(202);
    }
    const late = await joined(room.id, { name: 'Late' });
    expect(late.cursor).toBeGreaterThanOrEqual(5);
    for (const o of [{ after: 0 }, { lastEventId: '0' }, { after: 0, lastEventId: '1' }, {}]) {
      const s = stream(t.url, room.id, late, o);
      expect((await s.status).status).toBe(200);
      await waitFor('the participants list', () => s.events.find((e) => e.event === 'participants'));
      expect(s.phrases().map((p) => p.original)).toEqual([]);
      s.close();
    }
    // Said after the join: read, and a reconnect from the first one resumes with the next, nothing lost or repeated.
    for (let i = 0; i < 3; i++) await post(t.url, `/r/${room.id}/say`, { participant: first.id, secret: first.secret, text: `later ${i}` });
    const s1 = stream(t.url, room.id, late, { lastEventId: '0' });
    const got = await waitFor('three phrases', () => s1.phrases().length >= 3 && s1.phrases());
    expect(got.map((p) => p.original)).toEqual(['later 0', 'later 1', 'later 2']);
    s1.close();
    const s2 = stream(t.url, room.id, late, { lastEventId: String(got[0].seq) });
    const again = await waitFor('two phrases', () => s2.phrases().length >= 2 && s2.phrases());
    // One said now comes next on the stream, in order: a phrase repeated would have come before it.
    await post(t.url, `/r/${room.id}/say`, { participant: first.id, secret: first.secret, text: 'later 3' });
    await waitFor('the phrase said now', () => s2.phrases().some((p) => p.original === 'later 3'));
    expect(s2.phrases().map((p) => p.original)).toEqual(['later 1', 'later 2', 'later 3']);
    expect(again[0].seq).toBe(got[1].seq);
    s2.close();
  });
});

describe('caps on anonymous use of public rooms', () => {
  it('joins per client a minute: a flood is refused before it becomes webhook events; other clients still join', async () => {
    t.config.publicLimits = { ...PUBLIC_LIMITS, joinsPerClientMinute: 3 };
    const { room } = await publicRoom();
    const ip = client();
    const codes = await Promise.all(Array.from({ length: 12 }, (_, i) => joinRoom(t.url, room.id, { name: `P${i}` }, ip).then((r) => r.status)));
    expect(codes.filter((c) => c === 201)).toHaveLength(3);
    expect(codes.filter((c) => c === 429)).toHaveLength(9);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM outbox WHERE type = 'room.participant_joined' AND data->'object'->>'room_id' = $1`, [room.id]);
    expect(rows[0].n).toBe(3);
    expect((await joinRoom(t.url, room.id, { name: 'Other' })).status).toBe(201);
  });

  it('a room holds at most its participants and languages; someone leaving makes room', async () => {
    t.config.publicLimits = { ...PUBLIC_LIMITS, participantsPerRoom: 3, languagesPerRoom: 2 };
    const { room } = await publicRoom();
    const a = await joined(room.id, { hear: 'pt' });
    await joined(room.id, { hear: 'de' });
    const third = await joinRoom(t.url, room.id, { hear: 'fr' });
    expect(third.status).toBe(409);
    expect((await third.json()).error).toMatch(/^hear: .*2 languages.*de, pt/);
    await joined(room.id, { hear: 'pt' });
    const full = await joinRoom(t.url, room.id, { hear: 'pt' });
    expect(full.status).toBe(409);
    expect((await full.json()).error).toMatch(/room is full/);
    expect((await post(t.url, `/r/${room.id}/leave`, { participant: a.id, secret: a.secret })).status).toBe(200);
    expect((await joinRoom(t.url, room.id, { hear: 'de' })).status).toBe(201);
  });

  it('forty joins racing on two processes never pass the participants cap', async () => {
    for (const a of [t, u]) a.config.publicLimits = { ...PUBLIC_LIMITS, joinsPerClientMinute: 1000, joinsPerRoomMinute: 1000, participantsPerRoom: 7 };
    const { room } = await publicRoom();
    const codes = await Promise.all(Array.from({ length: 40 }, (_, i) => joinRoom(i % 2 ? u.url : t.url, room.id, { name: `R${i}` }).then((r) => r.status)));
    expect(codes.filter((c) => c === 201)).toHaveLength(7);
    expect(codes.filter((c) => c !== 201 && c !== 409)).toEqual([]);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM room_participants WHERE room_id = $1 AND left_at IS NULL`, [room.id]);
    expect(rows[0].n).toBe(7);
  });

  it('streams per participant across processes: one too many is 429; closing one lets another open', async () => {
    t.config.publicLimits = { ...PUBLIC_LIMITS, streamsPerParticipant: 2 };
    u.config.publicLimits = { ...PUBLIC_LIMITS, streamsPerParticipant: 2 };
    const { room } = await publicRoom();
    const p = await joined(room.id);
    const s1 = stream(t.url, room.id, p);
    const s2 = stream(u.url, room.id, p);
    expect((await s1.status).status).toBe(200);
    expect((await s2.status).status).toBe(200);
    const s3 = stream(t.url, room.id, p);
    const refused = await s3.status;
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    s1.close();
    // Its row goes as its connection closes: the next one opens (on the other process).
    await until('a stream let open', async () => (await stream(u.url, room.id, p).status).status === 200, { timeoutMs: 2_500, intervalMs: 50, retryErrors: false });
  });

  it('phrases per participant a minute: the next one is 429 with Retry-After and is not in the room', async () => {
    t.config.publicLimits = { ...PUBLIC_LIMITS, phrasesPerParticipantMinute: 3 };
    const { room } = await publicRoom();
    const p = await joined(room.id);
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await post(t.url, `/r/${room.id}/say`, { participant: p.id, secret: p.secret, text: `phrase ${i}` })).status);
    expect(codes).toEqual([202, 202, 202, 429, 429]);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM room_segments WHERE room_id = $1 AND kind = 'person'`, [room.id]);
    expect(rows[0].n).toBe(3);
    // Another person in the room still speaks.
    const q = await joined(room.id, { name: 'Bo' });
    expect((await post(t.url, `/r/${room.id}/say`, { participant: q.id, secret: q.secret, text: 'hello' })).status).toBe(202);
  });

  it('TOLK_ANONYMOUS_JOIN=off: a public room needs a join link like a private one', async () => {
    const off = await startTestApp({ db: t.db, config: { anonymousJoin: false } });
    try {
      const { room, secret } = await publicRoom();
      const plain = await joinRoom(off.url, room.id);
      expect(plain.status).toBe(401);
      expect((await plain.json()).error).toMatch(/join link/);
      const page = await get(`${off.url}/r/${room.id}`);
      expect(page.status).toBe(403);
      const link = await (await t.request('POST', `/v1/rooms/${room.id}/join-links`, { key: secret, body: { name: 'Ana' } })).json();
      const tok = new URL(link.url).searchParams.get('t')!;
      expect((await fetch(`${off.url}/r/${room.id}?t=${encodeURIComponent(tok)}`)).status).toBe(200);
      expect((await joinRoom(off.url, room.id, { t: tok })).status).toBe(201);
    } finally {
      off.app.server.closeAllConnections();
      await off.close();
    }
  });
});

describe('the anonymous budget is one across processes', () => {
  it('two processes together allow exactly the per-client budget a minute', async () => {
    const a = await startTestApp({ db: t.db, config: { publicLimits: { ...PUBLIC_LIMITS, anonymousPerMinute: 10 }, trustedProxies: ['127.0.0.1'] } });
    const b = await startTestApp({ db: t.db, config: { publicLimits: { ...PUBLIC_LIMITS, anonymousPerMinute: 10 }, trustedProxies: ['127.0.0.1'] } });
    try {
      const ip = `198.51.100.${Date.now() % 200}`;
      const codes = await Promise.all(Array.from({ length: 30 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/docs/errors`, { headers: { 'x-forwarded-for': ip } }).then((r) => r.status)));
      // The minute may turn during the burst: then at most twice the budget.
      const ok = codes.filter((c) => c === 200).length;
      expect([10, 20]).toContain(ok);
      expect(codes.filter((c) => c !== 200 && c !== 429)).toEqual([]);
      // A person's browser is told in a page, with Retry-After.
      for (let i = 0; i < 25; i++) await get(`${a.url}/docs/errors`, { 'x-forwarded-for': ip });
      const page = await get(`${b.url}/book/nobody/nothing`, { 'x-forwarded-for': ip, accept: 'text/html,application/xhtml+xml' });
      expect(page.status).toBe(429);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await page.text()).toMatch(/<h1>Too many requests<\/h1>.*try again in \d+ seconds?/s);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
