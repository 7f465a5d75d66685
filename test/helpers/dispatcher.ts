// The layout of ops/kamailio/ under test: Kamailio with its dispatcher as the
// one SIP address in front of several gateways, a SIPp callee behind it that
// takes many calls, and a sink for the audio the gateways send.
//
// - startDispatcher runs ops/kamailio/kamailio.cfg as written, its settings
//   given at start (-A), with a dispatcher.list of the test's gateways.
// - calleeScenario writes a SIPp callee for any number of calls: it answers
//   as a person (X-Tolk-Answered-By: human), its audio at `mediaPort`, holds
//   the line `holdMs` after the ACK, hangs up (BYE along the route set) and
//   takes the BYE's 200, or the 481 Kamailio answers for a gateway it took out.
// - startRtpSink counts, per sender, the RTP packets that carry speech.

import { createSocket } from 'node:dgram';
import net from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeUdpPort } from '../../gateway/sip-stack.ts';
import { KAMAILIO } from './kamailio.ts';
import { requireBinary, startPeerProcess } from './peer.ts';
import { ROOT } from './process.ts';

export const DISPATCHER_CFG = path.join(ROOT, 'ops/kamailio/kamailio.cfg');

export type DispatchedCall = { callId: string; gateway: string; to: string };

export type Dispatcher = {
  /** `host:port`: the one SIP address. */
  address: string;
  /** The INVITEs it relayed from a gateway, in order. */
  calls(): DispatchedCall[];
  /** What its probes found, in order: a gateway (`host:port`) taken out (down) or back in (up); a gateway starts out before its process answers. */
  probes(): Array<{ state: 'up' | 'down'; gateway: string }>;
  log(): string;
  stop(): Promise<void>;
};

/**
 * Kamailio on 127.0.0.3 with the dispatcher config of ops/kamailio, the
 * `gateways` (`host:port`) as its set 1, calls to itself sent on to `carrier`
 * (`host:port`); probes every `pingSeconds`, a gateway out after
 * `probingThreshold` unanswered ones, each unanswered after `frTimerMs`.
 */
export async function startDispatcher(o: { gateways: string[]; carrier: string; pingSeconds: number; probingThreshold: number; frTimerMs: number }): Promise<Dispatcher> {
  await requireBinary(KAMAILIO, 'kamailio', 'Kamailio');
  const host = '127.0.0.3';
  const port = await freeUdpPort(host);
  const dir = await mkdtemp(path.join(tmpdir(), 'tolk-dispatcher-'));
  const list = path.join(dir, 'dispatcher.list');
  await writeFile(list, o.gateways.map((g) => `1 sip:${g}\n`).join(''));
  const peer = await startPeerProcess({
    name: 'kamailio (dispatcher)', bin: KAMAILIO, dir, ready: /SO_RCVBUF is finally/,
    args: [
      '-f', DISPATCHER_CFG, '-DD', '-E', '-Y', dir, '-P', path.join(dir, 'kamailio.pid'),
      '-A', `LISTEN=udp:${host}:${port}`,
      '-A', `CARRIER="sip:${o.carrier}"`,
      '-A', `DISPATCHER_LIST="${list}"`,
      '-A', `PING_INTERVAL=${o.pingSeconds}`,
      '-A', `PROBING_THRESHOLD=${o.probingThreshold}`,
      '-A', `FR_TIMER=${o.frTimerMs}`,
      '-A', `CTL="unix:${path.join(dir, 'ctl')}"`,
    ],
  });
  return {
    address: `${host}:${port}`,
    calls: () => [...peer.log().matchAll(/tolk: call (\S+) from gateway (\S+) to (\S+)/g)].map((m) => ({ callId: m[1]!, gateway: m[2]!, to: m[3]! })),
    probes: () => [...peer.log().matchAll(/tolk: gateway (up|down) sip:(\S+)/g)].map((m) => ({ state: m[1] as 'up' | 'down', gateway: m[2]! })),
    log: peer.log,
    stop: peer.stop,
  };
}

/** Whether `port` of `host` can be bound for UDP and TCP right now. */
async function bindable(host: string, port: number): Promise<boolean> {
  const udp = createSocket('udp4');
  const udpOk = await new Promise<boolean>((ok) => { udp.once('error', () => ok(false)); udp.bind(port, host, () => ok(true)); });
  await new Promise<void>((ok) => udp.close(() => ok()));
  if (!udpOk) return false;
  const tcp = net.createServer();
  const tcpOk = await new Promise<boolean>((ok) => { tcp.once('error', () => ok(false)); tcp.listen(port, host, () => ok(true)); });
  if (tcpOk) await new Promise<void>((ok) => tcp.close(() => ok()));
  return tcpOk;
}

/**
 * A port of 127.0.0.1 free for UDP and TCP below the kernel's ephemeral range
 * (32768 and up): a gateway's SIP address, written into dispatcher.list before
 * its process starts, which no socket bound to port 0 meanwhile (another
 * process's RTP, a test's peer) can take.
 */
export async function gatewayPort(): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (await bindable('127.0.0.1', port)) return port;
  }
  throw new Error('no free port below the ephemeral range');
}

/** A SIPp callee scenario for many calls (see the top of this file); returns its path and a remover. */
export async function calleeScenario(o: { holdMs: number; mediaPort: number }): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tolk-callee-'));
  const file = path.join(dir, 'callee.xml');
  const crlf = (s: string) => `<![CDATA[\n\n${s.trim().split('\n').map((l) => `      ${l.trim()}`).join('\n')}\n\n    ]]>`;
  await writeFile(file, `<?xml version="1.0" encoding="ISO-8859-1" ?>
<!DOCTYPE scenario SYSTEM "sipp.dtd">
<scenario name="callee behind a dispatcher">
  <recv request="INVITE" crlf="true" rrs="true">
    <action>
      <ereg regexp=".*" search_in="hdr" header="From:" check_it="true" assign_to="caller"/>
    </action>
  </recv>
  <send>
    ${crlf(`SIP/2.0 180 Ringing
      [last_Via:]
      [last_From:]
      [last_Record-Route:]
      [last_To:];tag=[pid]SIPpTag01[call_number]
      [last_Call-ID:]
      [last_CSeq:]
      Contact: <sip:callee@[local_ip]:[local_port];transport=[transport]>
      Content-Length: 0`)}
  </send>
  <send retrans="500">
    ${crlf(`SIP/2.0 200 OK
      [last_Via:]
      [last_From:]
      [last_Record-Route:]
      [last_To:];tag=[pid]SIPpTag01[call_number]
      [last_Call-ID:]
      [last_CSeq:]
      Contact: <sip:callee@[local_ip]:[local_port];transport=[transport]>
      X-Tolk-Answered-By: human
      Content-Type: application/sdp
      Content-Length: [len]

      v=0
      o=callee 53655765 2353687637 IN IP4 127.0.0.1
      s=-
      c=IN IP4 127.0.0.1
      t=0 0
      m=audio ${o.mediaPort} RTP/AVP 0 101
      a=rtpmap:0 PCMU/8000
      a=rtpmap:101 telephone-event/8000`)}
  </send>
  <recv request="ACK" crlf="true"/>
  <pause milliseconds="${o.holdMs}"/>
  <send retrans="500">
    ${crlf(`BYE [next_url] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      [routes]
      From: <sip:callee@[local_ip]:[local_port]>;tag=[pid]SIPpTag01[call_number]
      To:[$caller]
      Call-ID: [call_id]
      CSeq: 1 BYE
      Max-Forwards: 70
      Contact: <sip:callee@[local_ip]:[local_port];transport=[transport]>
      Content-Length: 0`)}
  </send>
  <recv response="481" optional="true" next="over"/>
  <recv response="200"/>
  <label id="over"/>
</scenario>
`);
  return { path: file, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** G.711 µ-law to a linear sample's magnitude. */
function ulawMagnitude(b: number): number {
  const u = ~b & 0xff;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  return (((mantissa << 3) + 0x84) << exponent) - 0x84;
}

export type RtpSink = {
  port: number;
  /** Packets from `sender` (`host:port`) with speech in them (PCMU louder than the engines' quiet padding). */
  voiced(sender: string): number;
  /** Every sender heard so far. */
  senders(): string[];
  close(): Promise<void>;
};

/** A UDP socket on 127.0.0.1 that takes RTP from anyone and counts, per sender, the packets that carry speech. */
export async function startRtpSink(): Promise<RtpSink> {
  const socket = createSocket('udp4');
  const voiced = new Map<string, number>();
  socket.on('message', (msg, rinfo) => {
    const sender = `${rinfo.address}:${rinfo.port}`;
    if (!voiced.has(sender)) voiced.set(sender, 0);
    if (msg.length <= 12 || (msg[0]! >> 6) !== 2 || (msg[1]! & 0x7f) !== 0) return; // PCMU only
    const start = 12 + (msg[0]! & 0x0f) * 4;
    let loud = 0;
    for (let i = start; i < msg.length; i++) if (ulawMagnitude(msg[i]!) > 500) loud++;
    if (loud >= 8) voiced.set(sender, voiced.get(sender)! + 1);
  });
  await new Promise<void>((ok, fail) => { socket.once('error', fail); socket.bind(0, '127.0.0.1', () => ok()); });
  return {
    port: socket.address().port,
    voiced: (sender) => voiced.get(sender) ?? 0,
    senders: () => [...voiced.keys()],
    close: () => new Promise<void>((ok) => socket.close(() => ok())),
  };
}
