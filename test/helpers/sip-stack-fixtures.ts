// What the SIP stack's own test files (gateway/sip-stack.*.test.ts) share
// beside sipRig (sip-rig.ts): reading SIPp's trace (branches, tags, SDP
// lines, our answers), the built-in simulated callee with its log kept, a
// bare UDP socket speaking SIP by hand, and SIPp as the caller or as a callee
// over TCP. Here rather than in gateway/: a .ts there that is no test file
// counts as the gateway's own code (scripts/imports.ts).

import dgram from 'node:dgram';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeUdpPort } from '../../gateway/sip-stack.ts';
import { startSimulatedCallee, type SimulatedCalleeOptions } from '../../gateway/callee.ts';
import { SIPP, type SippResult, type WireMessage } from './sipp.ts';
import { sippScenario } from './sip-rig.ts';
import { until } from './wait.ts';

export const branchOf = (m: WireMessage | undefined) => /branch=([^;\s]+)/.exec(m?.header('Via') ?? '')?.[1];
export const tagIn = (h: string | undefined) => /;tag=([^;\s]+)/.exec(h ?? '')?.[1];
export const sdpLine = (m: WireMessage, prefix: string) => m.body.split(/\r?\n/).find((l) => l.startsWith(prefix));
/** The responses the gateway sent (SIPp received), by CSeq. */
export const answersTo = (msgs: WireMessage[], cseq: string) => msgs.filter((m) => m.by === 'gateway' && m.startLine.startsWith('SIP/2.0 ') && m.header('CSeq') === cseq);

/** A log that keeps its messages, for what the simulated callee saw. */
export function recordingLog() {
  const lines: { msg: string; o: Record<string, unknown> }[] = [];
  const push = (o: object, msg: string) => lines.push({ msg, o: o as Record<string, unknown> });
  return { log: { info: push, warn: push, error: push }, count: (msg: string) => lines.filter((l) => l.msg === msg).length, lines };
}

/** Whether a TCP socket listens on `port`, from /proc/net/tcp (state 0A). */
async function tcpListening(port: number): Promise<boolean> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const text = await readFile('/proc/net/tcp', 'utf8').catch(() => '');
  return text.split('\n').some((line) => {
    const cols = line.trim().split(/\s+/);
    return cols[1]?.endsWith(hex) && cols[3] === '0A';
  });
}

/** The far ends a test starts, each closed after it through the rig's `cleanups` (sipRig). */
export function sipFixtures(cleanups: Array<() => Promise<void>>) {
  async function callee(speed = 10, media?: SimulatedCalleeOptions['media']) {
    const rec = recordingLog();
    const c = await startSimulatedCallee({ listen: '127.0.0.1:0', speed, log: rec.log, media });
    cleanups.push(() => c.close());
    return { ...c, ...rec, uri: (number: string) => `sip:${number}@${c.address}` };
  }

  /** A bare UDP socket speaking SIP by hand, keeping every message it gets. */
  async function rawSip() {
    const sock = dgram.createSocket('udp4');
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => sock.close(() => r())));
    const me = `127.0.0.1:${sock.address().port}`;
    const received: string[] = [];
    sock.on('message', (data) => received.push(data.toString('utf8')));
    return {
      me,
      received,
      /** The start lines received so far. */
      lines: () => received.map((m) => m.split('\r\n')[0]),
      /** Sends a request to `to` (host:port); `branch`, `callId` and `cseq` let a test repeat or CANCEL one. */
      send(to: string, method: string, o: { uri?: string; branch?: string; callId?: string; cseq?: string; toTag?: string } = {}) {
        const msg = [
          `${method} ${o.uri ?? `sip:${to}`} SIP/2.0`,
          `Via: SIP/2.0/UDP ${me};branch=${o.branch ?? `z9hG4bK${Math.random().toString(36).slice(2)}`}`,
          'Max-Forwards: 70',
          `From: <sip:probe@${me}>;tag=p1`,
          `To: <${o.uri ?? `sip:${to}`}>${o.toTag ?? ''}`,
          `Call-ID: ${o.callId ?? `${Math.random().toString(36).slice(2)}@probe`}`,
          `CSeq: ${o.cseq ?? `1 ${method}`}`,
          'Content-Length: 0',
          '',
          '',
        ].join('\r\n');
        const [host, port] = to.split(':') as [string, string];
        sock.send(msg, Number(port), host);
      },
      /** Waits until `n` messages came. */
      waitFor: (n: number) => until(`${n} SIP messages`, async () => received.length >= n, { timeoutMs: 3_000, detail: () => received.map((m) => m.split('\r\n')[0]).join(' | ') }),
    };
  }

  /**
   * SIPp running one scenario to its end: as the caller (`remote` given: it
   * sends to the stack at once), or as a callee over TCP (`listen`: waits until
   * it listens). Its trace, TCP or UDP, reads as wire() reads UDP.
   */
  async function runSipp(name: string, o: { remote?: string; tcp?: boolean; calls?: number; args?: string[] }) {
    const port = await freeUdpPort('127.0.0.1');
    const dir = await mkdtemp(path.join(tmpdir(), 'tolk-sipp-'));
    const args = [
      ...(o.remote ? [o.remote] : []),
      '-sf', sippScenario(name), '-i', '127.0.0.1', '-p', String(port), '-m', String(o.calls ?? 1), '-l', String(o.calls ?? 1), '-nostdin',
      ...(o.tcp ? ['-t', 't1'] : []),
      '-trace_msg', '-message_file', path.join(dir, 'messages.log'),
      '-trace_err', '-error_file', path.join(dir, 'errors.log'),
      '-timeout', '20s', '-timeout_error',
      ...(o.args ?? []),
    ];
    const child = spawn(SIPP, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let result: Promise<SippResult> | undefined;
    const done = () => (result ??= (async () => {
      const code = await exited;
      const trace = await readFile(path.join(dir, 'messages.log'), 'utf8').catch(() => '');
      const errors = (await readFile(path.join(dir, 'errors.log'), 'utf8').catch(() => '')) + stderr;
      await rm(dir, { recursive: true, force: true });
      return { code, trace: trace.replace(/^TCP message/gm, 'UDP message'), errors };
    })());
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await done();
    });
    if (!o.remote) await until('SIPp to listen on TCP', async () => (await tcpListening(port)) || child.exitCode !== null, 5_000);
    return { address: `127.0.0.1:${port}`, uri: (user: string) => `sip:${user}@127.0.0.1:${port};transport=tcp`, done };
  }

  return { callee, rawSip, runSipp };
}
