import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { startBoss, startWorkers, type Boss, type Workers } from '../src/jobs-registry.ts';
import { startCallGateway } from '../src/platform.ts';
import type { Services } from '../src/services.ts';
import { REACTIONS } from '../src/reactions.ts';
import { buildApp } from '../src/app.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { DeepgramRecognizer } from '../src/engines/deepgram/recognizer.ts';
import { RecognizerChain } from '../src/engines/speech/recognizers.ts';
import { freeUdpPort } from '../gateway/sip-stack.ts';
import { startDeepgramLive, type DeepgramLiveFake } from '../test/helpers/deepgram-live.ts';
import { lastVoicedEnd } from '../test/helpers/ws-fake.ts';
import { librivox } from '../test/helpers/vad-audio.ts';
import { rtpCallee } from '../test/helpers/rtp-callee.ts';
import { startSipp } from '../test/helpers/sipp.ts';
import { sippScenario } from '../test/helpers/sip-rig.ts';
import { until } from '../test/helpers/wait.ts';
import { envNumber, stats, type LatencyStats } from './stats.ts';

// The calls half of the `latency` target (bench/latency.ts): a test call
// (POST /v1/calls, remote_lang en, agent_lang es) answered by SIPp
// (gateway/sipp/answer-media-at-wait-bye.xml) whose media is a callee of its
// own (test/helpers/rtp-callee.ts: a thread sending PCMU paced at 20 ms).
// The agent says a long Spanish sentence on the call's session; 1.2 s into
// it the callee talks over it, a LibriVox recording (8 kHz, cut after its
// last voiced 250 ms window, the recognizer's rule), and goes quiet.
//   - barge-in: from the callee's first voiced frame sent to the last packet
//     of our speech received (the stop, on the wire);
//   - (a)/(b): from the end of the callee's speech (its last voiced sample
//     sent) to the first segment.final after it on the call's session (a
//     pause inside a sentence may end a phrase before: that one is not it) (a client long-polling,
//     wait=25), with its text in the session's language (test mode translates
//     with the simulator: a few microseconds, so (b) is (a) here);
//   - the recognizer's own time: its speech_final sent, on its own clock,
//     less the end of speech (Deepgram's live protocol, locally, endpointing
//     10 ms as in the room half); Tolk's share: (b) less it.
// BENCH_LATENCY_CALLS (default 5) calls, one after another, the first not
// counted (the speech engine's and the recognizer's first use).

const DATA = '/usr/share/pocketsphinx/test/data/librivox';
/** A Wednesday, 17:00 UTC: inside every US calling window of the policy table (as bench/calls.ts). */
const SERVICE_EPOCH = Date.parse('2026-11-18T17:00:00Z');
const LONG_ES = 'Le llamo por el pedido que hizo la semana pasada. Ya está empaquetado y saldrá de nuestro almacén mañana por la mañana, ' +
  'y el mensajero lo llevará a su puerta el martes entre las nueve y el mediodía. Si ese horario no le conviene, puede elegir otro día en nuestra web.';

/** One API request as a client makes it (a create with an Idempotency-Key): its JSON, or an Error naming the status. */
export async function apiCall(base: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.json() as any;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export type CallLatencyResult = { calls: number; barge_in_stop: LatencyStats; b_session: LatencyStats; recognizer: LatencyStats; tolk_b_session: LatencyStats };

export async function runCallLatency(databaseUrl: string, log: (m: string) => void): Promise<CallLatencyResult> {
  const calls = Math.max(1, Math.round(envNumber('BENCH_LATENCY_CALLS', 5)));
  const said = new Map(fs.readFileSync(`${DATA}/transcription`, 'utf8').trim().split('\n')
    .map((l) => /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)$/.exec(l.trim())).filter((m) => m !== null).map((m) => [m[2]!, m[1]!.toLowerCase()]));
  const recs = librivox();
  const cleanup: Array<() => Promise<unknown>> = [];
  let dg: DeepgramLiveFake | null = null;
  try {
    dg = await startDeepgramLive('bench-key');
    dg.latencyMs = 0;
    const sipPort = await freeUdpPort('127.0.0.1');
    const offset = SERVICE_EPOCH - Date.now();
    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', TOLK_SPEECH_ENGINES: 'pico' }, {
      databaseUrl, workers: true, sipListen: '127.0.0.1:0', simSipPeer: `sip:127.0.0.1:${sipPort}`, mediaTimeoutSeconds: 90,
    });
    const recognizer = new RecognizerChain([new DeepgramRecognizer({ apiKey: 'bench-key', url: dg.url, endpointingMs: 10 })]);
    cleanup.push(() => recognizer.close());
    const pool: Pool = createPool(databaseUrl, 10);
    cleanup.push(() => pool.end());
    const boss: Boss = await startBoss(databaseUrl, { workers: true, monitorSeconds: config.jobMonitorSeconds, onError: () => {} });
    cleanup.push(() => boss.stop({ graceful: false, timeout: 2000 }));
    const services: Services = { config, pool, boss, reactions: REACTIONS, clock: () => new Date(Date.now() + offset), recognizer };
    const quiet = { error: (_o: object, m: string) => log(`latency calls: ${m}`), warn: () => {}, info: () => {} };
    const gateway = await startCallGateway(services, databaseUrl, quiet);
    services.gateway = gateway;
    cleanup.push(() => gateway.stop());
    const workers: Workers = await startWorkers(services, databaseUrl, quiet);
    cleanup.push(() => workers.stop());
    const app: FastifyInstance = await buildApp({ ...services, databaseUrl });
    cleanup.push(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    config.publicBaseUrl = base;
    const org = await createOrg(pool, { name: 'Latency bench calls' });
    const key = (await createKey(pool, { org: org.id, mode: 'test', name: 'latency calls', rpm: 1e6 })).secret;
    const api = (method: string, path: string, body?: unknown) => apiCall(base, key, method, path, body);
    const plane = gateway.media;

    const barge: number[] = [], b: number[] = [], rec: number[] = [], tolk: number[] = [];
    for (let i = -1; i < calls; i++) {
      const r = recs[(i + recs.length) % recs.length]!;
      dg.vocabulary = (said.get(r.name) ?? 'hello').split(/\s+/);
      const from = Math.max(0, r.start - 800);
      const pcm = r.pcm.slice(from, lastVoicedEnd(r.pcm, 8000));
      const start = r.start - from;
      const c = await rtpCallee();
      const sipp = await startSipp({ scenario: sippScenario('answer-media-at-wait-bye'), listen: `127.0.0.1:${sipPort}`, extraArgs: ['-key', 'peer_rtp', String(c.port)] });
      try {
        const call = await api('POST', '/v1/calls', { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' }, remote_lang: 'en', agent_lang: 'es' });
        const placedAt = Date.now();
        let status = '';
        await until('answered', async () => (status = (await api('GET', `/v1/calls/${call.id}`)).status) === 'answered', { timeoutMs: 40_000, intervalMs: 100, detail: () => `the call is ${status}` });
        if (process.env.BENCH_LATENCY_DEBUG) log(`answered in ${Date.now() - placedAt} ms`);
        const heard: Array<{ e: any; at: number }> = [];
        let open = true;
        void (async () => {
          let cursor = 0;
          while (open) {
            const got = await api('GET', `/v1/sessions/${call.session_id}/events?cursor=${cursor}&wait=25`).catch(() => null);
            if (!got) break;
            const at = Date.now();
            for (const e of got.events) heard.push({ e, at });
            cursor = got.cursor;
            if (got.status === 'ended') break;
          }
        })();
        const say = await api('POST', `/v1/sessions/${call.session_id}/say`, { text: LONG_ES, lang: 'es' });
        let stopped = false;
        const onStop = (k: string, u: string) => { if (k === call.id && u === say.utterance_id) stopped = true; };
        plane.on('interrupted', onStop);
        await until('the say on the line', async () => heard.some((x) => x.e.type === 'say.started' && x.e.meta?.utterance_id === say.utterance_id), { timeoutMs: 30_000, intervalMs: 20 });
        await new Promise((ok) => setTimeout(ok, 1200));
        const sessions = dg.sessions.length;
        c.say(pcm, start);
        await until('our speech stopped', async () => stopped, { timeoutMs: 10_000, intervalMs: 10 });
        plane.off('interrupted', onStop);
        // The end of its speech: the onset frame's departure plus the speech after it.
        await new Promise((ok) => setTimeout(ok, ((pcm.length - start) / 8) + 100));
        const report = await c.report();
        const onset = report.onsetAt!;
        const end = onset + (pcm.length - start) / 8;
        const final = await until('the callee\'s phrase on the session', async () => heard.find((x) => x.e.type === 'segment.final' && x.e.speaker === 'Callee' && x.at >= end) ?? null, { timeoutMs: 20_000, intervalMs: 5 });
        const settled = dg.sessions.slice(sessions).flatMap((s) => s.sent.map((m, j) => ({ m, at: s.sentAt[j]! })))
          .find((x) => x.m.type === 'Results' && x.m.speech_final === true && x.at >= end - 50);
        const recMs = settled ? settled.at - end : Number.NaN;
        const stopMs = report.got.filter((t) => t >= onset).at(-1)! - onset;
        open = false;
        await api('POST', `/v1/calls/${call.id}/hangup`).catch(() => {});
        log(`latency call ${i + 1}/${calls}: barge-in stop ${Math.round(stopMs)} ms, final on the session ${Math.round(final.at - end)} ms (recognizer ${Math.round(recMs)})`);
        if (i < 0) continue;
        if (final.e.untrusted_content.text_in_hear_lang === null) throw new Error(`the callee's phrase came untranslated: ${JSON.stringify(final.e)}`);
        barge.push(stopMs); b.push(final.at - end); rec.push(recMs); tolk.push(final.at - end - recMs);
      } finally {
        await sipp.stop();
        await c.close();
      }
    }
    return { calls, barge_in_stop: stats(barge), b_session: stats(b), recognizer: stats(rec), tolk_b_session: stats(tolk) };
  } finally {
    for (const f of cleanup.reverse()) await f().catch(() => {});
    await dg?.close();
  }
}
