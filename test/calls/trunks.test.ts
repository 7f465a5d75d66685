import { createSocket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp, type TestDb, createTestDatabase } from '../helpers/app.ts';
import { finished, startSipp, wire, type Sipp, evenFreePort } from '../helpers/sipp.ts';
import { startCarrier, type Carrier } from '../helpers/carrier.ts';
import { until } from '../helpers/wait.ts';
import { withApertium } from '../helpers/apertium.ts';
import { addTrunk, listTrunks } from '../../src/cli/trunk.ts';
import { addNumber } from '../../src/cli/admin.ts';
import { roomPeople } from '../../src/rooms/participants.ts';
import { freeUdpPort } from '../../gateway/sip-stack.ts';
import { disclosure } from '../../src/i18n/disclosure.ts';
import { saidInOrder, words } from '../../src/engines/speech/wer.ts';
import { startElevenLabs, type FakeSpeechServer } from '../helpers/fake-speech.ts';

// Live calls through a carrier's SIP trunk, end to end: Kamailio plays the
// carrier (digest 407 challenges against the trunk's credentials, the caller
// id required in the header the trunk names, OPTIONS answered) and SIPp the
// called phone behind it, echoing our audio. Real translation (Apertium),
// real speech (Pico speaks, PocketSphinx hears), real money (the
// organization's live balance).

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });

const REALM = 'carrier.test';
const USER = 'tolk-trunk';
const PASSWORD = 'correct horse battery';
const N = {
  main: '+12125550101', // caller id in P-Asserted-Identity
  paced: '+12125550102', // caller id in From, 2 calls per second
  slow: '+12125550103', // one call every 20 s
  wrong: '+12125550104', // a wrong password
  poor: '+12125550105', // another organization, with a tiny balance
  tcp: '+12125550106', // over TCP through an outbound proxy, the number as digits
  hidden: '+12125550107', // caller id in P-Asserted-Identity with Privacy: id
};

const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
const clock = () => new Date(Date.now() + offset);
const secretKey = randomBytes(32);

let db: TestDb;
let t: TestApp;
let carrier: Carrier;
let sippAddress: string;
const live = { orgId: '', secret: '', test: '' };
const numbers: Record<keyof typeof N, string> = { main: '', paced: '', slow: '', wrong: '', poor: '', tcp: '', hidden: '' };
const trunks: Record<string, string> = {};
let poorKey = '';
let eleven: FakeSpeechServer;
/** The provider's id of a live cloned voice of the organization. */
const CLONE = 'cloneOfTheAgentVoice01';


beforeAll(async () => {
  db = await createTestDatabase();
  sippAddress = `127.0.0.1:${await freeUdpPort('127.0.0.1')}`;
  carrier = await startCarrier({
    next: sippAddress, username: USER, password: PASSWORD, realm: REALM,
    numbers: [
      { e164: N.main, header: 'pai' }, { e164: N.paced, header: 'from' }, { e164: N.slow, header: 'from' },
      { e164: N.wrong, header: 'from' }, { e164: N.poor, header: 'from' }, { e164: N.tcp, header: 'from' },
      { e164: N.hidden, header: 'pai' },
    ],
  });
  // ElevenLabs (a local server answering as its API does) speaks cloned voices only; Pico comes first for the rest.
  eleven = await startElevenLabs({ apiKey: 'xi-test', voices: [CLONE], ms: 1_500 });
  t = await startTestApp({
    db, workers: true, clock,
    config: {
      ...withApertium(), recognize: [{ name: 'pocketsphinx' }], speechEngines: ['pico', `elevenlabs=${eleven.url}`],
      speechKeys: { elevenlabs: 'xi-test', openaiSttModel: 'whisper-1', openaiTtsModel: 'tts-1', voskLangs: ['en'] },
      secretKey, trunkPingSeconds: 0.5, ringTimeoutSeconds: 10,
      // PocketSphinx decodes at nice 10: beside the rest of a fresh machine's first run it can need
      // more than the default 10 s (plus the speech) for the echoed disclosure, and the line must stay
      // up meanwhile (the echo stops with the disclosure).
      recognizeTimeoutMs: 30_000, mediaTimeoutSeconds: 120,
    },
  });
  const k = await t.key({ mode: 'live', minutes: 10, rpm: 100_000 });
  live.orgId = k.orgId;
  live.secret = k.secret;
  live.test = (await t.key({ mode: 'test', org: k.orgId, rpm: 100_000 })).secret;
  const uri = `sip:${carrier.address}`;
  const trunk = async (name: string, o: Partial<Parameters<typeof addTrunk>[2]>, org = live.orgId) =>
    (trunks[name] = (await addTrunk(t.pool, secretKey, { org, uri, username: USER, password: PASSWORD, realm: REALM, ...o })).id);
  await trunk('main', { callerId: 'pai' });
  await trunk('paced', { maxCps: 2 });
  await trunk('slow', { maxCps: 0.05 });
  await trunk('wrong', { password: 'not the password' });
  numbers.main = (await addNumber(t.pool, { org: live.orgId, e164: N.main, default: true, trunk: trunks.main })).id;
  numbers.paced = (await addNumber(t.pool, { org: live.orgId, e164: N.paced, trunk: trunks.paced })).id;
  numbers.slow = (await addNumber(t.pool, { org: live.orgId, e164: N.slow, trunk: trunks.slow })).id;
  numbers.wrong = (await addNumber(t.pool, { org: live.orgId, e164: N.wrong, trunk: trunks.wrong })).id;
  // A trunk named by a host name that resolves nowhere: every request goes to its outbound proxy (the carrier), over TCP.
  await trunk('tcp', { uri: 'sip:sip.carrier.invalid;transport=tcp', proxy: `sip:${carrier.address};transport=tcp`, numberFormat: 'digits' });
  numbers.tcp = (await addNumber(t.pool, { org: live.orgId, e164: N.tcp, trunk: trunks.tcp })).id;
  await trunk('hidden', { callerId: 'pai', privacy: true });
  numbers.hidden = (await addNumber(t.pool, { org: live.orgId, e164: N.hidden, trunk: trunks.hidden })).id;
  // Another organization, its own trunk, six seconds of balance.
  const poor = await t.key({ mode: 'live', minutes: 0.1, rpm: 100_000 });
  poorKey = poor.secret;
  await trunk('poor', {}, poor.orgId);
  numbers.poor = (await addNumber(t.pool, { org: poor.orgId, e164: N.poor, default: true, trunk: trunks.poor })).id;
  // Every trunk answered its first OPTIONS.
  await until('the trunks up', async () => (await listTrunks(t.pool, live.orgId)).data.every((x) => x.state === 'up'), { timeoutMs: 10_000, intervalMs: 100 });
});

afterAll(async () => {
  await t?.close();
  await eleven?.close();
  await carrier?.stop();
  await db?.drop();
});

/** The phones and calls of the test under way: a test that fails midway lets them go, so its retry and the next tests find the phone's address free. */
const phones: Sipp[] = [];
const placedCalls: Array<{ id: string; key: string }> = [];
afterEach(async () => {
  for (const c of placedCalls.splice(0)) await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: c.key }).catch(() => undefined);
  for (const p of phones.splice(0)) await p.stop();
});

async function phone(): Promise<Sipp> {
  // Its media ports (an even one for audio, the next even one for video) are chosen at each start: another
  // process of a busy machine may have taken one since, which SIPp says at once (errno 98), and the phone
  // starts again on others.
  for (let tries = 1; ; tries++) {
    try {
      const p = await startSipp({
        scenario: new URL('../../gateway/sipp/proxied-answer-echo-wait-bye.xml', import.meta.url).pathname,
        // The call lasts until the recognizer has read what the phone echoed: a loaded machine takes past SIPp's default 30 s.
        listen: sippAddress, extraArgs: ['-rtp_echo', '-mp', String(await evenFreePort()), '-timeout', '90s'],
      });
      phones.push(p);
      return p;
    } catch (err) {
      if (tries >= 5 || !/Address already in use/.test((err as Error).message)) throw err;
    }
  }
}

async function place(body: Record<string, unknown>, key = live.secret) {
  const res = await t.request('POST', '/v1/calls', {
    key, headers: { 'idempotency-key': crypto.randomUUID() },
    body: { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' }, agent_lang: 'es', remote_lang: 'en', ...body },
  });
  const placed = { status: res.status, body: await res.json() };
  if (placed.status === 201) placedCalls.push({ id: placed.body.id, key });
  return placed;
}

const get = async (id: string, key = live.secret) => (await (await t.request('GET', `/v1/calls/${id}`, { key })).json());
const untilStatus = (id: string, statuses: string[], key = live.secret, timeoutMs = 20_000) =>
  until(`call in ${statuses.join('/')}`, async () => { const c = await get(id, key); return statuses.includes(c.status) ? c : null; }, { timeoutMs, intervalMs: 100 });
const balance = async (key: string) => (await (await t.request('GET', '/v1/balance', { key })).json());

describe('a live call through the trunk', () => {
  it('is challenged, answers with the trunk\'s credentials, asserts the caller id, and is heard, translated and billed for real', async () => {
    const sipp = await phone();
    const carrierLines = carrier.lines().length;
    const before = await balance(live.secret);
    const placed = await place({});
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    expect(placed.body).toMatchObject({ livemode: true, from: N.main });
    await untilStatus(placed.body.id, ['answered']);
    // The echo brings our disclosure back: PocketSphinx reads the English, Apertium gives the agent Spanish.
    // A loaded machine's recognizer may cut the disclosure into more than one phrase: what the callee said is all of them.
    const expected = words(disclosure('Tolk Assistant', 'en'));
    type Final = { type: string; speaker: string; untrusted_content: { text?: string; text_in_hear_lang?: string } };
    let said = 0;
    const finals = await until('the callee heard', async () => {
      const all = await (await t.request('GET', `/v1/sessions/${placed.body.session_id}/events?cursor=0`, { key: live.secret })).json();
      const mine: Final[] = (all.events ?? []).filter((e: Final) => e.type === 'segment.final' && e.speaker === 'Callee');
      said = saidInOrder(expected, words(mine.map((e) => e.untrusted_content.text ?? '').join(' ')));
      return said > 0.3 ? mine : null;
    }, { timeoutMs: 60_000, intervalMs: 200, detail: () => `words of the disclosure heard in order: ${said.toFixed(2)}` });
    const heard = finals[0]!;
    expect(heard.untrusted_content.text_in_hear_lang).not.toBe(heard.untrusted_content.text);
    expect(heard.untrusted_content.text_in_hear_lang).not.toMatch(/\[en→es\]/);
    const ended = await (await t.request('POST', `/v1/calls/${placed.body.id}/hangup`, { key: live.secret })).json();
    expect(ended).toMatchObject({ status: 'completed', end_reason: 'agent_hangup', sip_code: 200 });
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);

    // At the carrier: one challenge, then the INVITE with credentials.
    expect(carrier.lines().slice(carrierLines).map((l) => l.what)).toEqual(['challenge', 'authenticated']);
    // At the phone: the caller id in P-Asserted-Identity, From the trunk's account, the number in E.164.
    const invite = wire(r.trace).find((m) => m.startLine.startsWith('INVITE'))!;
    expect(invite.header('P-Asserted-Identity')).toBe(`<sip:${N.main}@127.0.0.3>`);
    expect(invite.header('From')).toContain(`sip:${USER}@127.0.0.3`);
    expect(invite.startLine).toContain('sip:+14155550142@');
    // The credentials were the carrier's to check and consume: none reach the phone.
    expect(invite.header('Proxy-Authorization')).toBeUndefined();
    expect(invite.text).not.toContain(PASSWORD);

    // Billed from the live balance: the call's billed seconds, once.
    const call = await get(placed.body.id);
    expect(call.billed_seconds).toBeGreaterThan(0);
    const after = await balance(live.secret);
    expect(before.seconds_left - after.seconds_left).toBeGreaterThanOrEqual(Math.floor(call.billed_seconds) - 1);
    expect(before.seconds_left - after.seconds_left).toBeLessThanOrEqual(Math.ceil(call.billed_seconds) + 1);
  });

  it('the next call reuses the trunk\'s nonce with the next count: not challenged again', async () => {
    const n = carrier.lines().length;
    const placed = await place({ to: '+14155550100' });
    const c = await untilStatus(placed.body.id, ['busy']);
    expect(c).toMatchObject({ sip_code: 486, sip_reason: 'Busy Here' });
    expect(carrier.lines().slice(n).map((l) => l.what)).toEqual(['authenticated']);
  });

  it('over TCP through an outbound proxy, the number as digits: the carrier gets it with the trunk\'s host in the Request-URI', async () => {
    const n = carrier.lines().length;
    const placed = await place({ from: numbers.tcp, to: '+14155550100' });
    const c = await untilStatus(placed.body.id, ['busy']);
    expect(c).toMatchObject({ sip_code: 486 });
    const got = carrier.lines().slice(n).find((l) => l.what === 'authenticated');
    expect(got).toMatchObject({ user: '14155550100', transport: 'tcp', host: 'sip.carrier.invalid', fromUser: N.tcp, privacy: '<null>' });
  });

  it('with privacy: the caller id only in P-Asserted-Identity (which the carrier checked), Privacy: id, From anonymous', async () => {
    const n = carrier.lines().length;
    const placed = await place({ from: numbers.hidden, to: '+14155550100' });
    await untilStatus(placed.body.id, ['busy']);
    const got = carrier.lines().slice(n).find((l) => l.what === 'authenticated');
    expect(got).toMatchObject({ fromUser: 'anonymous', privacy: 'id' });
  });

  it('wrong credentials: challenged twice, then the call fails with the carrier\'s 407', async () => {
    const n = carrier.lines().length;
    const placed = await place({ from: numbers.wrong, to: '+14155550100' });
    const c = await untilStatus(placed.body.id, ['failed']);
    expect(c).toMatchObject({ sip_code: 407, end_reason: 'failed' });
    expect(carrier.lines().slice(n).map((l) => l.what)).toEqual(['challenge', 'challenge']);
  });

  it('the caller id in From when the trunk says so; two calls per second at most, shared by every call of the trunk', async () => {
    const n = carrier.lines().length;
    const placed = await Promise.all([1, 2, 3, 4].map(() => place({ from: numbers.paced, to: '+14155550100' })));
    for (const p of placed) expect(p.status, JSON.stringify(p.body)).toBe(201);
    for (const p of placed) await untilStatus(p.body.id, ['busy']);
    const arrived = carrier.lines().slice(n).filter((l) => l.what === 'authenticated').map((l) => l.at).sort((a, b) => a - b);
    expect(arrived.length).toBe(4);
    // Four INVITEs at 2 per second span 1.5 s at least (a challenge first makes it longer, never shorter).
    expect(arrived[3]! - arrived[0]!).toBeGreaterThanOrEqual(1400);
    // Never three in one second (the carrier's count), with 100 ms for a send that ran late on a busy
    // machine; one running late shortens the gap to the next, whose slot was 500 ms after its own.
    for (let i = 2; i < 4; i++) expect(arrived[i]! - arrived[i - 2]!).toBeGreaterThanOrEqual(900);
    for (let i = 1; i < 4; i++) expect(arrived[i]! - arrived[i - 1]!).toBeGreaterThanOrEqual(300);
  });

  it('a call that would wait longer than the pacing allows fails trunk_busy at once; one that waits can be hung up before its INVITE', async () => {
    // The trunk's slots as new (a retry of this test starts where the last one left them).
    await t.pool.query(`UPDATE trunks SET next_invite_at = NULL WHERE id = $1`, [trunks.slow]);
    // Three at once on a trunk of one call every 20 s, with 30 s of waiting allowed: whichever is
    // dialed first goes now, the next waits 20 s for its slot, the last would wait 40 s and fails.
    const placed = await Promise.all([1, 2, 3].map(() => place({ from: numbers.slow, to: '+14155550100' })));
    const ids = placed.map((p) => p.body.id as string);
    const busy = await until('one call refused by the pacing', async () => {
      for (const id of ids) {
        const c = await get(id);
        if (c.status === 'failed') return c;
      }
      return null;
    }, { timeoutMs: 15_000, intervalMs: 100 });
    expect(busy).toMatchObject({ end_reason: 'trunk_busy', sip_code: null });
    const through = await until('one call through at once', async () => {
      for (const id of ids) if ((await get(id)).status === 'busy') return id;
      return null;
    }, { timeoutMs: 15_000, intervalMs: 100 });
    const second = { body: { id: ids.find((id) => id !== busy.id && id !== through)! } };
    expect((await get(second.body.id)).status).toBe('queued');
    const n = carrier.lines().length;
    const hung = await (await t.request('POST', `/v1/calls/${second.body.id}/hangup`, { key: live.secret })).json();
    expect(hung).toMatchObject({ status: 'no_answer', end_reason: 'agent_hangup' });
    expect(carrier.lines().length).toBe(n);
  });
});

describe('a live call in a cloned voice', () => {
  it('the agent speaks on the line with the provider\'s voice of the call\'s voice_id', async () => {
    // A live clone made ready by the consent flow (test/voices/live-cloning.test.ts covers how): its row as that flow leaves it.
    const voiceId = `voice_${randomBytes(8).toString('hex')}`;
    const { rows: [key] } = await t.pool.query(`SELECT id FROM api_keys WHERE org_id = $1 AND mode = 'live' LIMIT 1`, [live.orgId]);
    await t.pool.query(
      `INSERT INTO voices (id, org_id, livemode, credential_id, name, language, person_name, person_email, status, consent_token, link_expires_at, provider, provider_voice_id)
       VALUES ($1, $2, true, $3, 'Agent', 'en', 'Ana', 'ana@example.com', 'ready', $4, now() + interval '7 days', 'elevenlabs', $5)`,
      [voiceId, live.orgId, key.id, randomBytes(16).toString('hex'), CLONE],
    );
    const sipp = await phone();
    const placed = await place({ voice_id: voiceId });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    await untilStatus(placed.body.id, ['answered']);
    // The disclosure, in English, spoken by ElevenLabs with the clone (Pico would otherwise speak English first).
    const spoken = await until('the clone speaks', async () => eleven.requests.find((r) => r.path === `/v1/text-to-speech/${CLONE}`) ?? null, { timeoutMs: 10_000, intervalMs: 100 });
    expect(JSON.parse(spoken.body.toString('utf8')).text).toMatch(/Tolk Assistant/);
    await t.request('POST', `/v1/calls/${placed.body.id}/hangup`, { key: live.secret });
    expect((await finished(sipp)).code).toBe(0);
  });
});

describe('live mode rules', () => {
  it('a live call without a trunk for its number, or without engines for its languages, answers 501 saying what is missing', async () => {
    const other = await t.key({ mode: 'live', minutes: 10 });
    const noTrunk = await place({}, other.secret);
    expect(noTrunk.status).toBe(501);
    expect(noTrunk.body.code ?? noTrunk.body.error?.code ?? JSON.stringify(noTrunk.body)).toMatch(/not_available_yet/);
    expect(JSON.stringify(noTrunk.body)).toMatch(/trunk/);
    const noEngine = await place({ remote_lang: 'pt' });
    expect(noEngine.status).toBe(501);
    expect(JSON.stringify(noEngine.body)).toMatch(/speech recognition in pt/);
  });

  it('a test key never reaches the trunk, even from the trunk\'s number; another organization never uses it', async () => {
    const n = carrier.lines().length;
    const c = await place({ from: numbers.main, to: '+14155550142' }, live.test);
    expect(c.status).toBe(201);
    expect(c.body.livemode).toBe(false);
    await untilStatus(c.body.id, ['answered'], live.test);
    await t.request('POST', `/v1/calls/${c.body.id}/hangup`, { key: live.test });
    expect(carrier.lines().length).toBe(n);
    // Another organization cannot name this organization's number.
    const other = await t.key({ mode: 'live', minutes: 10 });
    const stolen = await place({ from: numbers.main }, other.secret);
    expect(stolen.status).toBe(400);
  });

  it('the balance is the call\'s limit: a call that spends it is ended on the line', async () => {
    const sipp = await phone();
    const placed = await place({ from: numbers.poor }, poorKey);
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    await untilStatus(placed.body.id, ['answered'], poorKey);
    const ended = await untilStatus(placed.body.id, ['completed'], poorKey, 30_000);
    expect(ended.end_reason).toBe('max_duration');
    expect(ended.billed_seconds).toBeGreaterThanOrEqual(5);
    expect(ended.billed_seconds).toBeLessThanOrEqual(9);
    expect((await finished(sipp)).code).toBe(0);
    const left = await balance(poorKey);
    expect(left.seconds_left).toBe(0);
    // Spent: the next live call is refused before it is placed.
    const again = await place({ from: numbers.poor }, poorKey);
    expect(again.status).toBe(402);
  });
});

describe('a live call into a room', () => {
  it('through the trunk: once answered, the callee is a participant of the room with a phone badge, heard there, and billed as the call it is', async () => {
    const sipp = await phone();
    const res = await t.request('POST', '/v1/rooms', { key: live.secret, headers: { 'idempotency-key': crypto.randomUUID() }, body: { langs: ['en', 'es'] } });
    const room = await res.json();
    expect(res.status, JSON.stringify(room)).toBe(201);
    const placed = await place({ room_id: room.id });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    expect(placed.body).toMatchObject({ livemode: true, room_id: room.id, remote_lang: 'en' });
    await untilStatus(placed.body.id, ['answered']);
    const callee = await until('the callee in the room', async () => (await roomPeople(t.pool, room.id)).find((p) => p.phone) ?? null, { timeoutMs: 20_000, intervalMs: 100 });
    expect(callee).toMatchObject({ kind: 'person', ai: false, phone: true, speak_lang: 'en', hear_lang: 'en', name: expect.stringMatching(/42$/) });
    // The phone echoes what it hears (its welcome to the room): PocketSphinx reads it as the callee's phrase, in the room's log.
    const said = await until('the callee heard in the room', async () => {
      const { rows } = await t.pool.query(`SELECT text FROM room_segments WHERE room_id = $1 AND participant_id = $2 AND kind = 'person' AND text IS NOT NULL`, [room.id, callee.id]);
      return rows[0] ?? null;
    }, { timeoutMs: 60_000, intervalMs: 200 });
    expect(said.text.length).toBeGreaterThan(0);
    const ended = await (await t.request('POST', `/v1/calls/${placed.body.id}/hangup`, { key: live.secret })).json();
    expect(ended).toMatchObject({ status: 'completed', room_id: room.id });
    expect((await finished(sipp)).code).toBe(0);
    await until('the callee gone from the room', async () => !(await roomPeople(t.pool, room.id)).some((p) => p.phone) || null, { timeoutMs: 10_000, intervalMs: 100 });
    // Billed as the call (its billed seconds), never again as a participant.
    expect((await get(placed.body.id)).billed_seconds).toBeGreaterThan(0);
    const { rows } = await t.pool.query(`SELECT 1 FROM usage_ledger WHERE kind = 'phone' AND ref = $1`, [callee.id]);
    expect(rows).toEqual([]);
  });
});

describe('a trunk that stops answering', () => {
  it('is marked down by its OPTIONS pings, its calls fail at once with trunk_down, and it comes back up when it answers again', async () => {
    await carrier.stop();
    await until('the trunk down', async () => (await listTrunks(t.pool, live.orgId)).data.find((x) => x.id === trunks.main)?.state === 'down', { timeoutMs: 15_000, intervalMs: 100 });
    const view = (await listTrunks(t.pool, live.orgId)).data.find((x) => x.id === trunks.main)!;
    expect(view.state_reason).toMatch(/OPTIONS|unreachable/);
    expect(JSON.stringify(view)).not.toContain(PASSWORD);
    const placed = await place({});
    const c = await untilStatus(placed.body.id, ['failed'], live.secret, 5_000);
    expect(c).toMatchObject({ end_reason: 'trunk_down', sip_code: null, billed_seconds: 0 });
    carrier = await startCarrier({
      next: sippAddress, username: USER, password: PASSWORD, realm: REALM, port: carrier.port,
      numbers: [{ e164: N.main, header: 'pai' }],
    });
    await until('the trunk up', async () => (await listTrunks(t.pool, live.orgId)).data.find((x) => x.id === trunks.main)?.state === 'up', { timeoutMs: 15_000, intervalMs: 100 });
  });
});

describe('INVITEs to the gateway', () => {
  async function inviteFrom(host: string): Promise<string> {
    const sock = createSocket('udp4');
    await new Promise<void>((ok) => sock.bind(0, host, () => ok()));
    const me = `${host}:${sock.address().port}`;
    const [gh, gp] = t.services.gateway!.address.split(':');
    const answers: string[] = [];
    sock.on('message', (m) => answers.push(String(m)));
    const callId = randomBytes(8).toString('hex');
    sock.send([
      `INVITE sip:${N.main}@${t.services.gateway!.address} SIP/2.0`,
      `Via: SIP/2.0/UDP ${me};branch=z9hG4bK${randomBytes(8).toString('hex')}`,
      `From: <sip:+14155550142@${me}>;tag=abc`, `To: <sip:${N.main}@${t.services.gateway!.address}>`,
      `Call-ID: ${callId}`, 'CSeq: 1 INVITE', 'Max-Forwards: 70', `Contact: <sip:caller@${me}>`, 'Content-Length: 0', '', '',
    ].join('\r\n'), Number(gp), gh);
    const first = await until('an answer', async () => answers.find((a) => !a.startsWith('SIP/2.0 100')) ?? null, 5_000);
    sock.close();
    return first.split('\r\n')[0]!;
  }

  it('from a trunk\'s address to a number that takes no calls (not --inbound): 404; from anywhere else: 403', async () => {
    expect(await inviteFrom('127.0.0.3')).toBe('SIP/2.0 404 Not Found');
    expect(await inviteFrom('127.0.0.1')).toBe('SIP/2.0 403 Forbidden');
  });
});
