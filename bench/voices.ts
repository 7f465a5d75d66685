import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createNetns, NETNS_INTERFACE, type Netns } from '../test/helpers/netns.ts';
import { freePort, ROOT, serverNode } from '../test/helpers/process.ts';
import { until } from '../test/helpers/wait.ts';
import { createPool } from '../src/db/pool.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { encodeWav } from '../src/engines/speech/wav.ts';
import { startSynthesizers } from '../src/engines/speech/index.ts';
import { loadConfig } from '../src/config.ts';
import { startTranslation } from '../src/engines/translate/index.ts';

// Mouth-to-ear delay of a room's voices (BENCH_ONLY=voices): Ana's microphone is
// a click (5 ms, loud) every 500 ms, for BENCH_VOICES_SECONDS (default 20); each
// click is timed where it leaves her page (on her microphone's track) and where
// it arrives in Bea's (on the track her page plays), both with Web Audio in the
// pages, on the machine's one clock. Through the service and its Janus (in a
// network namespace of their own, as the tests run them), and through the
// simplest thing a developer could write instead: the two pages connected
// directly, peer to peer, with no server in the media path. p50/p99 of each,
// and the ratio; target p99 <= 150 ms on loopback.
//
// Then the largest room (BENCH_VOICES_MAX_LISTENERS, default 16): listeners are
// added (headless pages, half hearing English, half Spanish) while Ana's clicks
// play and an AI agent says a line every 3 s (interpreted for every language);
// at each size, over 8 s, every page must receive her voice and the
// interpretation, and Janus's and Tolk's CPU is read from /proc. The first limit
// is named: a page that stops receiving, or the machine's CPU.
//
// And the interpretation's delay: an English phrase Ana types (its POST) to its
// first sound on Carl's Spanish interpretation channel (BENCH_VOICES_PHRASES
// sentences, default 6, each new; no agent, so no test-mode robots talk over
// them), split into the engines' time for the same sentence (Apertium, then Pico,
// timed in the bench's own process) and the rest: the say, the room's log, the
// interpreter following it, the RTP to Janus and on to the page.

export const VOICES_TARGET_P99_MS = 150;

export type VoicesStats = { clicks: number; p50_ms: number; p99_ms: number; max_ms: number };
export type CapacityRow = { listeners: number; receiving: number; janus_cpu_pct: number; tolk_cpu_pct: number; machine_cpu_pct: number };
export type VoicesResult = {
  tolk: VoicesStats; direct: VoicesStats; ratio_p99: number; met: boolean; failures: number;
  capacity: CapacityRow[];
  /** Janus's and Tolk's CPU (% of one core) for each listener more, and for the one speaker speaking, at the largest room. */
  per_listener: { janus_pct: number; tolk_pct: number } | null;
  per_speaker: { janus_pct: number; tolk_pct: number } | null;
  first_limit: string;
  /** An agent's say to its first sound on a listener's interpretation channel, and how much of it is the synthesizer's. */
  interpretation: { phrases: number; p50_ms: number; p99_ms: number; engines_p50_ms: number; rest_p50_ms: number };
};

const RATE = 16_000;

function clicksFile(dir: string, seconds: number): string {
  const pcm = new Int16Array(RATE * seconds);
  for (let at = 0; at < seconds * 2; at++) {
    const start = (at * RATE) / 2;
    // 5 ms of a loud 1 kHz tone: a click every voice activity and codec lets through.
    for (let i = 0; i < RATE / 200; i++) pcm[start + i] = Math.round(20_000 * Math.sin((2 * Math.PI * 1000 * i) / RATE));
  }
  const p = path.join(dir, 'clicks.wav');
  fs.writeFileSync(p, encodeWav(pcm, RATE));
  return p;
}

/** In a page: the wall-clock times a stream's level rises past a threshold (a click's onset), polled every 2 ms. */
const ONSETS = `(stream, ms) => new Promise((resolve) => {
  const ctx = new AudioContext();
  const an = ctx.createAnalyser();
  an.fftSize = 256;
  ctx.createMediaStreamSource(stream).connect(an);
  const buf = new Float32Array(an.fftSize);
  const out = [];
  let loud = false, last = 0;
  const timer = setInterval(() => {
    an.getFloatTimeDomainData(buf);
    let peak = 0;
    for (const x of buf) peak = Math.max(peak, Math.abs(x));
    const now = performance.timeOrigin + performance.now();
    if (!loud && peak > 0.1 && now - last > 250) { out.push(now); last = now; }
    loud = peak > 0.1;
  }, 2);
  setTimeout(() => { clearInterval(timer); ctx.close(); resolve(out); }, ms);
})`;

/** A process's CPU time so far, in ms (/proc/PID/stat utime + stime, at 100 ticks a second). */
function cpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/** The whole machine's busy time so far, in ms of one core. */
function machineBusyMs(): number {
  return os.cpus().reduce((sum, c) => sum + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);
}

/** In a listener's page over `ms`: the loudest peak of the first voice, and of the interpretation channel. */
const RECEIVES = `(ms) => new Promise((resolve) => {
  const ctx = new AudioContext();
  const meter = (stream) => { if (!stream) return null; const an = ctx.createAnalyser(); ctx.createMediaStreamSource(stream).connect(an); return { an, buf: new Float32Array(an.fftSize), peak: 0 }; };
  const v = window.tolkVoices.voices()[0];
  const m = [meter(v && v.stream), meter(window.tolkVoices.interpretation())];
  const timer = setInterval(() => { for (const x of m) { if (!x) continue; x.an.getFloatTimeDomainData(x.buf); for (const y of x.buf) x.peak = Math.max(x.peak, Math.abs(y)); } }, 20);
  setTimeout(() => { clearInterval(timer); ctx.close(); resolve(m.map((x) => (x ? x.peak : 0))); }, ms);
})`;

function delays(sent: number[], got: number[]): number[] {
  const out: number[] = [];
  for (const g of got) {
    const s = sent.filter((x) => x <= g && g - x < 400).at(-1);
    if (s !== undefined) out.push(g - s);
  }
  return out;
}

function stats(d: number[]): VoicesStats {
  const s = [...d].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  return { clicks: s.length, p50_ms: Math.round(q(0.5)), p99_ms: Math.round(q(0.99)), max_ms: Math.round(s.at(-1) ?? NaN) };
}

export async function runVoicesBench(databaseUrl: string, log: (m: string) => void): Promise<VoicesResult> {
  const seconds = Math.max(5, Number(process.env.BENCH_VOICES_SECONDS ?? 20));
  const ms = seconds * 1000;
  let ns: Netns | null = null;
  const browsers: Browser[] = [];
  const pool = createPool(databaseUrl, 2);
  try {
    ns = await createNetns();
    const org = await createOrg(pool, { name: 'Voices bench' });
    const key = (await createKey(pool, { mode: 'test', org: org.id, rpm: 1_000_000 })).secret;
    const port = await freePort();
    // The service in the namespace (it runs its Janus there); ns.close() ends both.
    const server = ns.spawn(serverNode(), ['src/server.ts'], {
      cwd: ROOT,
      env: {
        ...process.env, DATABASE_URL: await ns.database(databaseUrl), PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: 'info', TOLK_DATA_DIR: path.join(ns.dir, 'data'), TOLK_TRANSLATE: 'apertium', TOLK_RECOGNIZE: '',
        TOLK_MEDIA_SERVER: 'janus', TOLK_JANUS_ICE_ONLY: NETNS_INTERFACE, TOLK_SIP_LISTEN: '127.0.0.1:0',
      },
    });
    let janusPid: number | undefined;
    const watch = (d: Buffer) => { const m = /janus runs \(pid (\d+)\)/.exec(String(d)); if (m) janusPid = Number(m[1]); };
    server.stderr!.on('data', watch);
    if (process.env.BENCH_VOICES_SERVER_LOG) server.stderr!.on('data', (d: Buffer) => fs.appendFileSync(process.env.BENCH_VOICES_SERVER_LOG!, d));
    server.stdout!.on('data', () => {});
    const n = ns;
    await until('the service in the namespace', async () => (await n.request(port, 'GET', '/readyz').catch(() => ({ status: 0 }))).status === 200, 60_000);
    const launch = (args: string[]) => chromium.launch({
      executablePath: n.chromium, ignoreDefaultArgs: ['--mute-audio'],
      args: ['--no-sandbox', '--allow-loopback-in-peer-connection', '--disable-features=WebRtcHideLocalIpsWithMdns', '--autoplay-policy=no-user-gesture-required', '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', ...args],
    });
    const speaker = await launch([`--use-file-for-fake-audio-capture=${clicksFile(n.dir, seconds + 5)}`]);
    const listener = await launch([]);
    browsers.push(speaker, listener);
    const res = await n.request(port, 'POST', '/v1/rooms', { headers: { authorization: `Bearer ${key}`, 'idempotency-key': crypto.randomUUID() }, body: { langs: ['en'], visibility: 'public' } });
    const url: string = res.body.url;
    const open = async (b: Browser, name: string): Promise<Page> => {
      const p = await (await b.newContext({ permissions: ['microphone'] })).newPage();
      // Ana's microphone stream, as her page gets it: where her clicks are timed.
      await p.addInitScript({ content: 'const g = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices); navigator.mediaDevices.getUserMedia = (c) => g(c).then((s) => { window.mic = s; return s; });' });
      await p.goto(url);
      await p.getByLabel('Your name').fill(name);
      await p.getByLabel('I speak').selectOption('en');
      await p.getByLabel('I hear').selectOption('en');
      await p.getByRole('button', { name: 'Join' }).click();
      await until(`${name} linked`, async () => p.evaluate<boolean>('Boolean(window.tolkVoices && window.tolkVoices.live)'), 20_000);
      return p;
    };
    const ana = await open(speaker, 'Ana');
    const bea = await open(listener, 'Bea');
    await ana.getByRole('button', { name: 'Microphone' }).click();
    await until('Bea hears Ana', async () => bea.evaluate<boolean>('window.tolkVoices.voices().length > 0'), 20_000);
    log(`voices: timing ${seconds} s of clicks through Janus`);
    const [sentT, gotT] = await Promise.all([
      ana.evaluate<number[]>(`(${ONSETS})(window.mic, ${ms})`),
      bea.evaluate<number[]>(`(${ONSETS})(window.tolkVoices.voices()[0].stream, ${ms})`),
    ]);
    const tolk = stats(delays(sentT, gotT));

    // The same two browsers, peer to peer: a page each, no server in the media path.
    log(`voices: timing ${seconds} s of clicks peer to peer`);
    const a2 = await (await speaker.newContext({ permissions: ['microphone'] })).newPage();
    const b2 = await listener.newPage();
    for (const p of [a2, b2]) await p.goto(`http://127.0.0.1:${port}/healthz`);
    const offer = await a2.evaluate<string>(`(async () => {
      window.mic = await navigator.mediaDevices.getUserMedia({ audio: true });
      const pc = window.pc = new RTCPeerConnection();
      pc.addTransceiver(window.mic.getAudioTracks()[0], { direction: 'sendonly' });
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((r) => { if (pc.iceGatheringState === 'complete') r(); pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && r(); });
      return pc.localDescription.sdp;
    })()`);
    const answer = await b2.evaluate<string>(`(async () => {
      const pc = window.pc = new RTCPeerConnection();
      window.got = new Promise((r) => { pc.ontrack = (e) => { const el = new Audio(); el.srcObject = new MediaStream([e.track]); el.play(); r(el.srcObject); }; });
      await pc.setRemoteDescription({ type: 'offer', sdp: ${JSON.stringify(offer)} });
      await pc.setLocalDescription(await pc.createAnswer());
      await new Promise((r) => { if (pc.iceGatheringState === 'complete') r(); pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && r(); });
      return pc.localDescription.sdp;
    })()`);
    await a2.evaluate(`window.pc.setRemoteDescription({ type: 'answer', sdp: ${JSON.stringify(answer)} })`);
    const [sent2, got2] = await Promise.all([
      a2.evaluate<number[]>(`(${ONSETS})(window.mic, ${ms})`),
      b2.evaluate<number[]>(`window.got.then((s) => (${ONSETS})(s, ${ms - 500}))`),
    ]);
    const direct = stats(delays(sent2, got2));
    await a2.context().close();
    await b2.close();

    // --- The interpretation's delay: a phrase Ana types to its first sound on Carl's channel, in Spanish.
    const roomId0 = new URL(url).pathname.split('/').pop()!;
    const anaMe = await ana.evaluate<{ id: string; secret: string }>('window.tolkRoom.me');
    const carl = await (await listener.newContext()).newPage();
    await carl.goto(url);
    await carl.getByLabel('Your name').fill('Carl');
    await carl.getByLabel('I speak').selectOption('es');
    await carl.getByLabel('I hear').selectOption('es');
    await carl.getByRole('button', { name: 'Join' }).click();
    await until('Carl\'s interpretation linked', async () => carl.evaluate<boolean>('Boolean(window.tolkVoices && window.tolkVoices.live && window.tolkVoices.interpretation())'), 30_000);
    const phrases = Math.max(2, Number(process.env.BENCH_VOICES_PHRASES ?? 6));
    const said: number[] = [];
    const engines: number[] = [];
    // The same engines in the bench's own process, timed alone: Apertium (its own apertium-apy) and Pico.
    const engineConfig = loadConfig({ LOG_LEVEL: 'silent', TOLK_TRANSLATE: 'apertium' }, { workers: false });
    const speech = startSynthesizers(engineConfig);
    const translation = await startTranslation(engineConfig, { info: () => {}, warn: () => {}, error: () => {} } as never);
    try {
      for (let i = 0; i < phrases; i++) {
        const text = `Sentence number ${i + 1} of the interpretation timing, spoken once.`;
        // Carl's page waits for a second of quiet (the phrase before has played), then for the next sound; Ana types once it listens.
        const onset = carl.evaluate<number>(`(async () => {
          const ctx = new AudioContext();
          const an = ctx.createAnalyser();
          ctx.createMediaStreamSource(window.tolkVoices.interpretation()).connect(an);
          const buf = new Float32Array(an.fftSize);
          const level = () => { an.getFloatTimeDomainData(buf); return Math.sqrt(buf.reduce((s, x) => s + x * x, 0) / buf.length); };
          let since = Date.now();
          while (Date.now() - since < 1000) { await new Promise((r) => setTimeout(r, 5)); if (level() >= 0.002) since = Date.now(); }
          window.listening = true;
          const end = Date.now() + 20000;
          while (Date.now() < end) { await new Promise((r) => setTimeout(r, 2)); if (level() > 0.01) break; }
          window.listening = false;
          await ctx.close();
          return Date.now();
        })()`);
        onset.catch(() => {});
        await until('Carl listening', async () => carl.evaluate<boolean>('window.listening === true'), 60_000);
        const t0 = Date.now();
        await n.request(port, 'POST', `/r/${roomId0}/say`, { body: { participant: anaMe.id, secret: anaMe.secret, text } });
        said.push((await onset) - t0);
        const e0 = performance.now();
        const es = (await translation.chain.translate(text, 'en', ['es'])).es;
        await speech.synthesize(es?.text ?? text, 'es');
        engines.push(performance.now() - e0);
      }
    } finally {
      await speech.close();
      await translation.close();
    }
    await carl.context().close();
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const interpretation = {
      phrases, p50_ms: Math.round(med(said)), p99_ms: Math.round(Math.max(...said)),
      engines_p50_ms: Math.round(med(engines)), rest_p50_ms: Math.round(med(said) - med(engines)),
    };

    // --- The largest room: listeners added while Ana's clicks play and an agent speaks every 3 s.
    const maxListeners = Math.max(2, Number(process.env.BENCH_VOICES_MAX_LISTENERS ?? 16));
    const roomId = new URL(url).pathname.split('/').pop()!;
    const auth = { authorization: `Bearer ${key}` };
    const ses = await n.request(port, 'POST', `/v1/rooms/${roomId}/agent-sessions`, { headers: { ...auth, 'idempotency-key': crypto.randomUUID() }, body: { speak_lang: 'en', hear_lang: 'en', announce: false } });
    let talking = true;
    const agent = (async () => {
      while (talking) {
        await n.request(port, 'POST', `/v1/sessions/${ses.body.id}/say`, { headers: auth, body: { text: 'This is the interpretation channel, speaking to every language of the room.' } }).catch(() => {});
        await new Promise((r) => setTimeout(r, 3000));
      }
    })();
    const pages: Page[] = [bea];
    const capacity: CapacityRow[] = [];
    let firstLimit = `none up to ${maxListeners} listeners`;
    const window8 = async (): Promise<{ j: number; t: number; m: number; peaks: number[][] }> => {
      const [j0, t0, m0, w0] = [cpuMs(janusPid), cpuMs(server.pid), machineBusyMs(), Date.now()];
      const peaks = await Promise.all(pages.map((p) => p.evaluate<number[]>(`(${RECEIVES})(8000)`)));
      const wall = Date.now() - w0;
      return { j: (100 * (cpuMs(janusPid) - j0)) / wall, t: (100 * (cpuMs(server.pid) - t0)) / wall, m: (100 * (machineBusyMs() - m0)) / wall / os.cpus().length, peaks };
    };
    const sizes = [...new Set([2, 4, 8, 12, 16, 24, 32, 48, 64].filter((x) => x < maxListeners).concat(maxListeners))];
    for (const size of sizes) {
      while (pages.length < size) {
        const hear = pages.length % 2 === 0 ? 'en' : 'es';
        const p = await (await listener.newContext()).newPage();
        await p.goto(url);
        await p.getByLabel('Your name').fill(`Listener ${pages.length}`);
        await p.getByLabel('I speak').selectOption(hear);
        await p.getByLabel('I hear').selectOption(hear);
        await p.getByRole('button', { name: 'Join' }).click();
        await until('a listener linked', async () => p.evaluate<boolean>('Boolean(window.tolkVoices && window.tolkVoices.live && window.tolkVoices.voices().length > 0 && window.tolkVoices.interpretation())'), 30_000);
        pages.push(p);
      }
      log(`voices: ${size} listeners`);
      const w = await window8();
      const receiving = w.peaks.filter(([v, i]) => v! > 0.1 && i! > 0.01).length;
      capacity.push({ listeners: size, receiving, janus_cpu_pct: Math.round(w.j), tolk_cpu_pct: Math.round(w.t), machine_cpu_pct: Math.round(w.m) });
      if (receiving < size) { firstLimit = `${size - receiving} of ${size} listeners stopped receiving (machine CPU ${Math.round(w.m)}%)`; break; }
      if (w.m > 90) { firstLimit = `the machine's CPU (${Math.round(w.m)}% busy at ${size} listeners, most of it the listening browsers)`; break; }
    }
    // One speaker less (Ana's microphone off), at the largest room: what her voice costs.
    const last = capacity.at(-1)!;
    await ana.getByRole('button', { name: 'Microphone on' }).click();
    const quiet = await window8();
    talking = false;
    await agent;
    const first = capacity[0]!;
    const span = last.listeners - first.listeners;
    const perListener = span > 0 ? { janus_pct: Math.round(((last.janus_cpu_pct - first.janus_cpu_pct) / span) * 100) / 100, tolk_pct: Math.round(((last.tolk_cpu_pct - first.tolk_cpu_pct) / span) * 100) / 100 } : null;
    const perSpeaker = { janus_pct: Math.round(last.janus_cpu_pct - quiet.j), tolk_pct: Math.round(last.tolk_cpu_pct - quiet.t) };
    const failures = (tolk.clicks < seconds) ? 1 : 0;
    return {
      tolk, direct, ratio_p99: Math.round((tolk.p99_ms / Math.max(1, direct.p99_ms)) * 100) / 100, met: tolk.p99_ms <= VOICES_TARGET_P99_MS, failures,
      capacity, per_listener: perListener, per_speaker: perSpeaker, first_limit: firstLimit, interpretation,
    };
  } finally {
    for (const b of browsers) await b.close().catch(() => {});
    await ns?.close();
    await pool.end();
  }
}

export function printVoicesReport(r: VoicesResult): void {
  const row = (name: string, s: VoicesStats) => `  ${name.padEnd(36)} p50 ${String(s.p50_ms).padStart(5)} ms  p99 ${String(s.p99_ms).padStart(5)} ms  max ${String(s.max_ms).padStart(5)} ms  (${s.clicks} clicks)`;
  console.log([
    'voices: mouth-to-ear, a click leaving the speaker\'s page to its arrival in the listener\'s (Chromium, loopback):',
    row('through the service and Janus', r.tolk),
    row('peer to peer (baseline)', r.direct),
    `  p99 ratio ${r.ratio_p99}; target p99 <= ${VOICES_TARGET_P99_MS} ms: ${r.met ? 'met' : 'NOT met'}`,
    'voices: the largest room (one speaker, an agent every 3 s, listeners receiving voice and interpretation; CPU in % of one core):',
    ...r.capacity.map((c) => `  ${String(c.listeners).padStart(3)} listeners: ${c.receiving} receiving  Janus ${c.janus_cpu_pct}%  Tolk ${c.tolk_cpu_pct}%  machine ${c.machine_cpu_pct}% of all cores`),
    `  per listener more: ${r.per_listener ? `Janus ${r.per_listener.janus_pct}%, Tolk ${r.per_listener.tolk_pct}%` : 'n/a'}; the speaker speaking: ${r.per_speaker ? `Janus ${r.per_speaker.janus_pct}%, Tolk ${r.per_speaker.tolk_pct}%` : 'n/a'}`,
    `  first limit: ${r.first_limit}`,
    `voices: an English phrase typed on a page to its first sound on a Spanish listener's interpretation channel (${r.interpretation.phrases} sentences):`,
    `  p50 ${r.interpretation.p50_ms} ms, p99 ${r.interpretation.p99_ms} ms; of the median, the engines ${r.interpretation.engines_p50_ms} ms (Apertium then Pico, timed alone), the rest ${r.interpretation.rest_p50_ms} ms (the say, the log, the interpreter, RTP through Janus, the page's jitter buffer)`,
  ].join('\n'));
}
