import { addressOf, joinPages, type Creds } from './pages.ts';
import { fork } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { openRoomStream } from './sse.ts';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { PUBLIC_LIMITS } from '../src/public-limits.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { startBoss, type Boss } from '../src/jobs-registry.ts';
import { buildApp } from '../src/app.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { ApertiumEngine } from '../src/engines/apertium/translate.ts';
import { startApy, type ApyProcess } from '../src/engines/apertium/apy.ts';
import { TranslationChain } from '../src/engines/translate/chain.ts';
import type { TranslationEngine } from '../src/engines/translate/engine.ts';
import { startTranslation, type Translation } from '../src/engines/translate/index.ts';
import { simulatedTranslator } from '../src/sim/translator.ts';
import { until } from '../test/helpers/wait.ts';
import { envNumber, round, sleep, stats, type LatencyStats } from './stats.ts';

// The `translate` target of npm run bench (bench/run.ts): phrases said into
// one public room whose BENCH_TRANSLATE_PAGES (default 1,000) room pages hear
// es, pt, fr and it (a quarter each), translated by Apertium: this file
// starts its own apertium-apy (startApy(), Debian's package and pairs) and
// gives the server (this process, the production app from buildApp, workers
// off) TOLK_TRANSLATE=apertium=URL. Apertium has en→es, es→pt, es→fr, es→it:
// en→pt/fr/it go through Spanish, so a phrase is 4 engine requests, made once
// whatever the number of pages (sessions/translations.ts).
//
// The pages join and open their streams as bench/room-page.ts's do (a child
// process, this file with --client; joins through node:http, 16 at a time;
// each stream on a raw socket that notes the moment the chunk holding the
// phrase arrives). Page 0 says BENCH_TRANSLATE_PHRASES (default 20) distinct
// ordinary English sentences (made from a small list; none is the
// phrasebook's, which test mode translates without an engine) through
// POST /r/{id}/say, one at a time, BENCH_TRANSLATE_GAP_MS (default 500) apart,
// after one warm-up phrase. For each phrase: the time from before the say was
// sent (and from its answer) until each page holds it in its language; per
// phrase, the time of the last page; every page must hold the engine's text
// (the baseline's, below), not an untranslated one.
//
// The baseline, in the same run on the same APY: before each phrase is said,
// the same sentence into the same four languages with the engine alone,
// new TranslationChain([new ApertiumEngine({ url })]).translate(text, 'en',
// ['es', 'pt', 'fr', 'it']) on a fresh engine (loaded once): en→es, then
// es→pt/fr/it in parallel, as the chain does in the server.
//
// Target: p99 over phrases of the last page's time (from the say sent) <=
// APY's p99 + 100 ms, and 4 engine requests per phrase (the server's engine
// counter over the phrases).
//
// Where a phrase's time goes (always measured; ms after the say was sent):
// the say's answer (its commit), the feed's read of the new phrase (its
// wake-up, room_segments), the claim (room_translations INSERT), each engine
// request (en→es; es→pt/fr/it), each store (room_translations UPDATE and its
// notification), the writes of the phrase to the pages (first to last
// res.write) and the first and last page holding it.

export const TRANSLATE_TARGETS = { p99_over_apy_ms: 100, requests_per_phrase: 4 } as const;

const LANGS = ['es', 'pt', 'fr', 'it'] as const;

// Ordinary sentences from a small list: subject i % 7, what they did i % 6, when i % 5 (7, 6, 5
// pairwise coprime: the first 210 are distinct, and consecutive ones differ in every part).
const SUBJECTS = ['My sister', 'The new teacher', 'Our neighbours', 'The doctor', 'A friend of mine', 'The children', 'My colleague'];
const DID = [
  'visited the old museum', 'bought fresh bread at the market', 'walked along the river', 'cooked dinner for the whole family',
  'read an interesting book about the city', 'found a cheap flat near the station',
];
const WHEN = ['yesterday afternoon', 'last week', 'on Sunday morning', 'after work', 'during the summer holidays'];
export function sentence(i: number): string {
  return `${SUBJECTS[i % SUBJECTS.length]} ${DID[i % DID.length]} ${WHEN[i % WHEN.length]}.`;
}
const MAX_PHRASES = SUBJECTS.length * DID.length * WHEN.length;
const WARMUP = 'The weather was very pleasant in the mountains.';

type ParentMsg =
  | { type: 'setup'; base: string; roomId: string; n: number; concurrency: number }
  | { type: 'open' }
  | { type: 'collect'; seq: number; timeoutMs: number }
  | { type: 'close' };
type ClientMsg =
  | { type: 'joined'; ms: number; failures: number; sample: string; speaker: Creds }
  | { type: 'opened'; failures: number; sample: string }
  | { type: 'phrase'; seq: number; at: number[]; texts: Record<string, string>; wrong: number; untranslated: number; sample: string }
  | { type: 'closed' };

/** The child: joins the pages, opens their streams, and notes when each page holds each phrase (and in what words). */
async function client(): Promise<void> {
  const setup = await new Promise<Extract<ParentMsg, { type: 'setup' }>>((resolve) => process.once('message', resolve));
  const { base, roomId, n, concurrency } = setup;
  const { hostname, port } = new URL(base);
  let failures = 0;
  let sample = '';
  const fail = (why: string) => {
    failures++;
    sample ||= why;
  };

  // --- Joins (bench/pages.ts).
  const { creds, ms: joinMs } = await joinPages({ base, roomId, n, concurrency, langs: LANGS, fail });
  process.send!({ type: 'joined', ms: joinMs, failures, sample, speaker: creds[0]! } satisfies ClientMsg);

  // --- Streams.
  const sockets: net.Socket[] = [];
  // Each phrase event as it came (its page's language and its data, parsed only once collected: the
  // moment a page holds it is noted before any work of this client on it).
  type Got = { at: number[]; raw: Array<[page: number, data: string]> };
  const got = new Map<number, Got>();
  let settledPages = 0;
  let onProgress: () => void = () => {};
  let closing = false;

  const open = (i: number) => {
    const p = creds[i];
    if (!p) { fail(`page ${i} never joined`); settledPages++; return; }
    let done = false;
    const settle = (why: string | null) => {
      if (done) return;
      done = true;
      settledPages++;
      if (why) { fail(`page ${i}: ${why}`); socket.destroy(); }
      onProgress();
    };
    const socket = openRoomStream({ host: hostname, port: Number(port), localAddress: addressOf(i), roomId, participant: p }, {
      onEvent: ({ name, id, data }, now) => {
        if (name === 'phrase') {
          const seq = Number(id);
          let g = got.get(seq);
          if (!g) got.set(seq, (g = { at: [], raw: [] }));
          g.at.push(now);
          g.raw.push([i, data]);
          onProgress();
        } else if (name === 'participants') {
          settle(null);
        } else if (name === 'ended' || name === 'gone') {
          fail(`page ${i}: ${name} ${data}`);
        }
      },
      onFail: (why) => settle(why),
      onClose: () => {
        if (!closing) { if (done) fail(`page ${i}: stream closed`); else settle('closed before its participants event'); }
      },
    });
    sockets.push(socket);
  };

  process.on('message', (m: ParentMsg) => {
    if (m.type === 'open') {
      for (let i = 0; i < n; i++) open(i);
      onProgress = () => {
        if (settledPages < n) return;
        onProgress = () => {};
        process.send!({ type: 'opened', failures, sample } satisfies ClientMsg);
      };
      onProgress();
    } else if (m.type === 'collect') {
      const deadline = setTimeout(() => reply(), m.timeoutMs);
      const reply = () => {
        clearTimeout(deadline);
        onProgress = () => {};
        const g = got.get(m.seq) ?? { at: [], raw: [] };
        got.delete(m.seq);
        // Every page must hold the phrase in its own language, translated, in the same words as the other pages of that language.
        const texts: Record<string, string> = {};
        let wrong = 0;
        let untranslated = 0;
        let why = '';
        for (const [i, data] of g.raw) {
          const hear = LANGS[i % LANGS.length]!;
          const ph = JSON.parse(data) as { lang: string; text: string | null; untranslated: boolean };
          if (ph.lang !== hear) { wrong++; why ||= `page ${i} hears ${hear}, got ${ph.lang}`; }
          else if (ph.untranslated) { untranslated++; why ||= `page ${i}: untranslated ${JSON.stringify(ph.text)}`; }
          else {
            const seen = texts[hear];
            if (seen === undefined) texts[hear] = ph.text ?? '';
            else if (seen !== ph.text) { wrong++; why ||= `page ${i}: ${JSON.stringify(ph.text)} where another ${hear} page got ${JSON.stringify(seen)}`; }
          }
        }
        process.send!({ type: 'phrase', seq: m.seq, at: g.at, texts, wrong, untranslated, sample: why } satisfies ClientMsg);
      };
      onProgress = () => { if ((got.get(m.seq)?.at.length ?? 0) >= n) reply(); };
      onProgress();
    } else if (m.type === 'close') {
      closing = true;
      for (const s of sockets) s.destroy();
      process.send!({ type: 'closed' } satisfies ClientMsg);
    }
  });
}

/** One engine request as the chain made it (ms since the epoch). */
type Call = { from: string; to: string[]; start: number; end: number };

/** Times every translate() of an engine (one call: one request per target language, in parallel). */
function timeEngine(e: TranslationEngine, calls: Call[]): void {
  const translate = e.translate.bind(e);
  (e as { translate: TranslationEngine['translate'] }).translate = async (text, from, to, signal) => {
    const start = performance.timeOrigin + performance.now();
    try {
      return await translate(text, from, to, signal);
    } finally {
      calls.push({ from, to: [...to], start, end: performance.timeOrigin + performance.now() });
    }
  };
}

type Step = { kind: 'read' | 'lookup' | 'claim' | 'store'; start: number; end: number };

/** The server's statements on the way (feed read, translation lookup, claim, store) and its res.writes of phrases, timed in this process. */
function instrument(pool: Pool) {
  const steps: Step[] = [];
  const writes: number[] = [];
  const t = () => performance.timeOrigin + performance.now();
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const cfg = args[0] as { text?: string } | string | undefined;
    const text = typeof cfg === 'string' ? cfg : cfg?.text ?? '';
    const kind: Step['kind'] | null = text.includes('FROM room_segments') ? 'read'
      : text.includes('FROM room_translations WHERE') ? 'lookup'
        : text.includes('INSERT INTO room_translations') ? 'claim'
          : text.includes('UPDATE room_translations t SET status') ? 'store' : null;
    const start = t();
    const out = query(...args);
    if (kind && out instanceof Promise) out.then(() => steps.push({ kind, start, end: t() }), () => {});
    return out;
  };
  const proto = http.ServerResponse.prototype as unknown as { write: (...args: unknown[]) => boolean };
  const write = proto.write;
  proto.write = function (this: unknown, ...args: unknown[]) {
    if (typeof args[0] === 'string' && args[0].includes('event: phrase')) writes.push(t());
    return write.apply(this, args);
  };
  return {
    /** What happened since `sent` (and clears it). */
    take(sent: number) {
      const s = steps.filter((x) => x.start >= sent).sort((a, b) => a.start - b.start);
      const w = writes.filter((x) => x >= sent);
      steps.length = 0;
      writes.length = 0;
      return { steps: s, writes: w };
    },
    restore() {
      (pool as unknown as { query: unknown }).query = query;
      proto.write = write;
    },
  };
}

/** Where one phrase's time went, in ms after the say was sent. */
export type PhraseDiag = {
  say_ms: number;
  read_at_ms: number | null;
  read_ms: number | null;
  claimed_ms: number | null;
  /** en→es: sent and answered. */
  engine1_at_ms: number | null;
  engine1_ms: number | null;
  stored1_ms: number | null;
  /** es→pt/fr/it (parallel): sent and the last answered. */
  engine2_at_ms: number | null;
  engine2_ms: number | null;
  stored2_ms: number | null;
  first_write_ms: number | null;
  last_write_ms: number | null;
  first_page_ms: number;
  last_page_ms: number;
  /** The baseline's two requests for the same phrase. */
  apy1_ms: number | null;
  apy2_ms: number | null;
};

export type TranslatePhrase = {
  seq: number;
  text: string;
  received: number;
  /** Baseline: the engine alone, same phrase, 4 languages. */
  apy_ms: number;
  /** The last page holding it: from the say sent / from its answer. */
  last_ms: number;
  last_from_answer_ms: number;
  p50_ms: number;
  diag: PhraseDiag;
};

export type TranslateResult = {
  pages: number;
  langs: string[];
  phrases: number;
  failures: number;
  /** Per phrase, the last page holding it (from the say sent, and from its answer). */
  last: LatencyStats;
  last_from_answer: LatencyStats;
  /** Every page, every phrase (from the say sent, and from its answer). */
  per_page: LatencyStats;
  per_page_from_answer: LatencyStats;
  /** The engine alone, per phrase into the 4 languages (en→es, then es→pt/fr/it). */
  apy: LatencyStats;
  engine_requests: number;
  requests_per_phrase: number;
  /** Medians over the phrases of where the time went (ms after the say was sent). */
  steps_p50: Record<string, number | null>;
  per_phrase: TranslatePhrase[];
  sample: Record<string, string>;
  setup: { join_ms: number; streams_ms: number };
  met: { p99: boolean; requests: boolean };
};

export async function runTranslateBench(databaseUrl: string, log: (m: string) => void): Promise<TranslateResult> {
  const n = Math.max(LANGS.length, Math.round(envNumber('BENCH_TRANSLATE_PAGES', 1000)));
  const phrases = Math.max(1, Math.round(envNumber('BENCH_TRANSLATE_PHRASES', 20)));
  const gapMs = envNumber('BENCH_TRANSLATE_GAP_MS', 500);
  if (phrases > MAX_PHRASES) throw new Error(`BENCH_TRANSLATE_PHRASES: at most ${MAX_PHRASES} distinct sentences`);
  const texts = Array.from({ length: phrases }, (_, i) => sentence(i));
  for (const t of [...texts, WARMUP]) {
    for (const l of LANGS) if (simulatedTranslator.known(t, 'en', l) !== null) throw new Error(`"${t}" is a phrasebook line (translated without an engine in test mode)`);
  }

  // Every page joins from this machine: the anonymous limits on joins, rooms and phrases
  // (README, Public pages and their limits) are lifted, as in bench/room-page.ts.
  const l = PUBLIC_LIMITS;
  const publicLimits = {
    ...l, anonymousPerMinute: 1e9, joinsPerClientMinute: 1e9, joinsPerRoomMinute: 1e9, participantsPerRoom: n + 10, streamsPerParticipant: 10,
    phrasesPerParticipantMinute: 1e9, phrasesPerRoomMinute: 1e9,
  };
  let apy: ApyProcess | null = null;
  let translation: Translation | null = null;
  let pool: Pool | null = null;
  let boss: Boss | null = null;
  let app: FastifyInstance | null = null;
  let diag: ReturnType<typeof instrument> | null = null;
  const child = fork(fileURLToPath(import.meta.url), ['--client'], { stdio: 'inherit' });
  const messages: ClientMsg[] = [];
  let wake: () => void = () => {};
  child.on('message', (m: ClientMsg) => { messages.push(m); wake(); });
  const next = <T extends ClientMsg['type']>(type: T, pred: (m: Extract<ClientMsg, { type: T }>) => boolean = () => true, timeoutMs = 180_000) =>
    new Promise<Extract<ClientMsg, { type: T }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`translate client: no '${type}' in ${timeoutMs / 1000} s`)), timeoutMs);
      const onExit = () => { clearTimeout(timer); reject(new Error(`translate client exited while waiting for '${type}'`)); };
      child.once('exit', onExit);
      const check = () => {
        const i = messages.findIndex((x) => x.type === type && pred(x as Extract<ClientMsg, { type: T }>));
        if (i >= 0) {
          clearTimeout(timer);
          child.off('exit', onExit);
          resolve(messages.splice(i, 1)[0] as Extract<ClientMsg, { type: T }>);
        } else wake = check;
      };
      check();
    });
  try {
    apy = await startApy();
    log(`translate: apertium-apy on ${apy.url}`);
    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, { databaseUrl, workers: false, publicLimits, translate: [{ name: 'apertium', url: apy.url }] });
    translation = await startTranslation(config, { warn: (_o, m) => log(`translate: ${m}`), info: () => {} });
    const engine = translation.engines[0]!;
    if (!translation.loaded.has(engine)) throw new Error(`apertium at ${apy.url} did not list its pairs`);
    for (const lang of LANGS) {
      if (!translation.chain.covers('en', lang)) throw new Error(`apertium-apy has no way from en to ${lang}: install apertium-eng-spa, apertium-es-pt, apertium-fr-es, apertium-spa-ita`);
    }
    const serverCalls: Call[] = [];
    timeEngine(engine, serverCalls);

    // The baseline's engine: a fresh one on the same APY, loaded once.
    const alone = new ApertiumEngine({ url: apy.url });
    await alone.load(AbortSignal.timeout(10_000));
    const aloneCalls: Call[] = [];
    timeEngine(alone, aloneCalls);
    const baseline = new TranslationChain([alone]);
    const translateAlone = async (text: string) => {
      aloneCalls.length = 0;
      const t0 = performance.now();
      const out = await baseline.translate(text, 'en', LANGS);
      const ms = performance.now() - t0;
      const bad = LANGS.filter((x) => !out[x]);
      if (bad.length) throw new Error(`APY did not translate "${text}" into ${bad.join(', ')}`);
      const first = aloneCalls.find((c) => c.from === 'en');
      const second = aloneCalls.find((c) => c.from === 'es');
      return {
        ms, texts: Object.fromEntries(LANGS.map((x) => [x, out[x]!.text])) as Record<string, string>,
        step1: first ? first.end - first.start : null, step2: second ? second.end - second.start : null,
      };
    };
    // APY starts a pair's pipeline on its first request: every pair once before anything is timed.
    await translateAlone(WARMUP);

    pool = createPool(databaseUrl, 20);
    boss = await startBoss(databaseUrl, { workers: false, onError: () => {} });
    app = await buildApp({ config, pool, boss, databaseUrl, translation });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const hub = app.roomHub;
    const org = await createOrg(pool, { name: 'Translate bench' });
    const key = await createKey(pool, { org: org.id, mode: 'test', rpm: 1_000_000 });
    const created = await fetch(`${base}/v1/rooms`, {
      method: 'POST', headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ langs: ['en', ...LANGS], visibility: 'public', title: 'Translate bench' }),
    });
    if (created.status !== 201) throw new Error(`POST /v1/rooms answered ${created.status}: ${await created.text()}`);
    const roomId = ((await created.json()) as { id: string }).id;

    // --- Setup: every page joins, then every stream opens.
    child.send({ type: 'setup', base, roomId, n, concurrency: 16 } satisfies ParentMsg);
    const joined = await next('joined');
    if (joined.failures > 0) throw new Error(`${joined.failures} of ${n} joins failed, e.g. ${joined.sample}`);
    log(`translate: ${n} pages joined in ${joined.ms} ms`);
    const t0 = Date.now();
    child.send({ type: 'open' } satisfies ParentMsg);
    const opened = await next('opened');
    if (opened.failures > 0) throw new Error(`${opened.failures} pages failed to open, e.g. ${opened.sample}`);
    await until(`${n} pages connected`, async () => hub.size >= n, { timeoutMs: 60_000, intervalMs: 20, detail: () => `roomHub.size ${hub.size}` });
    const streamsMs = Date.now() - t0;
    log(`translate: ${n} streams open in ${streamsMs} ms`);
    await sleep(500);

    diag = instrument(pool);
    const say = async (text: string) => {
      const sent = Date.now();
      const said = await fetch(`${base}/r/${roomId}/say`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ participant: joined.speaker.id, secret: joined.speaker.secret, text }),
      });
      const answered = Date.now();
      const body = await said.text();
      if (said.status !== 202) throw new Error(`POST /r/${roomId}/say answered ${said.status}: ${body}`);
      const seq = (JSON.parse(body) as { seq: number }).seq;
      child.send({ type: 'collect', seq, timeoutMs: 30_000 } satisfies ParentMsg);
      const got = await next('phrase', (m) => m.seq === seq, 40_000);
      return { sent, answered, seq, got };
    };

    // --- A warm-up phrase through the whole path (first statements, first frames), not counted.
    {
      const w = await say(WARMUP);
      log(`translate: warm-up phrase, last page ${Math.max(...w.got.at) - w.sent} ms after the say`);
      diag.take(w.sent);
      serverCalls.length = 0;
    }

    // --- The phrases.
    const perPhrase: TranslatePhrase[] = [];
    const allFromSent: number[] = [];
    const allFromAnswer: number[] = [];
    let failures = 0;
    let sample: Record<string, string> = {};
    const requests0 = engine.requests;
    for (let i = 0; i < phrases; i++) {
      await sleep(gapMs);
      const text = texts[i]!;
      const alone1 = await translateAlone(text);
      await sleep(Math.min(gapMs, 100));
      serverCalls.length = 0;
      const { sent, answered, seq, got } = await say(text);
      const missing = n - got.at.length;
      let bad = got.wrong + got.untranslated + missing;
      for (const lang of LANGS) {
        if (got.texts[lang] !== undefined && got.texts[lang] !== alone1.texts[lang]) {
          bad++;
          log(`translate: phrase ${i + 1} in ${lang}: the pages got ${JSON.stringify(got.texts[lang])}, the engine alone ${JSON.stringify(alone1.texts[lang])}`);
        }
      }
      if (bad > 0) {
        failures += bad;
        log(`translate: phrase ${i + 1} seq ${seq}: ${missing} pages missing, ${got.wrong} wrong, ${got.untranslated} untranslated${got.sample ? `, e.g. ${got.sample}` : ''}`);
      }
      if (i === 0) sample = { en: text, ...got.texts };
      const fromSent = got.at.map((x) => x - sent);
      const fromAnswer = got.at.map((x) => Math.max(0, x - answered));
      allFromSent.push(...fromSent);
      allFromAnswer.push(...fromAnswer);
      const { steps, writes } = diag.take(sent);
      const at = (x: number | undefined | null) => (x === undefined || x === null ? null : round(x - sent));
      const read = steps.find((s) => s.kind === 'read');
      const claim = steps.find((s) => s.kind === 'claim');
      const stores = steps.filter((s) => s.kind === 'store');
      const c1 = serverCalls.find((c) => c.from === 'en');
      const c2 = serverCalls.filter((c) => c.from === 'es');
      const c2start = c2.length ? Math.min(...c2.map((c) => c.start)) : null;
      const c2end = c2.length ? Math.max(...c2.map((c) => c.end)) : null;
      const last = Math.max(...got.at);
      const d: PhraseDiag = {
        say_ms: answered - sent,
        read_at_ms: at(read?.start), read_ms: read ? round(read.end - read.start) : null,
        claimed_ms: at(claim?.end),
        engine1_at_ms: at(c1?.start), engine1_ms: c1 ? round(c1.end - c1.start) : null,
        stored1_ms: at(stores[0]?.end),
        engine2_at_ms: at(c2start), engine2_ms: c2start !== null && c2end !== null ? round(c2end - c2start) : null,
        stored2_ms: at(stores[1]?.end),
        first_write_ms: at(writes[0]), last_write_ms: at(writes.at(-1)),
        first_page_ms: Math.min(...got.at) - sent, last_page_ms: last - sent,
        apy1_ms: alone1.step1 === null ? null : round(alone1.step1), apy2_ms: alone1.step2 === null ? null : round(alone1.step2),
      };
      const s = stats(fromSent);
      perPhrase.push({
        seq, text, received: got.at.length, apy_ms: round(alone1.ms), last_ms: last - sent, last_from_answer_ms: Math.max(0, last - answered), p50_ms: s.p50_ms, diag: d,
      });
      log(`translate: phrase ${i + 1} seq ${seq}: say ${answered - sent} ms, last page ${last - sent} ms (APY alone ${round(alone1.ms)} ms), ` +
        `read at ${d.read_at_ms}, en→es ${d.engine1_at_ms}+${d.engine1_ms}, stored ${d.stored1_ms}, es→x ${d.engine2_at_ms}+${d.engine2_ms}, stored ${d.stored2_ms}, writes ${d.first_write_ms}–${d.last_write_ms}`);
    }
    const requests = engine.requests - requests0;
    diag.restore();
    diag = null;

    // --- Clean up: the pages go, then the app.
    child.send({ type: 'close' } satisfies ParentMsg);
    await next('closed');
    await until('every page gone', async () => hub.size === 0, { timeoutMs: 20_000, intervalMs: 20, detail: () => `roomHub.size ${hub.size}` }).catch((err: unknown) => log(`translate: ${String(err)}`));

    const last = stats(perPhrase.map((p) => p.last_ms));
    const apyStats = stats(perPhrase.map((p) => p.apy_ms));
    const median = (f: (d: PhraseDiag) => number | null) => {
      const v = perPhrase.map((p) => f(p.diag)).filter((x): x is number => x !== null);
      return v.length ? stats(v).p50_ms : null;
    };
    const perPhraseRequests = round(requests / phrases, 2);
    return {
      pages: n,
      langs: [...LANGS],
      phrases,
      failures,
      last,
      last_from_answer: stats(perPhrase.map((p) => p.last_from_answer_ms)),
      per_page: stats(allFromSent),
      per_page_from_answer: stats(allFromAnswer),
      apy: apyStats,
      engine_requests: requests,
      requests_per_phrase: perPhraseRequests,
      steps_p50: {
        say: median((d) => d.say_ms), read_at: median((d) => d.read_at_ms), read: median((d) => d.read_ms), claimed: median((d) => d.claimed_ms),
        engine1_at: median((d) => d.engine1_at_ms), engine1: median((d) => d.engine1_ms), stored1: median((d) => d.stored1_ms),
        engine2_at: median((d) => d.engine2_at_ms), engine2: median((d) => d.engine2_ms), stored2: median((d) => d.stored2_ms),
        first_write: median((d) => d.first_write_ms), last_write: median((d) => d.last_write_ms),
        first_page: median((d) => d.first_page_ms), last_page: median((d) => d.last_page_ms),
        apy1: median((d) => d.apy1_ms), apy2: median((d) => d.apy2_ms),
      },
      per_phrase: perPhrase,
      sample,
      setup: { join_ms: joined.ms, streams_ms: streamsMs },
      met: {
        p99: failures === 0 && last.p99_ms <= apyStats.p99_ms + TRANSLATE_TARGETS.p99_over_apy_ms,
        requests: requests === TRANSLATE_TARGETS.requests_per_phrase * phrases,
      },
    };
  } finally {
    diag?.restore();
    child.kill();
    await app?.close().catch(() => {});
    await boss?.stop({ graceful: false }).catch(() => {});
    await pool?.end().catch(() => {});
    await translation?.close().catch(() => {});
    await apy?.stop().catch(() => {});
  }
}

export function printTranslateReport(r: TranslateResult): void {
  const mark = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  console.log(
    `\nTranslated fan-out: ${r.phrases} phrases said through POST /r/{id}/say into one room of ${r.pages} pages hearing ${r.langs.join(', ')} ` +
      `(${r.pages / r.langs.length} each), translated by Apertium (times in ms from before the say was sent)`,
  );
  const rows: Record<string, Record<string, string | number | null>> = {};
  for (const [i, p] of r.per_phrase.entries()) {
    const d = p.diag;
    rows[`phrase ${i + 1}`] = {
      received: p.received, 'APY alone': p.apy_ms, 'last page': p.last_ms, 'p50 page': p.p50_ms, say: d.say_ms, 'read at': d.read_at_ms,
      'en→es at': d.engine1_at_ms, 'en→es': d.engine1_ms, 'stored': d.stored1_ms, 'es→x at': d.engine2_at_ms, 'es→x': d.engine2_ms, 'stored ': d.stored2_ms,
      'writes from': d.first_write_ms, 'writes to': d.last_write_ms, 'APY en→es': d.apy1_ms, 'APY es→x': d.apy2_ms,
    };
  }
  const m = r.steps_p50;
  rows['median'] = {
    received: '', 'APY alone': r.apy.p50_ms, 'last page': r.last.p50_ms, 'p50 page': r.per_page.p50_ms, say: m.say!, 'read at': m.read_at!,
    'en→es at': m.engine1_at!, 'en→es': m.engine1!, 'stored': m.stored1!, 'es→x at': m.engine2_at!, 'es→x': m.engine2!, 'stored ': m.stored2!,
    'writes from': m.first_write!, 'writes to': m.last_write!, 'APY en→es': m.apy1!, 'APY es→x': m.apy2!,
  };
  console.table(rows);
  console.log(
    `last page per phrase: p50 ${r.last.p50_ms} ms, p99 ${r.last.p99_ms} ms (from the say's answer: p50 ${r.last_from_answer.p50_ms}, p99 ${r.last_from_answer.p99_ms} ms); ` +
      `every page: p50 ${r.per_page.p50_ms} ms, p99 ${r.per_page.p99_ms} ms (from the answer: p50 ${r.per_page_from_answer.p50_ms}, p99 ${r.per_page_from_answer.p99_ms} ms)`,
  );
  console.log(
    `APY alone, same phrases into ${r.langs.join(', ')} (en→es, then es→pt/fr/it): p50 ${r.apy.p50_ms} ms, p99 ${r.apy.p99_ms} ms; ` +
      `target p99 <= APY p99 + ${TRANSLATE_TARGETS.p99_over_apy_ms} ms = ${round(r.apy.p99_ms + TRANSLATE_TARGETS.p99_over_apy_ms)} ms ${mark(r.met.p99)}` +
      `${r.failures ? ` (${r.failures} failures)` : ''}`,
  );
  console.log(
    `engine requests: ${r.engine_requests} for ${r.phrases} phrases, ${r.requests_per_phrase} a phrase (target ${TRANSLATE_TARGETS.requests_per_phrase}) ${mark(r.met.requests)}`,
  );
  console.log(`e.g. ${Object.entries(r.sample).map(([k, v]) => `${k}: ${v}`).join(' | ')}`);
}

if (process.argv[2] === '--client') await client();
