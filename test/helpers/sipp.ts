// SIPp (Debian's sip-tester) as the far end of a SIP test: one child process
// per scenario, playing the callee (UAS) on loopback for exactly one call
// (-m 1), with every message it sends and receives traced to a file that
// done() returns, so a test can assert the dialog on the wire.
//
// SIPp is a hard requirement of the gateway's tests: if it is missing,
// startSipp throws (a test that cannot run must not pass by being skipped).

import { spawn } from 'node:child_process';
import { access, constants, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeUdpPort } from '../../gateway/sip-stack.ts';
import { until } from './wait.ts';

export const SIPP = '/usr/bin/sipp';

/** A free even UDP port of 127.0.0.1 whose next port is free too: SIPp's media (`-mp`) and its RTCP. */
export async function evenFreePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = await freeUdpPort('127.0.0.1');
    if (p % 2 === 0 && p < 65534) return p;
  }
  throw new Error('no free even port');
}

export type SippOptions = {
  /** Path to the XML scenario. */
  scenario: string;
  /** `host:port` SIPp listens on; default 127.0.0.1 and a free port. */
  listen?: string;
  /** More SIPp arguments (e.g. `-nr` to turn off its retransmission handling). */
  extraArgs?: string[];
};

export type SippResult = {
  /** SIPp's exit code: 0 = the call passed its scenario, 1 = it failed, 99 = no call; null if killed. */
  code: number | null;
  /** SIPp's message trace (-trace_msg): every message sent and received, in order. */
  trace: string;
  /** Unexpected messages and scenario errors (-trace_err), and SIPp's stderr. */
  errors: string;
};

export type Sipp = {
  /** `host:port` SIPp listens on. */
  address: string;
  /** A SIP URI for `user` at SIPp: `sip:user@host:port`. */
  uri(user: string): string;
  /** Waits for SIPp to exit (its one call over) and returns its trace. */
  done(): Promise<SippResult>;
  /** Its message trace so far, while the call goes on (SIPp writes each message as it goes). */
  traceSoFar(): Promise<string>;
  /** Kills SIPp if still running and removes its files. Idempotent. */
  stop(): Promise<void>;
};

/** Whether a UDP socket is bound on `port` (any address), from /proc/net/udp{,6}. */
async function udpPortBound(port: number): Promise<boolean> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const file of ['/proc/net/udp', '/proc/net/udp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    // Column 2 is local_address as HEXIP:HEXPORT.
    if (text.split('\n').some((line) => line.trim().split(/\s+/)[1]?.endsWith(hex))) return true;
  }
  return false;
}

/** Starts SIPp on `opts.scenario`; resolves once it listens. */
export async function startSipp(opts: SippOptions): Promise<Sipp> {
  try {
    await access(SIPP, constants.X_OK);
  } catch {
    throw new Error(`SIPp is not installed at ${SIPP}: install Debian's sip-tester package (apt-get install sip-tester); the SIP gateway tests need it`);
  }
  const scenario = path.resolve(opts.scenario);
  await access(scenario, constants.R_OK);
  const host = opts.listen ? opts.listen.slice(0, opts.listen.lastIndexOf(':')) : '127.0.0.1';
  const port = opts.listen ? Number(opts.listen.slice(opts.listen.lastIndexOf(':') + 1)) : await freeUdpPort('127.0.0.1');
  const dir = await mkdtemp(path.join(tmpdir(), 'tolk-sipp-'));
  const messageFile = path.join(dir, 'messages.log');
  const errorFile = path.join(dir, 'errors.log');
  const extra = opts.extraArgs ?? [];
  const args = [
    '-sf', scenario,
    '-i', host,
    '-p', String(port),
    '-m', '1', // one call, then exit
    '-nostdin', // no keyboard: it is a child of the test
    '-trace_msg', '-message_file', messageFile,
    '-trace_err', '-error_file', errorFile,
    // A safety net: a scenario waiting for a message that never comes ends on its own.
    ...(extra.includes('-timeout') ? [] : ['-timeout', '30s', '-timeout_error']),
    ...extra,
  ];
  const child = spawn(SIPP, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (err) => {
      stderr += String(err);
      resolve(null);
    });
  });
  let running = true;
  void exited.then(() => {
    running = false;
  });

  // Read once, when SIPp has exited: stop() removes the files after reading them.
  let read: Promise<SippResult> | undefined;
  const result = (): Promise<SippResult> => (read ??= collect());
  const collect = async (): Promise<SippResult> => {
    const code = await exited;
    const trace = await readFile(messageFile, 'utf8').catch(() => '');
    const errors = (await readFile(errorFile, 'utf8').catch(() => '')) + stderr;
    return { code, trace, errors };
  };

  await until(`SIPp to listen on ${host}:${port}`, async () => !running || (await udpPortBound(port)), 5_000).catch(async (err: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${err.message}; SIPp stderr: ${stderr}`);
  });
  if (!running) {
    const r = await result();
    throw new Error(`SIPp exited at start (code ${r.code}): ${r.errors}`);
  }

  let stopped: Promise<void> | undefined;
  return {
    address: `${host}:${port}`,
    uri: (user) => `sip:${user}@${host}:${port}`,
    done: result,
    traceSoFar: () => readFile(messageFile, 'utf8').catch(() => ''),
    stop() {
      stopped ??= (async () => {
        if (running) {
          // SIGINT lets SIPp flush its traces; SIGKILL if it does not go.
          child.kill('SIGINT');
          const gone = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 1_000))]);
          if (!gone) child.kill('SIGKILL');
          await exited;
        }
        await result();
        await rm(dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

/** SIPp's result once its call is over (a scenario that stalls fails the test with its trace). */
export async function finished(s: Sipp, timeoutMs = 5_000): Promise<SippResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`SIPp did not finish its scenario in ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([s.done(), timeout]);
  } catch (err) {
    await s.stop();
    const r = await s.done();
    throw new Error(`${(err as Error).message}\ntrace:\n${r.trace}\nerrors:\n${r.errors}`);
  } finally {
    clearTimeout(timer);
  }
}

export type WireMessage = { by: 'gateway' | 'sipp'; startLine: string; text: string; header(name: string): string | undefined; body: string };

/** SIPp's -trace_msg file as the list of messages, `by` the side that sent each. */
export function wire(trace: string): WireMessage[] {
  const out: WireMessage[] = [];
  for (const block of trace.split(/^-{10,} .*$/m)) {
    const m = /^\s*UDP message (received|sent) (?:\[\d+\] bytes|\(\d+ bytes\))\s*:[ \t]*\r?\n\r?\n([\s\S]*)$/.exec(block);
    if (!m) continue;
    const text = m[2]!.replace(/\n\s*$/, '\n');
    const [head = '', body = ''] = text.split(/\r?\n\r?\n/, 2);
    const lines = head.split(/\r?\n/);
    out.push({
      by: m[1] === 'received' ? 'gateway' : 'sipp',
      startLine: lines[0]!.trim(),
      text,
      header: (name) => lines.find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.replace(/^[^:]+:\s*/, '').trim(),
      body,
    });
  }
  return out;
}

/**
 * The messages without their retransmissions (the same text again, over UDP): a loaded machine
 * can be slow enough to ACK that SIPp sends its 200 again, which RFC 3261 allows and we ACK again.
 */
export function once(msgs: WireMessage[]): WireMessage[] {
  return msgs.filter((m, i) => !msgs.slice(0, i).some((x) => x.by === m.by && x.text === m.text));
}

/** The start lines, `>` from the gateway, `<` from SIPp: `> INVITE`, `< 180 Ringing`. */
export function flow(msgs: WireMessage[]): string[] {
  return msgs.map((m) => `${m.by === 'gateway' ? '>' : '<'} ${m.startLine.startsWith('SIP/2.0 ') ? m.startLine.slice(8) : m.startLine.split(' ')[0]}`);
}
