import { readFileSync } from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { readSse, type Sse } from '../helpers/sse.ts';
import { withApertium } from '../helpers/apertium.ts';
import { startOpenAITranscription, type FakeSpeechServer } from '../helpers/fake-speech.ts';
import { decodeWav } from '../../src/engines/speech/wav.ts';
import { PUBLIC_LIMITS } from '../../src/public-limits.ts';
import { saidInOrder, words } from '../../src/engines/speech/wer.ts';

// People speaking in a room through its audio socket (src/rooms/audio.ts),
// as the room page's microphone does, with real recorded speech (Debian's
// pocketsphinx-testdata, 16 kHz), a real recognizer (PocketSphinx), a real
// translator (Apertium) and a real synthesizer (Pico) for "read aloud".
// The page itself, in Chromium with a fake microphone, is test/rooms/audio-page.test.ts.

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const DATA = '/usr/share/pocketsphinx/test/data/librivox';
/** A recorded sentence (16 kHz mono PCM after its 44-byte header) and what was said. */
function sentence(name: string): { pcm: Buffer; said: string } {
  const lines = readFileSync(`${DATA}/transcription`, 'utf8').trim().split('\n');
  const said = lines.map((l) => /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)$/.exec(l.trim())!).find((m) => m[2] === name)![1]!;
  return { pcm: readFileSync(`${DATA}/${name}.wav`).subarray(44), said };
}
const ONE = sentence('sense_and_sensibility_01_austen_64kb-0870');
const TWO = sentence('sense_and_sensibility_01_austen_64kb-0880');
const SILENCE = Buffer.alloc(32_000);
/** Every test's people join from this machine: more joins a minute than a real network makes. */
const LIMITS = { ...PUBLIC_LIMITS, joinsPerClientMinute: 1000 };

let t: TestApp;
let stt: FakeSpeechServer;
beforeAll(async () => {
  t = await startTestApp({ config: { ...withApertium(), recognize: [{ name: 'pocketsphinx' }], speechEngines: ['pico'], publicLimits: LIMITS } });
  stt = await startOpenAITranscription({ says: 'The fake recognizer heard this.' });
});
afterAll(async () => {
  t?.app.server.closeAllConnections();
  await t?.close();
  await stt?.close();
});

async function liveRoom(app: TestApp, langs = ['en', 'es']): Promise<string> {
  const key = (await app.key({ rpm: 100_000 })).secret;
  const res = await app.request('POST', '/v1/rooms', { key, headers: { 'idempotency-key': crypto.randomUUID() }, body: { langs, visibility: 'public' } });
  expect(res.status).toBe(201);
  return (await res.json()).id;
}

type Person = { id: string; secret: string; name: string };
async function join(app: TestApp, roomId: string, name: string, speak: string, hear: string): Promise<Person> {
  const res = await fetch(`${app.url}/r/${roomId}/participants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, speak, hear }) });
  expect(res.status).toBe(201);
  return res.json() as Promise<Person>;
}

/** A page's stream of the room: the phrases it was sent. */
function stream(app: TestApp, roomId: string, p: Person) {
  const events: Sse[] = [];
  const ctl = new AbortController();
  void fetch(`${app.url}/r/${roomId}/stream?participant=${p.id}&secret=${p.secret}`, { signal: ctl.signal })
    .then((res) => readSse(res.body!, (e) => events.push(e))).catch(() => {});
  return {
    phrases: () => events.filter((e) => e.event === 'phrase').map((e) => e.data),
    phrase: (pred: (d: any) => boolean, timeoutMs = 30_000) =>
      until('a phrase on the page', async () => events.find((e) => e.event === 'phrase' && pred(e.data))?.data ?? null, { timeoutMs, intervalMs: 50 }),
    close: () => ctl.abort(),
  };
}

/** The audio socket as the page opens it. */
async function microphone(app: TestApp, roomId: string, p: Person) {
  const ws = new WebSocket(`${app.url.replace(/^http/, 'ws')}/r/${roomId}/audio?participant=${p.id}&secret=${p.secret}`);
  ws.binaryType = 'arraybuffer';
  const messages: any[] = [];
  let closed: { code: number; reason: string } | null = null;
  ws.addEventListener('message', (e) => messages.push(JSON.parse(String(e.data))));
  ws.addEventListener('close', (e) => { closed = { code: e.code, reason: e.reason }; });
  await until('the socket open', async () => ws.readyState === WebSocket.OPEN || closed !== null, 5000);
  return {
    ws,
    messages,
    get closed() { return closed; },
    /** Sends PCM in 100 ms messages, as the page's worklet does (all at once: faster than real time). */
    speak(pcm: Buffer) {
      for (let i = 0; i < pcm.length; i += 3200) ws.send(pcm.subarray(i, i + 3200));
    },
    /** Sends PCM in 100 ms messages at the pace a microphone makes them. */
    async speakInRealTime(pcm: Buffer) {
      for (let i = 0; i < pcm.length; i += 3200) {
        ws.send(pcm.subarray(i, i + 3200));
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    next: (type: string, timeoutMs = 30_000) => until(`a ${type} message`, async () => {
      const m = messages.find((x) => x.type === type && !x.taken);
      if (m) m.taken = true;
      return m ?? null;
    }, { timeoutMs, intervalMs: 20 }),
    closedWith: (timeoutMs = 10_000) => until('the socket closed', async () => closed, { timeoutMs, intervalMs: 20 }),
  };
}

/** The HTTP status an upgrade request gets (a browser's WebSocket only says it failed). */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // A connection of its own: the server closes one whose upgrade it refused.
    const req = http.get(url, { agent: false, headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64') } });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve(res.statusCode ?? 101); });
    req.on('response', (res) => { res.resume(); resolve(res.statusCode ?? 0); });
    req.on('error', reject);
  });
}

describe('speaking into the room', () => {
  it('a phrase spoken is recognized, enters the room\'s log, reaches another page translated, and is read aloud to them', async () => {
    const roomId = await liveRoom(t);
    const ana = await join(t, roomId, 'Ana', 'en', 'en');
    const bea = await join(t, roomId, 'Bea', 'es', 'es');
    const page = stream(t, roomId, bea);
    const mic = await microphone(t, roomId, ana);
    const ready = await mic.next('ready');
    expect(ready).toMatchObject({ sample_rate: 16000, lang: 'en', recognizer: 'pocketsphinx' });
    await mic.speakInRealTime(ONE.pcm);
    mic.speak(SILENCE);
    // While it went on, what was heard so far came back to the speaker; then the final phrase.
    const final = await mic.next('final');
    expect(final.seq).toEqual(expect.any(Number));
    expect(saidInOrder(words(ONE.said), words(final.text))).toBeGreaterThan(0.4);
    expect(final.audio_ms).toBeGreaterThan(5000);
    expect(mic.messages.filter((m) => m.type === 'partial').length).toBeGreaterThan(0);
    // Bea reads it in Spanish (Apertium), with Ana's English as the original.
    const got = await page.phrase((d) => d.seq === final.seq);
    expect(got).toMatchObject({ speaker: 'Ana', src_lang: 'en', lang: 'es', original: final.text, kind: 'person' });
    expect(got.text).not.toBe(final.text);
    expect(got.untranslated).toBeFalsy();
    // Read aloud: Pico speaks Bea's Spanish; a WAV about as long as the words take.
    const res = await fetch(`${t.url}/r/${roomId}/speech?participant=${bea.id}&secret=${bea.secret}&seq=${final.seq}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('content-language')).toBe('es');
    const wav = decodeWav(new Uint8Array(await res.arrayBuffer()));
    const seconds = wav.samples.length / wav.rate;
    const wordsSaid = words(got.text).length;
    expect(seconds).toBeGreaterThan(wordsSaid * 0.15);
    expect(seconds).toBeLessThan(wordsSaid * 1.0 + 2);
    // Her own phrase is never read to Ana.
    const own = await fetch(`${t.url}/r/${roomId}/speech?participant=${ana.id}&secret=${ana.secret}&seq=${final.seq}`);
    expect(own.status).toBe(409);
    mic.ws.close();
    page.close();
  });

  it('two people speaking at once: both phrases, each with its speaker', async () => {
    const roomId = await liveRoom(t);
    const ana = await join(t, roomId, 'Ana', 'en', 'en');
    const carl = await join(t, roomId, 'Carl', 'en', 'en');
    const [a, c] = await Promise.all([microphone(t, roomId, ana), microphone(t, roomId, carl)]);
    a.speak(ONE.pcm);
    c.speak(TWO.pcm);
    a.speak(SILENCE);
    c.speak(SILENCE);
    const [fa, fc] = await Promise.all([a.next('final'), c.next('final')]);
    expect(saidInOrder(words(ONE.said), words(fa.text))).toBeGreaterThan(0.4);
    expect(saidInOrder(words(TWO.said), words(fc.text))).toBeGreaterThan(0.4);
    const { rows } = await t.pool.query(`SELECT speaker, text, audio_ms FROM room_segments WHERE room_id = $1 AND kind = 'person' ORDER BY seq`, [roomId]);
    expect(rows.map((r) => r.speaker).sort()).toEqual(['Ana', 'Carl']);
    expect(rows.find((r) => r.speaker === 'Ana').text).toBe(fa.text);
    expect(rows.find((r) => r.speaker === 'Carl').text).toBe(fc.text);
    a.ws.close();
    c.ws.close();
  });

  it('a person who leaves mid-phrase: nothing of theirs enters the room after they left, and the socket says why', async () => {
    const roomId = await liveRoom(t);
    const ana = await join(t, roomId, 'Ana', 'en', 'en');
    const mic = await microphone(t, roomId, ana);
    await mic.next('ready');
    mic.speak(ONE.pcm.subarray(0, ONE.pcm.length / 2));
    const left = await fetch(`${t.url}/r/${roomId}/leave`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ participant: ana.id, secret: ana.secret }) });
    expect(left.status).toBe(200);
    mic.speak(SILENCE);
    expect(await mic.closedWith(30_000)).toMatchObject({ code: 4009 });
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM room_segments WHERE room_id = $1 AND kind = 'person'`, [roomId]);
    expect(rows[0].n).toBe(0);
  });

  it('push-to-talk: {"type":"end"} ends the phrase at once, without waiting for silence', async () => {
    const roomId = await liveRoom(t);
    const ana = await join(t, roomId, 'Ana', 'en', 'en');
    const mic = await microphone(t, roomId, ana);
    await mic.next('ready');
    mic.speak(TWO.pcm);
    mic.ws.send(JSON.stringify({ type: 'end' }));
    const final = await mic.next('final');
    expect(saidInOrder(words(TWO.said), words(final.text))).toBeGreaterThan(0.4);
    mic.ws.close();
  });
});

describe('what the socket refuses', () => {
  it('no socket without a participant of the room: 401 before the upgrade', async () => {
    const roomId = await liveRoom(t);
    const ana = await join(t, roomId, 'Ana', 'en', 'en');
    const ws = t.url.replace(/^http/, 'http');
    expect(await upgradeStatus(`${ws}/r/${roomId}/audio?participant=${ana.id}&secret=wrong`)).toBe(401);
    expect(await upgradeStatus(`${ws}/r/${roomId}/audio`)).toBe(401);
    const other = await liveRoom(t);
    expect(await upgradeStatus(`${ws}/r/${other}/audio?participant=${ana.id}&secret=${ana.secret}`)).toBe(401);
    expect(await upgradeStatus(`${ws}/r/${roomId}/audio?participant=${ana.id}&secret=${ana.secret}`)).toBe(101);
  });

  it('garbage and too much audio close the socket with a reason; the room and the others go on', async () => {
    const roomId = await liveRoom(t);
    const ana = await join(t, roomId, 'Ana', 'en', 'en');
    const bea = await join(t, roomId, 'Bea', 'en', 'en');
    const odd = await microphone(t, roomId, ana);
    await odd.next('ready');
    odd.ws.send(new Uint8Array(3));
    expect(await odd.closedWith()).toMatchObject({ code: 1003 });
    const text = await microphone(t, roomId, ana);
    await text.next('ready');
    text.ws.send('hello');
    expect(await text.closedWith()).toMatchObject({ code: 1003 });
    const big = await microphone(t, roomId, ana);
    await big.next('ready');
    big.ws.send(new Uint8Array(64_000));
    expect((await big.closedWith()).code).toBe(1009);
    // More than 75 s of audio in a minute: closed, rate limited.
    const flood = await microphone(t, roomId, ana);
    await flood.next('ready');
    for (let i = 0; i < 80; i++) flood.ws.send(SILENCE);
    expect(await flood.closedWith()).toMatchObject({ code: 4029 });
    expect(flood.messages.find((m) => m.type === 'error')).toMatchObject({ code: 'rate_limited' });
    // Bea's microphone works, and so does typing.
    const mic = await microphone(t, roomId, bea);
    await mic.next('ready');
    mic.speak(TWO.pcm);
    mic.speak(SILENCE);
    expect((await mic.next('final')).text).toEqual(expect.any(String));
    const typed = await fetch(`${t.url}/r/${roomId}/say`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ participant: ana.id, secret: ana.secret, text: 'Still here.' }) });
    expect(typed.status).toBe(202);
    mic.ws.close();
  });

  it('a language no recognizer hears: the socket says so and closes; the page learns it before, from audio-info', async () => {
    const roomId = await liveRoom(t, ['en', 'fr']);
    const fr = await join(t, roomId, 'Fleur', 'fr', 'fr');
    const info = await (await fetch(`${t.url}/r/${roomId}/audio-info?speak=fr&hear=fr`)).json();
    expect(info).toMatchObject({ microphone: { available: false, lang: 'fr', engine: null }, read_aloud: { available: true, lang: 'fr', engine: 'pico' } });
    expect((await (await fetch(`${t.url}/r/${roomId}/audio-info?speak=en&hear=pt`)).json())).toMatchObject({
      microphone: { available: true, lang: 'en', engine: 'pocketsphinx' }, read_aloud: { available: false, lang: 'pt', engine: null },
    });
    expect((await fetch(`${t.url}/r/${roomId}/audio-info?speak=xx_1&hear=fr`)).status).toBe(400);
    const mic = await microphone(t, roomId, fr);
    expect(await mic.next('error')).toMatchObject({ code: 'no_recognizer' });
    expect(await mic.closedWith()).toMatchObject({ code: 4003 });
  });
});

describe('a recognizer that fails mid-room', () => {
  it('the phrase comes back without words, typing goes on, and speech works again once the recognizer is back', async () => {
    const app = await startTestApp({ db: t.db, config: { ...withApertium(), recognize: [{ name: 'openai', url: stt.url }], recognizeTimeoutMs: 500, speechEngines: ['pico'], publicLimits: LIMITS } });
    try {
      const roomId = await liveRoom(app);
      const ana = await join(app, roomId, 'Ana', 'en', 'en');
      const mic = await microphone(app, roomId, ana);
      await mic.next('ready');
      mic.speak(TWO.pcm);
      mic.ws.send(JSON.stringify({ type: 'end' }));
      expect((await mic.next('final')).text).toBe('The fake recognizer heard this.');
      stt.fail = { status: 500 };
      mic.speak(TWO.pcm);
      mic.ws.send(JSON.stringify({ type: 'end' }));
      expect(await mic.next('final')).toMatchObject({ seq: null, text: null });
      const typed = await fetch(`${app.url}/r/${roomId}/say`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ participant: ana.id, secret: ana.secret, text: 'Typing still works.' }) });
      expect(typed.status).toBe(202);
      stt.fail = null;
      const { rows } = await app.pool.query(`SELECT text FROM room_segments WHERE room_id = $1 AND kind = 'person' ORDER BY seq`, [roomId]);
      expect(rows.map((r) => r.text)).toEqual(['The fake recognizer heard this.', 'Typing still works.']);
      // The breaker lets the engine be tried again after its pause: speech is read again.
      const back = await until('the recognizer back', async () => {
        mic.speak(TWO.pcm);
        mic.ws.send(JSON.stringify({ type: 'end' }));
        const f = await mic.next('final');
        return f.text ? f : null;
      }, { timeoutMs: 45_000, intervalMs: 500 });
      expect(back.text).toBe('The fake recognizer heard this.');
      mic.ws.close();
    } finally {
      app.app.server.closeAllConnections();
      await app.close();
    }
  });
});
