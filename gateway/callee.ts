// The built-in simulated callee: a SIP user agent (UAS) on loopback, on its
// own `sip` stack, that answers the gateway's INVITEs the way a phone network
// would, chosen by the last four digits of the dialed number so that tests and
// the simulator can ask for each outcome:
//
//   ...0100  486 Busy Here
//   ...0101  180 Ringing, then 480 Temporarily Unavailable after 5 s
//   ...0102  180 Ringing, then after 1 s 200 OK from voicemail
//            (header `X-Tolk-Answered-By: voicemail`)
//   ...0103  503 Service Unavailable
//   other    180 Ringing, then after 1 s 200 OK; up until BYE
//
// Every delay is divided by `speed` (TOLK_SIM_SPEED). `sip`'s server
// transactions absorb retransmitted INVITEs and retransmit our non-2xx finals
// until ACKed; the 2xx is retransmitted here until its ACK (RFC 3261 13.3.1.4),
// as `sip` leaves that to the user agent.

import sip from 'sip';
import { audioSdp, openSipEndpoint, randomToken, tagOf, type SipLog } from './sip-stack.ts';

export type SimulatedCalleeOptions = {
  /** `host:port` to listen on (loopback); port 0 picks a free one. */
  listen: string;
  /** TOLK_SIM_SPEED: every delay is divided by it (10 = ten times faster). */
  speed: number;
  log?: SipLog;
};

export type SimulatedCallee = {
  /** `host:port` it listens on: dial `sip:+15550000000@<address>`. */
  address: string;
  /** Clears every timer and closes the stack (calls still up are dropped silently). */
  close(): Promise<void>;
};

type Outcome =
  | { kind: 'reject'; status: number; reason: string }
  | { kind: 'ring_then_reject'; afterMs: number; status: number; reason: string }
  | { kind: 'answer'; afterMs: number; voicemail: boolean };

/** The behaviour for a dialed user part: its last four digits ('+' and other non-digits ignored). */
export function outcomeFor(user: string): Outcome {
  const last4 = user.replace(/\D/g, '').slice(-4);
  switch (last4) {
    case '0100':
      return { kind: 'reject', status: 486, reason: 'Busy Here' };
    case '0101':
      return { kind: 'ring_then_reject', afterMs: 5_000, status: 480, reason: 'Temporarily Unavailable' };
    case '0102':
      return { kind: 'answer', afterMs: 1_000, voicemail: true };
    case '0103':
      return { kind: 'reject', status: 503, reason: 'Service Unavailable' };
    default:
      return { kind: 'answer', afterMs: 1_000, voicemail: false };
  }
}

type Call = {
  callId: string;
  invite: sip.Message;
  /** Our To tag, the same in every response of the call. */
  tag: string;
  /** 'ringing' until the final response; 'answered' until ACKed; then 'confirmed' until BYE. */
  state: 'ringing' | 'answered' | 'confirmed' | 'done';
  timers: Set<NodeJS.Timeout>;
};

const T1 = 500;
const T2 = 4_000;
/** How long a 2xx is retransmitted without an ACK (64*T1). */
const TIMER_H = 32_000;

/** Starts the simulated callee; resolves once it listens. */
export async function startSimulatedCallee(opts: SimulatedCalleeOptions): Promise<SimulatedCallee> {
  if (!(opts.speed > 0)) throw new Error(`simulated callee: speed must be a positive number (got ${opts.speed})`);
  const log = opts.log ?? { info() {}, warn() {}, error() {} };
  const calls = new Map<string, Call>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const endpoint = await openSipEndpoint(opts.listen, onRequest, log);
  const contact = `<sip:callee@${endpoint.address}>`;

  function later(call: Call, ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      call.timers.delete(t);
      timers.delete(t);
      if (!closed) fn();
    }, ms);
    call.timers.add(t);
    timers.add(t);
  }

  function clearCallTimers(call: Call): void {
    for (const t of call.timers) {
      clearTimeout(t);
      timers.delete(t);
    }
    call.timers.clear();
  }

  function finish(call: Call): void {
    call.state = 'done';
    clearCallTimers(call);
    calls.delete(call.callId);
  }

  /** A response to `rq` carrying our tag when in a call (makeResponse shares the request's headers: copy To). */
  function response(rq: sip.Message, status: number, reason: string, tag: string | undefined, extra?: { headers?: sip.Headers; content?: string }): sip.Message {
    const rs = sip.makeResponse(rq, status, reason, extra);
    const to = rq.headers.to;
    if (tag && to && typeof to === 'object' && !to.params.tag) rs.headers.to = { ...to, params: { ...to.params, tag } };
    return rs;
  }

  function sendFinal(call: Call, status: number, reason: string): void {
    clearCallTimers(call);
    log.info({ callId: call.callId, status }, 'callee: final answer');
    endpoint.respond(response(call.invite, status, reason, call.tag));
    // `sip`'s INVITE server transaction now retransmits it and absorbs the ACK.
    finish(call);
  }

  function answer(call: Call, voicemail: boolean): void {
    clearCallTimers(call);
    call.state = 'answered';
    const headers: sip.Headers = { contact, 'content-type': 'application/sdp' };
    if (voicemail) headers['x-tolk-answered-by'] = 'voicemail';
    const ok = response(call.invite, 200, 'OK', call.tag, { headers, content: audioSdp(endpoint.host, 9, String(Date.now()), 'answer') });
    log.info({ callId: call.callId, voicemail }, 'callee: answered');
    endpoint.respond(ok);
    // Retransmit the 2xx, T1 doubling up to T2, until the ACK (or Timer H).
    let interval = T1;
    let waited = 0;
    const again = () => {
      if (call.state !== 'answered') return;
      if (waited >= TIMER_H) {
        log.warn({ callId: call.callId }, 'callee: no ACK for the 200 OK');
        return;
      }
      endpoint.respond(ok);
      waited += interval;
      interval = Math.min(interval * 2, T2);
      later(call, interval, again);
    };
    waited += interval;
    later(call, interval, again);
  }

  function onInvite(rq: sip.Message): void {
    const callId = rq.headers['call-id'] ?? '';
    if (tagOf(rq.headers.to)) {
      // A re-INVITE: not supported by the simulation (481 if the call is unknown).
      const known = calls.has(callId);
      endpoint.respond(response(rq, known ? 488 : 481, known ? 'Not Acceptable Here' : 'Call/Transaction Does Not Exist', undefined));
      return;
    }
    if (calls.has(callId)) {
      // Same Call-ID, another branch: a merged request (RFC 3261 8.2.2.2).
      endpoint.respond(response(rq, 482, 'Loop Detected', randomToken(4)));
      return;
    }
    const uri = sip.parseUri(rq.uri ?? '');
    const outcome = outcomeFor(uri?.user ?? '');
    const call: Call = { callId, invite: rq, tag: randomToken(4), state: 'ringing', timers: new Set() };
    calls.set(callId, call);
    log.info({ callId, user: uri?.user, outcome: outcome.kind }, 'callee: INVITE');
    if (outcome.kind === 'reject') {
      sendFinal(call, outcome.status, outcome.reason);
      return;
    }
    endpoint.respond(response(rq, 180, 'Ringing', call.tag, { headers: { contact } }));
    const delay = outcome.afterMs / opts.speed;
    if (outcome.kind === 'ring_then_reject') later(call, delay, () => sendFinal(call, outcome.status, outcome.reason));
    else later(call, delay, () => answer(call, outcome.voicemail));
  }

  function onRequest(rq: sip.Message): void {
    const method = rq.method ?? '';
    const callId = rq.headers['call-id'] ?? '';
    const call = calls.get(callId);
    switch (method) {
      case 'INVITE':
        return onInvite(rq);
      case 'ACK':
        // The ACK of our 2xx (`sip` absorbs those of non-2xx): the call is up.
        if (call?.state === 'answered') {
          clearCallTimers(call);
          call.state = 'confirmed';
        }
        return;
      case 'CANCEL': {
        // Matches the INVITE by Call-ID and branch (RFC 3261 9.2).
        const branch = rq.headers.via?.[0]?.params.branch;
        const same = call && call.invite.headers.via?.[0]?.params.branch === branch;
        if (!call || !same) {
          endpoint.respond(response(rq, 481, 'Call/Transaction Does Not Exist', undefined));
          return;
        }
        log.info({ callId }, 'callee: CANCEL');
        endpoint.respond(response(rq, 200, 'OK', call.tag));
        if (call.state === 'ringing') sendFinal(call, 487, 'Request Terminated');
        return;
      }
      case 'BYE':
        if (!call || (call.state !== 'answered' && call.state !== 'confirmed') || tagOf(rq.headers.to) !== call.tag) {
          endpoint.respond(response(rq, 481, 'Call/Transaction Does Not Exist', undefined));
          return;
        }
        log.info({ callId }, 'callee: BYE');
        endpoint.respond(response(rq, 200, 'OK', undefined));
        finish(call);
        return;
      case 'OPTIONS':
        endpoint.respond(response(rq, 200, 'OK', randomToken(4), { headers: { allow: 'INVITE, ACK, CANCEL, BYE, OPTIONS' } }));
        return;
      default:
        if (tagOf(rq.headers.to) && !call) endpoint.respond(response(rq, 481, 'Call/Transaction Does Not Exist', undefined));
        else endpoint.respond(response(rq, 405, 'Method Not Allowed', randomToken(4), { headers: { allow: 'INVITE, ACK, CANCEL, BYE, OPTIONS' } }));
    }
  }

  log.info({ address: endpoint.address, speed: opts.speed }, 'callee: listening');
  return {
    address: endpoint.address,
    async close() {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      calls.clear();
      await endpoint.settle();
      endpoint.destroy();
    },
  };
}
