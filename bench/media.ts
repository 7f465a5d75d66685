import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MediaPlane, type Lateness } from '../gateway/media/plane.ts';
import type { Negotiated } from '../gateway/media/sdp.ts';
import { envNumber, round } from './stats.ts';

// The `media` target of npm run bench (bench/run.ts): BENCH_MEDIA_CALLS
// (default 100) answered calls' audio on one media plane (the RTP worker
// thread of a gateway process), both ways for BENCH_MEDIA_SECONDS (10): this
// process speaks on every stream without pause while the far ends, in a
// process of their own, speak back. Measured here: how late each packet left
// after its 20 ms tick (p50, p99, max; target p99 <= 5 ms), the CPU this
// process spent per call-second, the memory each call adds, and packets lost.

export const MEDIA_TARGETS = { lateness_p99_ms: 5 } as const;

export type MediaResult = {
  calls: number;
  seconds: number;
  lateness: Lateness;
  cpu_ms_per_call_second: number;
  rss_kb_per_call: number;
  sent: number;
  received: number;
  lost: number;
  peer: { sent: number; received: number };
  met: { lateness_p99: boolean };
  failures: number;
};

const HERE = path.dirname(fileURLToPath(import.meta.url));
const remote = (port: number): Negotiated => ({ address: '127.0.0.1', port, codec: 'PCMU', payloadType: 0, dtmfPayloadType: 101, ptimeMs: 20, direction: 'sendrecv' });
const tone = (ms: number) => Int16Array.from({ length: ms * 8 }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 8000)));

function ask(child: ChildProcess, m: unknown, reply: string): Promise<any> {
  return new Promise((ok, fail) => {
    const on = (r: { op: string }) => { if (r.op === reply) { child.off('message', on); ok(r); } };
    child.on('message', on);
    child.once('exit', (code) => fail(new Error(`media peer exited (${code})`)));
    if (m) child.send(m as never);
  });
}

export async function runMediaBench(log: (m: string) => void): Promise<MediaResult> {
  const calls = Math.round(envNumber('BENCH_MEDIA_CALLS', 100));
  const seconds = Math.round(envNumber('BENCH_MEDIA_SECONDS', 10));
  const child = fork(path.join(HERE, 'media-peer.ts'), [], { execPath: process.execPath, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const plane = await MediaPlane.start('127.0.0.1');
  try {
    await ask(child, null, 'ready');
    const rssBefore = process.memoryUsage().rss;
    const keys = Array.from({ length: calls }, (_, i) => `call-${i}`);
    const ports: number[] = [];
    // As the gateway opens a call's stream: hearing what the far end says (voice activity, utterances).
    for (const k of keys) ports.push((await plane.open(k, { hear: true })).port);
    const { ports: peerPorts } = await ask(child, { op: 'open', n: calls }, 'opened');
    await Promise.all(keys.map((k, i) => plane.connect(k, remote(peerPorts[i]))));
    log(`media: ${calls} calls, audio both ways for ${seconds} s`);
    const audio = tone(seconds * 1000);
    await Promise.all(keys.map((k) => plane.play(k, 'talk', audio)));
    await ask(child, { op: 'connect', ports, seconds }, 'talking');
    await plane.lateness(true);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    // Half the time in, the memory of every call's streams at full flow.
    await new Promise((r) => setTimeout(r, (seconds * 1000) / 2));
    const rssDuring = process.memoryUsage().rss;
    await new Promise((r) => setTimeout(r, (seconds * 1000) / 2 - 500));
    const cpu = process.cpuUsage(cpu0);
    const elapsed = (performance.now() - t0) / 1000;
    const lateness = await plane.lateness();
    await new Promise((r) => setTimeout(r, 800));
    const stats = await Promise.all(keys.map((k) => plane.close(k)));
    const peer = await ask(child, { op: 'stop' }, 'stopped');
    const sent = stats.reduce((a, s) => a + (s?.sent ?? 0), 0);
    const received = stats.reduce((a, s) => a + (s?.received ?? 0), 0);
    const lost = Math.max(0, sent - peer.received) + Math.max(0, peer.sent - received);
    return {
      calls, seconds, lateness: { ...lateness, p50: round(lateness.p50, 2), p99: round(lateness.p99, 2), max: round(lateness.max, 2) },
      cpu_ms_per_call_second: round((cpu.user + cpu.system) / 1000 / (calls * elapsed), 3),
      rss_kb_per_call: round((rssDuring - rssBefore) / 1024 / calls, 1),
      sent, received, lost, peer: { sent: peer.sent, received: peer.received },
      met: { lateness_p99: lateness.p99 <= MEDIA_TARGETS.lateness_p99_ms },
      failures: lost > sent * 0.001 ? 1 : 0,
    };
  } finally {
    await plane.stop();
    if (child.exitCode === null) child.kill();
  }
}

export function printMediaReport(r: MediaResult): void {
  console.log(`\nMedia (${r.calls} calls, audio both ways, ${r.seconds} s, one RTP thread)`);
  console.log(`  packet lateness after its tick: p50 ${r.lateness.p50} ms, p99 ${r.lateness.p99} ms, max ${r.lateness.max} ms over ${r.lateness.packets} packets (target p99 <= ${MEDIA_TARGETS.lateness_p99_ms} ms) ${r.met.lateness_p99 ? 'met' : 'NOT met'}`);
  console.log(`  CPU ${r.cpu_ms_per_call_second} ms per call-second (this process: the plane and its main thread); memory ${r.rss_kb_per_call} KB per call`);
  console.log(`  packets: sent ${r.sent}, received ${r.received}; the far ends sent ${r.peer.sent}, received ${r.peer.received}; lost ${r.lost}`);
}
