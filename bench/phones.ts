import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { freePort, ROOT, serverNode } from '../test/helpers/process.ts';
import { until } from '../test/helpers/wait.ts';
import { startKamailio } from '../test/helpers/kamailio.ts';
import { dialIn, PhoneMedia } from '../test/helpers/dial-in-caller.ts';
import { sentence, silence } from '../test/helpers/stream-audio.ts';
import { readSse } from '../test/helpers/sse.ts';
import { freeUdpPort } from '../gateway/sip-stack.ts';
import { encodeG711 } from '../gateway/media/rtp.ts';
import { createPool } from '../src/db/pool.ts';
import { addNumber, createKey, createOrg } from '../src/cli/admin.ts';
import { addTrunk } from '../src/cli/trunk.ts';
import { loadConfig } from '../src/config.ts';
import { startTranslation } from '../src/engines/translate/index.ts';
import { PocketsphinxRecognizer } from '../src/engines/pocketsphinx/recognizer.ts';
import { procCpu } from './proc.ts';
import { descendants } from './hearing.ts';
import { envNumber, round } from './stats.ts';

// Phone participants (BENCH_ONLY=phones): BENCH_PHONES (default 50) people dial into rooms of one
// service process through a carrier (Kamailio), five to a room, each typing their PIN (SIP INFO)
// and then sending RTP from a capture the bench writes (SIPp's play_pcap_audio: a LibriVox
// sentence every 60 s, silence between, the calls started 2 a second so their sentences are
// spread: about one in fourteen talks at a time), while the room
// speaks what each says to the four others. Measured once all are in, over BENCH_PHONES_SECONDS
// (default 20): the CPU of the service (its process and its decoders) per phone-participant-second,
// and SIPp's (the callers' RTP and SIP) as the yardstick of what merely carrying the calls costs.
// There is no media server in a phone's path today (the room is spoken to it by the service).
// A probe caller in a room of its own with a page listening in Spanish says BENCH_PHONES_PHRASES
// (default 5) English sentences, before the callers come and again among them: from the end of each (its last voiced
// packet sent) to its translated phrase on the page's stream, split into the engines' time for the
// same audio (PocketSphinx, then Apertium, timed in the bench's own process) and the rest (the
// line's closing silence, the room's log, the stream).

export type PhonesResult = {
  phones: number;
  in_room: number;
  seconds: number;
  cpu_ms_per_phone_second: { tolk: number; decoders: number; sipp: number };
  /** The probe alone on the service, and among the callers. */
  caption: Caption;
  caption_loaded: Caption;
  failures: number;
};

type Caption = { phrases: number; p50_ms: number; p99_ms: number; engines_p50_ms: number; rest_p50_ms: number };

/** Each caller says a sentence every PERIOD_S; the calls start 2 a second, so their sentences are spread. */
const PERIOD_S = 60;

/** A capture (pcap, Ethernet/IPv4/UDP/RTP PCMU) of `pcm` at 8 kHz, for SIPp's play_pcap_audio. */
function rtpCapture(pcm: Int16Array): Buffer {
  const head = Buffer.alloc(24);
  head.writeUInt32LE(0xa1b2c3d4, 0); head.writeUInt16LE(2, 4); head.writeUInt16LE(4, 6);
  head.writeUInt32LE(65535, 16); head.writeUInt32LE(1, 20);
  const parts = [head];
  for (let i = 0, k = 0; i < pcm.length; i += 160, k++) {
    const frame = new Int16Array(160);
    frame.set(pcm.subarray(i, Math.min(pcm.length, i + 160)));
    const rtp = Buffer.alloc(12);
    rtp[0] = 0x80; rtp.writeUInt16BE(k & 0xffff, 2); rtp.writeUInt32BE((k * 160) >>> 0, 4); rtp.writeUInt32BE(0x1234, 8);
    const payload = Buffer.concat([rtp, Buffer.from(encodeG711('PCMU', frame))]);
    const udp = Buffer.alloc(8);
    udp.writeUInt16BE(10000, 0); udp.writeUInt16BE(20000, 2); udp.writeUInt16BE(8 + payload.length, 4);
    const ip = Buffer.alloc(20);
    ip[0] = 0x45; ip.writeUInt16BE(20 + 8 + payload.length, 2); ip[8] = 64; ip[9] = 17;
    Buffer.from([127, 0, 0, 1]).copy(ip, 12); Buffer.from([127, 0, 0, 1]).copy(ip, 16);
    const eth = Buffer.alloc(14);
    eth.writeUInt16BE(0x0800, 12);
    const frameLen = 14 + 20 + 8 + payload.length;
    const rec = Buffer.alloc(16);
    const us = k * 20_000;
    rec.writeUInt32LE(Math.floor(us / 1e6), 0); rec.writeUInt32LE(us % 1e6, 4); rec.writeUInt32LE(frameLen, 8); rec.writeUInt32LE(frameLen, 12);
    parts.push(rec, eth, ip, udp, payload);
  }
  return Buffer.concat(parts);
}

/** SIPp's scenario for the load: each call's PIN digits and number from the injection file, then the capture, then BYE. */
function loadScenario(to: string, carrier: string, capture: string, holdMs: number): string {
  const dialog = (method: string, cseq: number, extra: string[] = [], body = '') => [
    `${method} [next_url] SIP/2.0`, 'Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]', '[routes]',
    'From: <sip:[field8]@[local_ip]:[local_port]>;tag=[pid]Bench[call_number]', '[last_To:]', 'Call-ID: [call_id]', `CSeq: ${cseq} ${method}`,
    'Contact: <sip:caller@[local_ip]:[local_port]>', 'Max-Forwards: 70', ...extra, `Content-Length: ${body === '' ? 0 : '[len]'}`, '', ...(body === '' ? [] : [body]),
  ].join('\n');
  const cdata = (s: string) => `<![CDATA[\n${s}\n\n]]>`;
  const digits = [...Array.from({ length: 8 }, (_, i) => `[field${i}]`), '#'];
  const info = digits.map((d, i) => `<send retrans="500">${cdata(dialog('INFO', 2 + i, ['Content-Type: application/dtmf-relay'], `Signal=${d}\nDuration=160`))}</send>\n  <recv response="200" crlf="true"/>`).join('\n  ');
  return `<?xml version="1.0" encoding="ISO-8859-1" ?>
<!DOCTYPE scenario SYSTEM "sipp.dtd">
<scenario name="phones">
  <send retrans="500">${cdata([
    `INVITE sip:${to}@${carrier} SIP/2.0`, 'Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]',
    'From: <sip:[field8]@[local_ip]:[local_port]>;tag=[pid]Bench[call_number]', `To: <sip:${to}@${carrier}>`, 'Call-ID: [call_id]', 'CSeq: 1 INVITE',
    'Contact: <sip:caller@[local_ip]:[local_port]>', 'Max-Forwards: 70', 'Content-Type: application/sdp', 'Content-Length: [len]', '',
    'v=0', 'o=bench 1 1 IN IP4 127.0.0.1', 's=-', 'c=IN IP4 127.0.0.1', 't=0 0', 'm=audio [media_port] RTP/AVP 0 101', 'a=rtpmap:0 PCMU/8000', 'a=rtpmap:101 telephone-event/8000',
  ].join('\n'))}</send>
  <recv response="100" optional="true"/>
  <recv response="200" rtd="true" rrs="true"/>
  <send>${cdata(dialog('ACK', 1))}</send>
  <pause milliseconds="1500"/>
  ${info}
  <nop><action><exec play_pcap_audio="${capture}"/></action></nop>
  <pause milliseconds="${holdMs}"/>
  <send retrans="500">${cdata(dialog('BYE', 20))}</send>
  <recv response="200" crlf="true"/>
</scenario>
`;
}

export async function runPhonesBench(databaseUrl: string, log: (m: string) => void): Promise<PhonesResult> {
  const n = Math.max(5, envNumber('BENCH_PHONES', 50));
  const seconds = Math.max(5, envNumber('BENCH_PHONES_SECONDS', 20));
  const phrases = Math.max(2, envNumber('BENCH_PHONES_PHRASES', 5));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-bench-phones-'));
  const pool = createPool(databaseUrl, 2);
  const cleanup: Array<() => Promise<void> | void> = [];
  let failures = 0;
  try {
    const port = await freePort();
    const sipAddress = `127.0.0.1:${await freeUdpPort('127.0.0.1')}`;
    const server = spawn(serverNode(), ['src/server.ts'], {
      cwd: ROOT,
      env: {
        ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: 'warn', TOLK_DATA_DIR: path.join(dir, 'data'), TOLK_TRANSLATE: 'apertium', TOLK_RECOGNIZE: 'pocketsphinx', TOLK_SPEECH_ENGINES: 'pico',
        TOLK_MEDIA_SERVER: 'off', TOLK_SIP_LISTEN: sipAddress, TOLK_TRUNK_PING_SECONDS: '1', TOLK_MEDIA_TIMEOUT_SECONDS: '300',
      },
      stdio: ['ignore', 'ignore', process.env.BENCH_PHONES_SERVER_LOG ? 'pipe' : 'ignore'],
    });
    if (process.env.BENCH_PHONES_SERVER_LOG) server.stderr!.on('data', (d: Buffer) => fs.appendFileSync(process.env.BENCH_PHONES_SERVER_LOG!, d));
    cleanup.push(() => { server.kill('SIGKILL'); });
    const base = `http://127.0.0.1:${port}`;
    await until('the service', async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200, 60_000);
    const carrier = await startKamailio({ next: sipAddress });
    cleanup.push(() => carrier.stop());
    const org = await createOrg(pool, { name: 'Phones bench' });
    const key = (await createKey(pool, { mode: 'test', org: org.id, rpm: 1_000_000 })).secret;
    const trunk = await addTrunk(pool, undefined, { org: org.id, uri: `sip:${carrier.address}` });
    const number = '+12125550198';
    await addNumber(pool, { org: org.id, e164: number, trunk: trunk.id, inbound: true });
    const api = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${base}${p}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }, body: body === undefined ? undefined : JSON.stringify(body) });
      return res.json() as Promise<any>;
    };
    // The trunk's address known to the service as a trunk's.
    await until('the trunk up', async () => (await pool.query(`SELECT state FROM trunks WHERE id = $1`, [trunk.id])).rows[0]?.state === 'up', 20_000);

    // The probe: its own room, a page listening in Spanish, its own audio; timed alone first, then among the callers.
    const room = await api('POST', '/v1/rooms', { langs: ['en', 'es'], visibility: 'public' });
    const link = await api('POST', `/v1/rooms/${room.id}/join-links`, { name: 'Probe', speak: 'en', hear: 'en' });
    const listener = await (await fetch(`${base}/r/${room.id}/participants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Listener', speak: 'es', hear: 'es' }) })).json() as { id: string; secret: string };
    const seen: Array<{ at: number; text: string }> = [];
    const ctl = new AbortController();
    cleanup.push(() => ctl.abort());
    void fetch(`${base}/r/${room.id}/stream?participant=${listener.id}&secret=${listener.secret}`, { signal: ctl.signal })
      .then((res) => readSse(res.body!, (e) => { if (e.event === 'phrase' && e.data.speaker === 'Probe' && e.data.kind === 'person') seen.push({ at: Date.now(), text: e.data.text }); })).catch(() => {});
    const media = await PhoneMedia.open();
    cleanup.push(() => media.close());
    const probe = await dialIn({ to: number, carrier: carrier.address, from: '+14155550999', media: { port: media.port }, pins: [link.phone.pin], waitMs: 1_000, byeTimeoutMs: 900_000 });
    cleanup.push(() => probe.stop());
    await until('the probe in its room', async () => (await pool.query(`SELECT 1 FROM room_participants WHERE room_id = $1 AND phone IS NOT NULL AND left_at IS NULL`, [room.id])).rows.length > 0 || null, 30_000);
    await until('the probe\'s welcome over', async () => (media.remote !== null && media.levelSince(Date.now() - 1_500) < 50) || null, { timeoutMs: 30_000, intervalMs: 100 });
    const ids = ['0870', '0880', '0890', '0920', '0930'];
    const spoken: Int16Array[] = [];
    /** `count` sentences said by the probe: from the end of each to its phrase on the page. */
    const timePhrases = async (count: number): Promise<number[]> => {
      const delays: number[] = [];
      for (let i = 0; i < count; i++) {
        const s = await sentence(ids[spoken.length % ids.length]!);
        spoken.push(s.pcm);
        const before = seen.length;
        await media.speak(new Int16Array([...silence(200), ...s.pcm]));
        const endAt = Date.now();
        await media.speak(silence(1_500));
        const got = await until('the probe\'s phrase on the page', async () => seen[before] ?? null, { timeoutMs: 60_000, intervalMs: 20 }).catch(() => null);
        if (!got) { failures++; continue; }
        delays.push(got.at - endAt);
      }
      return delays;
    };
    log(`phones: the probe alone, ${phrases} sentences`);
    const alone = await timePhrases(phrases);

    // The rooms and each caller's PIN; the callers' capture: a sentence, then silence, for each period.
    const rows: string[] = ['SEQUENTIAL'];
    for (let r = 0; r < Math.ceil(n / 5); r++) {
      const room = await api('POST', '/v1/rooms', { langs: ['en', 'es'], visibility: 'public' });
      for (let i = 0; i < 5 && rows.length <= n; i++) {
        const link = await api('POST', `/v1/rooms/${room.id}/join-links`, { name: `Caller ${rows.length}`, speak: 'en', hear: i % 2 === 0 ? 'en' : 'es' });
        rows.push(`${[...link.phone.pin].join(';')};+1415555${String(1000 + rows.length).padStart(4, '0')}`);
      }
    }
    fs.writeFileSync(path.join(dir, 'pins.csv'), `${rows.join('\n')}\n`);
    const { pcm } = await sentence('0870');
    // Held through the callers' joining (2 a second), the measure, and the probe's sentences among them.
    const periods = Math.ceil((n / 2 + 30 + seconds + phrases * 20) / PERIOD_S);
    const one = new Int16Array(PERIOD_S * 8000);
    one.set(pcm.subarray(0, Math.min(pcm.length, one.length - 8000)), 8000);
    const audio = new Int16Array(one.length * periods);
    for (let i = 0; i < periods; i++) audio.set(one, i * one.length);
    fs.writeFileSync(path.join(dir, 'speech.pcap'), rtpCapture(audio));
    const holdMs = periods * PERIOD_S * 1000;
    fs.writeFileSync(path.join(dir, 'phones.xml'), loadScenario(number, carrier.address, path.join(dir, 'speech.pcap'), holdMs));
    const sippPort = await freeUdpPort('127.0.0.1');
    const mediaPort = 30000 + 2 * Math.floor(Math.random() * 5000);
    log(`phones: ${n} callers dialing in (5 to a room), held ${Math.round(holdMs / 1000)} s`);
    const sipp = spawn('/usr/bin/sipp', [carrier.address, '-sf', path.join(dir, 'phones.xml'), '-inf', path.join(dir, 'pins.csv'), '-i', '127.0.0.1', '-p', String(sippPort),
      '-mp', String(mediaPort), '-m', String(n), '-r', '2', '-l', String(n), '-nostdin', '-timeout', `${Math.round(holdMs / 1000) + 120}s`,
      '-trace_err', '-error_file', path.join(dir, 'sipp-errors.log')], { cwd: dir, stdio: 'ignore' });
    cleanup.push(() => { sipp.kill('SIGKILL'); });
    const present = async () => Number((await pool.query(
      `SELECT count(*) AS n FROM room_participants WHERE org_id = $1 AND room_id <> $2 AND phone IS NOT NULL AND left_at IS NULL`, [org.id, room.id])).rows[0].n);
    const inRoom = await until('the callers in their rooms', async () => { const c = await present(); return c >= n ? c : null; }, { timeoutMs: 60_000 + n * 1000, intervalMs: 500 }).catch(async () => present());
    if (inRoom < n) failures++;
    log(`phones: ${inRoom} of ${n} in their rooms; measuring ${seconds} s`);
    const pids = () => ({ tolk: [server.pid!], decoders: descendants(server.pid!), sipp: [sipp.pid!] });
    const before = pids();
    const cpu0 = { tolk: procCpu(before.tolk) ?? 0, decoders: procCpu(before.decoders) ?? 0, sipp: procCpu(before.sipp) ?? 0 };
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const after = pids();
    const cpu1 = { tolk: procCpu(after.tolk) ?? 0, decoders: procCpu(after.decoders) ?? 0, sipp: procCpu(after.sipp) ?? 0 };
    const perPhoneSecond = (a: number, b: number) => round(((b - a) * 1000) / (inRoom * seconds), 2);
    const cpu = { tolk: perPhoneSecond(cpu0.tolk, cpu1.tolk), decoders: perPhoneSecond(cpu0.decoders, cpu1.decoders), sipp: perPhoneSecond(cpu0.sipp, cpu1.sipp) };
    log(`phones: the probe among the ${inRoom} callers, ${phrases} sentences`);
    const loaded = await timePhrases(phrases);

    // The engines alone, in this process, on the same audio: PocketSphinx, then Apertium.
    const ps = new PocketsphinxRecognizer({ processes: 1 });
    const translation = await startTranslation(loadConfig({ LOG_LEVEL: 'silent', TOLK_TRANSLATE: 'apertium' }, { workers: false }), { info: () => {}, warn: () => {}, error: () => {} } as never);
    const engines: number[] = [];
    try {
      await ps.recognize({ key: 'warm', pcm: new Int16Array(8000), audioMs: 1000, lang: 'en', at: Date.now() });
      for (const pcmOf of spoken) {
        const t0 = performance.now();
        const r = await ps.recognize({ key: 'probe', pcm: pcmOf, audioMs: Math.round(pcmOf.length / 8), lang: 'en', at: Date.now() });
        await translation.chain.translate(r.text ?? 'nothing', 'en', ['es']);
        engines.push(performance.now() - t0);
      }
    } finally {
      await ps.close();
      await translation.close?.();
    }
    const q = (v: number[], p: number) => { const s = [...v].sort((a, b) => a - b); return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN); };
    const engines50 = q(engines, 0.5);
    const caption = (d: number[]) => ({ phrases: d.length, p50_ms: q(d, 0.5), p99_ms: q(d, 0.99), engines_p50_ms: engines50, rest_p50_ms: q(d, 0.5) - engines50 });
    return { phones: n, in_room: inRoom, seconds, cpu_ms_per_phone_second: cpu, caption: caption(alone), caption_loaded: caption(loaded), failures };
  } finally {
    for (const c of cleanup.reverse()) await Promise.resolve(c()).catch(() => {});
    await pool.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function printPhonesReport(r: PhonesResult): void {
  console.log(`\nPhone participants: ${r.in_room} of ${r.phones} callers in rooms of one process (5 a room, about one in fourteen talking), ${r.seconds} s`);
  console.log(`  CPU per phone-participant-second: service ${r.cpu_ms_per_phone_second.tolk} ms + its decoders ${r.cpu_ms_per_phone_second.decoders} ms; the callers (SIPp) ${r.cpu_ms_per_phone_second.sipp} ms; no media server in a phone's path`);
  for (const [name, c] of [['alone', r.caption], [`among ${r.in_room} callers`, r.caption_loaded]] as const) {
    console.log(`  end of speech -> translated phrase on a page, ${name}: p50 ${c.p50_ms} ms, p99 ${c.p99_ms} ms over ${c.phrases} phrases (engines ${c.engines_p50_ms} ms, the rest ${c.rest_p50_ms} ms at p50)`);
  }
}
