// SIP that carriers accept, for the embedded stack
// (sip-stack.ts): each behaviour against SIPp playing one scenario
// (gateway/sipp/*.xml), the peer's side asserted from SIPp's message trace.
// SIPp plays the callee (UAS) as in sip-stack.test.ts, or the caller (UAC)
// sending requests to the stack, over UDP or TCP.

import dgram from 'node:dgram';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { freeUdpPort } from './sip-stack.ts';
import { MediaPlane } from './media/plane.ts';
import type { Negotiated } from './media/sdp.ts';
import { finished, flow, SIPP, startSipp, wire, type SippResult, type WireMessage } from '../test/helpers/sipp.ts';
import { sipRig, sippScenario } from '../test/helpers/sip-rig.ts';
import { quietFor, until } from '../test/helpers/wait.ts';

const { cleanups, signaling, sipp: callee } = sipRig();
const scenario = sippScenario;

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
    '-sf', scenario(name), '-i', '127.0.0.1', '-p', String(port), '-m', String(o.calls ?? 1), '-l', String(o.calls ?? 1), '-nostdin',
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

/** Whether a TCP socket listens on `port`, from /proc/net/tcp (state 0A). */
async function tcpListening(port: number): Promise<boolean> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const text = await readFile('/proc/net/tcp', 'utf8').catch(() => '');
  return text.split('\n').some((line) => {
    const cols = line.trim().split(/\s+/);
    return cols[1]?.endsWith(hex) && cols[3] === '0A';
  });
}

const branchOf = (m: WireMessage | undefined) => /branch=([^;\s]+)/.exec(m?.header('Via') ?? '')?.[1];
const tagIn = (h: string | undefined) => /;tag=([^;\s]+)/.exec(h ?? '')?.[1];
const sdpLine = (m: WireMessage, prefix: string) => m.body.split(/\r?\n/).find((l) => l.startsWith(prefix));
/** The responses the gateway sent (SIPp received), by CSeq. */
const answersTo = (msgs: WireMessage[], cseq: string) => msgs.filter((m) => m.by === 'gateway' && m.startLine.startsWith('SIP/2.0 ') && m.header('CSeq') === cseq);

describe('1. branches and tags: crypto.randomBytes, not Math.random', () => {
  test('INVITE, ACK, CANCEL and BYE branches are z9hG4bK + 96 random bits, tags 64; two calls never share one even when Math.random repeats itself', async () => {
    // `sip` makes its branches from Math.random: pinned, they would all be the same.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    cleanups.push(async () => void random.mockRestore());
    const answered = await callee('answer-wait-bye');
    const ringing = await callee('ring-until-cancel');
    const h = await signaling();
    await h.sig.place({ key: 'a', target: answered.uri('+15551230101'), from: '+15550000000' });
    await h.sig.place({ key: 'r', target: ringing.uri('+15551230102'), from: '+15550000000' });
    await h.waitFor('a', 2);
    await h.waitFor('r', 1);
    await h.sig.hangup('a');
    await h.sig.hangup('r');
    expect(await h.waitFor('r', 2)).toEqual([{ type: 'ringing', status: 180 }, { type: 'rejected', status: 487, reason: 'Request Terminated' }]);

    const a = wire((await finished(answered)).trace);
    const r = wire((await finished(ringing)).trace);
    expect(flow(a)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    expect(flow(r)).toEqual(['> INVITE', '< 180 Ringing', '> CANCEL', '< 200 OK', '< 487 Request Terminated', '> ACK']);
    const ours = [...a, ...r].filter((m) => m.by === 'gateway');
    for (const m of ours) expect(branchOf(m), m.startLine).toMatch(/^z9hG4bK[0-9a-f]{24}$/);
    // A new transaction, a new branch; the CANCEL and the ACK of the 487 share the INVITE's (RFC 3261 9.1, 17.1.1.3).
    expect(new Set([...a.filter((m) => m.by === 'gateway').map(branchOf), branchOf(r[0])]).size).toBe(4);
    expect(branchOf(r[2])).toBe(branchOf(r[0]));
    expect(branchOf(r[5])).toBe(branchOf(r[0]));
    for (const m of [a[0]!, r[0]!]) expect(tagIn(m.header('From'))).toMatch(/^[0-9a-f]{16}$/);
    expect(tagIn(a[0]!.header('From'))).not.toBe(tagIn(r[0]!.header('From')));
  });

  test('an answer to a stranger carries a To tag of 64 random bits', async () => {
    const h = await signaling();
    const s = await runSipp('options', { remote: h.sig.address, args: ['-nr'] });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    const [, ok] = wire(r.trace);
    expect(tagIn(ok!.header('To'))).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('2. re-INVITE and UPDATE on an answered dialog', () => {
  /** The o= version of an SDP body. */
  const version = (m: WireMessage) => Number(sdpLine(m, 'o=')!.split(' ')[2]);

  test('hold, session refresh, resume, old-style hold, an offerless re-INVITE: each answered 200, our SDP mirroring the offer; the call goes on', async () => {
    const s = await callee('reinvite-hold-update');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230201'), from: '+15550000000' });
    const r = await finished(s, 10_000);
    expect(r.code, r.errors).toBe(0);
    expect(h.of('c1')).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'answered', status: 200, voicemail: false },
      { type: 'remote_hangup' },
    ]);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual([
      '> INVITE', '< 180 Ringing', '< 200 OK', '> ACK',
      '< INVITE', '> 200 OK', '< ACK',
      '< UPDATE', '> 200 OK',
      '< UPDATE', '> 200 OK',
      '< INVITE', '> 200 OK', '< ACK',
      '< INVITE', '> 200 OK', '< ACK',
      '< BYE', '> 200 OK',
    ]);
    const contact = msgs[0]!.header('Contact');
    const [hold] = answersTo(msgs, '1 INVITE');
    const [refresh] = answersTo(msgs, '2 UPDATE');
    const [resume] = answersTo(msgs, '3 UPDATE');
    const [oldHold] = answersTo(msgs, '4 INVITE');
    const [offer] = answersTo(msgs, '5 INVITE');
    for (const ok of [hold, refresh, resume, oldHold, offer]) {
      expect(ok!.startLine).toBe('SIP/2.0 200 OK');
      expect(ok!.header('Supported')).toBe('timer');
      expect(ok!.header('Allow')).toBe('INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE');
      expect(ok!.header('Contact')).toBe(contact);
      expect(tagIn(ok!.header('To'))).toBe(tagIn(msgs[0]!.header('From')));
    }
    // RFC 4028: the session timer of the request echoed, the requester refreshes.
    for (const ok of [hold, refresh]) {
      expect(ok!.header('Session-Expires')).toBe('1800;refresher=uac');
      expect(ok!.header('Require')).toBe('timer');
    }
    // Hold (a=sendonly): we answer a=recvonly; resume: a=sendrecv; c=0.0.0.0: recvonly too.
    expect(hold!.header('Content-Type')).toBe('application/sdp');
    expect(hold!.body).toMatch(/^a=recvonly\r?$/m);
    expect(sdpLine(hold!, 'm=')).toMatch(/^m=audio 9 RTP\/AVP 0 101/); // no media plane: the discard port
    expect(refresh!.body).toBe('');
    expect(resume!.body).toMatch(/^a=sendrecv\r?$/m);
    expect(oldHold!.body).toMatch(/^a=recvonly\r?$/m);
    expect(oldHold!.header('Session-Expires')).toBeUndefined();
    // No offer in the re-INVITE: the 200 offers (both codecs), the ACK answered.
    expect(offer!.body).toMatch(/^m=audio 9 RTP\/AVP 0 8 101/m);
    expect(offer!.body).toMatch(/^a=sendrecv\r?$/m);
    // One SDP session, its version one up each time (RFC 3264 8).
    const ours = [hold, resume, oldHold, offer].map((m) => version(m!));
    expect(ours).toEqual([...ours].sort((x, y) => x - y));
    expect(new Set(ours).size).toBe(4);
    expect(new Set([msgs[0]!, hold!, resume!, oldHold!, offer!].map((m) => sdpLine(m, 'o=')!.split(' ')[1]))).toHaveLength(1);
  });

  test('with a media plane: the answer names our RTP port; the plane is told the hold, and keeps the destination through it', async () => {
    const plane = await MediaPlane.start('127.0.0.1');
    cleanups.push(() => plane.stop());
    const told: Negotiated[] = [];
    const connect = plane.connect.bind(plane);
    plane.connect = async (key, remote) => {
      told.push(remote);
      return connect(key, remote);
    };
    const s = await callee('reinvite-hold-update');
    const h = await signaling({ media: plane });
    await h.sig.place({ key: 'c1', target: s.uri('+15551230202'), from: '+15550000000' });
    const r = await finished(s, 10_000);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    const port = sdpLine(msgs[0]!, 'm=')!.split(' ')[1];
    expect(port).not.toBe('9');
    for (const ok of [...answersTo(msgs, '1 INVITE'), ...answersTo(msgs, '3 UPDATE'), ...answersTo(msgs, '5 INVITE')]) {
      expect(sdpLine(ok, 'm=')!.split(' ')[1]).toBe(port);
    }
    // The answer, hold, resume, hold (c=0.0.0.0: no destination, so the old one kept), the answer in the last ACK.
    expect(told.map((n) => n.direction)).toEqual(['sendrecv', 'sendonly', 'sendrecv', 'sendonly', 'sendrecv']);
    expect(new Set(told.map((n) => `${n.address}:${n.port}`)).size).toBe(1);
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
  });
});

describe('2. (the 2xx and errors of a re-INVITE on the wire)', () => {
  test('our 200 to a re-INVITE is retransmitted over UDP until its ACK, then no more', async () => {
    // -nr: see the scenario's header.
    const s = await callee('reinvite-late-ack', ['-nr']);
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230203'), from: '+15550000000' });
    const r = await finished(s, 10_000);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< INVITE', '> 200 OK', '> 200 OK', '< ACK', '< BYE', '> 200 OK']);
    expect(msgs[6]!.text).toBe(msgs[5]!.text);
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
  });

  test('an in-dialog offer we cannot take: 488, retransmitted until the ACK over UDP (Timer G), the call goes on', async () => {
    const s = await callee('reinvite-refused');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230204'), from: '+15550000000' });
    const r = await finished(s, 10_000);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(answersTo(msgs, '1 INVITE').filter((m) => m.startLine === 'SIP/2.0 488 Not Acceptable Here').length).toBeGreaterThanOrEqual(2);
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
  });
});

describe('2. (the refusals of a re-INVITE or UPDATE, each followed by the call going on)', () => {
  /** Places a call to SIPp playing `name`, waits for its end, and checks the call went on to the callee's BYE. */
  async function midCall(name: string, number: string) {
    const s = await callee(name);
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri(number), from: '+15550000000' });
    const r = await finished(s, 10_000);
    expect(r.code, r.errors).toBe(0);
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
    return wire(r.trace);
  }

  test('420: a re-INVITE requiring an option tag we do not have is refused, naming it in Unsupported', async () => {
    const msgs = await midCall('reinvite-420', '+15551230205');
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< INVITE', '> 420 Bad Extension', '< ACK', '< BYE', '> 200 OK']);
    const [bad] = answersTo(msgs, '1 INVITE');
    expect(bad!.header('Unsupported')).toBe('x-tolk-unknown');
    expect(bad!.body).toBe('');
  });

  test('422: a session interval below 90 s is refused with Min-SE: 90; asked again at 90 s, it is taken', async () => {
    const msgs = await midCall('update-422', '+15551230206');
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< UPDATE', '> 422 Session Interval Too Small', '< UPDATE', '> 200 OK', '< BYE', '> 200 OK']);
    const [small] = answersTo(msgs, '1 UPDATE');
    expect(small!.header('Min-SE')).toBe('90');
    const [ok] = answersTo(msgs, '2 UPDATE');
    expect(ok!.header('Session-Expires')).toBe('90;refresher=uac');
  });

  test('491: an offer crossing ours (ours in the 200 to an offerless re-INVITE, its answer not yet in the ACK); after the ACK the same offer is taken', async () => {
    const msgs = await midCall('update-491', '+15551230207');
    const [offer] = answersTo(msgs, '1 INVITE');
    expect(offer!.startLine).toBe('SIP/2.0 200 OK');
    expect(offer!.body).toMatch(/^m=audio 9 RTP\/AVP 0 8 101/m);
    expect(answersTo(msgs, '2 UPDATE').map((m) => m.startLine)).toEqual(['SIP/2.0 491 Request Pending']);
    const [taken] = answersTo(msgs, '3 UPDATE');
    expect(taken!.startLine).toBe('SIP/2.0 200 OK');
    expect(taken!.body).toMatch(/^a=sendrecv\r?$/m);
    // Our 200 to the re-INVITE may come again before its ACK (UDP): a retransmission is left out.
    const once = msgs.filter((m, i) => !msgs.slice(0, i).some((x) => x.text === m.text));
    expect(flow(once)).toEqual([
      '> INVITE', '< 180 Ringing', '< 200 OK', '> ACK',
      '< INVITE', '> 200 OK', '< UPDATE', '> 491 Request Pending', '< ACK', '< UPDATE', '> 200 OK', '< BYE', '> 200 OK',
    ]);
  });

  test('500: a request older than the last one of the dialog (an offer in UPDATE CSeq 1 after CSeq 2) is refused with Retry-After', async () => {
    const msgs = await midCall('update-500', '+15551230208');
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< UPDATE', '> 200 OK', '< UPDATE', '> 500 Server Internal Error', '< BYE', '> 200 OK']);
    const [late] = answersTo(msgs, '1 UPDATE');
    expect(late!.header('Retry-After')).toBe('1');
    expect(late!.body).toBe('');
  });
});

describe('4. strict parsing, and no response sent twice over TCP', () => {
  test('over TCP the same 488 is written once, whatever the wait for its ACK (Timer G is for UDP)', async () => {
    const s = await runSipp('reinvite-refused', { tcp: true });
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230401'), from: '+15550000000' });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< INVITE', '> 488 Not Acceptable Here', '< ACK', '< BYE', '> 200 OK']);
    expect(msgs[0]!.header('Via')).toMatch(/^SIP\/2.0\/TCP /);
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
  });

  test('505 for another SIP version, 501 for an unknown method, 400 without From, nothing without Via; a good request still answered', async () => {
    const h = await signaling();
    const s = await runSipp('malformed', { remote: h.sig.address, args: ['-nr'] });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual([
      '< OPTIONS', '> 505 Version Not Supported',
      '< FROBNICATE', '> 501 Not Implemented',
      '< OPTIONS', '> 400 Missing From',
      '< OPTIONS',
      '< OPTIONS', '> 200 OK',
    ]);
    expect(msgs[1]!.startLine).toMatch(/^SIP\/2.0 /);
    // Refusals are not the operator's business: nothing at warn.
    expect(h.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });

  test('a raw request missing Call-ID, CSeq or To, or whose CSeq names another method: 400 to where it came from', async () => {
    const h = await signaling();
    const sock = dgram.createSocket('udp4');
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => sock.close(() => r())));
    const me = `127.0.0.1:${sock.address().port}`;
    const received: string[] = [];
    sock.on('message', (d) => received.push(d.toString('utf8')));
    const [host, port] = h.sig.address.split(':') as [string, string];
    const request = (omit: string, cseq = '1 OPTIONS') => [
      `OPTIONS sip:${h.sig.address} SIP/2.0`,
      `Via: SIP/2.0/UDP ${me};branch=z9hG4bK${omit.toLowerCase()}1`,
      `From: <sip:probe@${me}>;tag=p1`,
      `To: <sip:${h.sig.address}>`,
      `Call-ID: ${omit}@probe`,
      `CSeq: ${cseq}`,
      'Content-Length: 0',
      '', '',
    ].filter((l) => !l.startsWith(`${omit}:`)).join('\r\n');
    for (const [omit, cseq] of [['Call-ID'], ['CSeq'], ['To'], ['none', '1 INVITE']] as [string, string?][]) {
      const n = received.length;
      sock.send(request(omit, cseq), Number(port), host);
      await until(`the answer to a request without ${omit}`, async () => received.length > n, 2_000);
    }
    expect(received.map((m) => m.split('\r\n')[0])).toEqual([
      'SIP/2.0 400 Missing Call-ID',
      'SIP/2.0 400 Missing CSeq',
      'SIP/2.0 400 Missing To',
      'SIP/2.0 400 CSeq Method Does Not Match',
    ]);
    for (const m of received) expect(m).toMatch(new RegExp(`^Via: SIP/2.0/UDP ${me};branch=`, 'm'));
  });
});

describe('3. requests from outside our dialogs', () => {
  test('an INVITE to us: 403 once, never on its own (no reflection); the same INVITE again gets the same 403; a second caller logged at debug', async () => {
    const h = await signaling();
    // Two strangers' calls at once from the same address, each with its own Call-ID.
    const s = await runSipp('call-us-refused', { remote: h.sig.address, calls: 2, args: ['-nr'] });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    for (const callId of new Set(msgs.map((m) => m.header('Call-ID')))) {
      const call = msgs.filter((m) => m.header('Call-ID') === callId);
      // 2.5 s without an ACK, and only the retransmitted INVITE got a second 403.
      expect(flow(call)).toEqual(['< INVITE', '> 403 Forbidden', '< INVITE', '> 403 Forbidden', '< ACK']);
      expect(call[3]!.text).toBe(call[1]!.text);
      expect(branchOf(call[2])).toBe(branchOf(call[0]));
      expect(tagIn(call[1]!.header('To'))).toMatch(/^[0-9a-f]{16}$/);
    }
    const refused = h.lines.filter((l) => l.msg === 'sip: INVITE from outside our dialogs refused');
    expect(refused.map((l) => l.level)).toEqual(['info', 'debug']);
    expect(refused[0]!.o.status).toBe(403);
    expect(h.lines.filter((l) => l.msg === 'sip: a retransmitted request from outside our dialogs').map((l) => l.level)).toEqual(['debug', 'debug']);
    expect(h.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    expect(h.events).toEqual([]);
  });

  test('over TCP: 403 once, and the same INVITE again gets nothing (no response twice on a reliable transport)', async () => {
    const h = await signaling();
    const s = await runSipp('call-us-refused-tcp', { remote: h.sig.address, tcp: true });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['< INVITE', '> 403 Forbidden', '< INVITE', '< ACK']);
  });

  test('from one of our trunks (the fromTrunk hook): 480', async () => {
    const h = await signaling({ fromTrunk: (source) => source.address === '127.0.0.1' });
    const s = await runSipp('call-us-refused-tcp', { remote: h.sig.address, tcp: true });
    expect(flow(wire((await s.done()).trace)).slice(0, 2)).toEqual(['< INVITE', '> 480 Temporarily Unavailable']);
  });

  test('OPTIONS: 200, Allow lists only what we take, Supported: timer', async () => {
    const h = await signaling();
    const s = await runSipp('options', { remote: h.sig.address });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    const [, ok] = wire(r.trace);
    expect(ok!.startLine).toBe('SIP/2.0 200 OK');
    expect(ok!.header('Allow')).toBe('INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE');
    expect(ok!.header('Supported')).toBe('timer');
    expect(ok!.header('Accept')).toBe('application/sdp');
  });
});

describe('5. an unreachable destination fails the call at once', () => {
  test('a closed UDP port: no_response within a second (ICMP port unreachable), and the INVITE is not sent on', async () => {
    const h = await signaling({ noResponseSeconds: 30 });
    const port = await freeUdpPort('127.0.0.1'); // nothing listens there
    const t0 = Date.now();
    await h.sig.place({ key: 'c1', target: `sip:+15551230501@127.0.0.1:${port}`, from: '+15550000000' });
    expect(await h.waitFor('c1', 1, 1_000)).toEqual([{ type: 'no_response' }]);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(h.sig.active()).toEqual([]);
    const unreachable = h.lines.find((l) => l.msg === "sip: the INVITE's destination is unreachable");
    expect(unreachable?.o.code).toBe('ECONNREFUSED');
    // Had it been sent on, a socket bound there now would hear its retransmissions.
    const late = dgram.createSocket('udp4');
    const heard: string[] = [];
    late.on('message', (d) => heard.push(d.toString('utf8')));
    await new Promise<void>((r) => late.bind(port, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => late.close(() => r())));
    // INVITE retransmissions come at 0.5, 1 and 2 s (RFC 3261 Timer A): 2.5 s would hear two at least.
    await quietFor(2_500);
    expect(heard).toEqual([]);
  });

  test('a closed TCP port: no_response at once (connection refused)', async () => {
    const h = await signaling({ noResponseSeconds: 30 });
    const port = await freeUdpPort('127.0.0.1');
    const t0 = Date.now();
    await h.sig.place({ key: 'c1', target: `sip:+15551230502@127.0.0.1:${port};transport=tcp`, from: '+15550000000' });
    expect(await h.waitFor('c1', 1, 1_000)).toEqual([{ type: 'no_response' }]);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  test('a peer that listens but stays silent is not taken for unreachable: no_response only after noResponseSeconds', async () => {
    const s = await callee('never-answer');
    const h = await signaling({ noResponseSeconds: 1.5 });
    const t0 = Date.now();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230503'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1, 3_000)).toEqual([{ type: 'no_response' }]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_400);
    expect(h.lines.some((l) => l.msg === "sip: the INVITE's destination is unreachable")).toBe(false);
  });
});

describe('6. 3xx: a redirect followed once, to the same number', () => {
  test('302 to the same number: the 302 ACKed, a new INVITE to its Contact in the same call (next CSeq), answered and hung up as usual', async () => {
    const s = await callee('redirect-then-answer');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230601'), from: '+15550000000', headers: { 'X-Tolk-Call': 'c1' } });
    expect(await h.waitFor('c1', 2)).toEqual([{ type: 'ringing', status: 180 }, { type: 'answered', status: 200, voicemail: false }]);
    await h.sig.hangup('c1');
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 302 Moved Temporarily', '> ACK', '> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    const [first, moved, ack, second] = msgs;
    expect(branchOf(ack)).toBe(branchOf(first));
    expect(second!.startLine).toBe(`INVITE ${/<([^>]+)>/.exec(moved!.header('Contact')!)![1]} SIP/2.0`);
    expect(second!.header('Call-ID')).toBe(first!.header('Call-ID'));
    expect(second!.header('From')).toBe(first!.header('From'));
    expect(second!.header('To')).toBe(first!.header('To'));
    expect(second!.header('CSeq')).toBe('2 INVITE');
    expect(second!.header('X-Tolk-Call')).toBe('c1');
    expect(second!.body).toBe(first!.body);
    expect(branchOf(second)).not.toBe(branchOf(first));
    expect(msgs[6]!.header('CSeq')).toBe('2 ACK');
    expect(msgs[7]!.header('CSeq')).toBe('3 BYE');
  });

  test('a second redirect ends the call: rejected with the 302', async () => {
    const s = await callee('redirect-twice');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230602'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1)).toEqual([{ type: 'rejected', status: 302, reason: 'Moved Temporarily' }]);
    expect(h.sig.active()).toEqual([]);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 302 Moved Temporarily', '> ACK', '> INVITE', '< 302 Moved Temporarily', '> ACK']);
  });

  test.each([
    ['another number', (at: string) => `<sip:+15559999999@${at}>`],
    ['a tel: URI', () => '<tel:+15551230603>'],
    ['a sips: URI', (at: string) => `<sips:+15551230603@${at}>`],
  ])('a redirect to %s is not followed: rejected with the 302', async (_what, contact) => {
    const at = `127.0.0.1:${await freeUdpPort('127.0.0.1')}`;
    const s = await startSipp({ scenario: scenario('redirect-elsewhere'), listen: at, extraArgs: ['-set', 'contact', contact(at)] });
    cleanups.push(() => s.stop());
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230603'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1)).toEqual([{ type: 'rejected', status: 302, reason: 'Moved Temporarily' }]);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 302 Moved Temporarily', '> ACK']);
    // The redirect not followed: nothing more is reported after the ACK (200 ms, well past handling it).
    await quietFor(200);
    expect(h.of('c1')).toHaveLength(1);
  });
});
