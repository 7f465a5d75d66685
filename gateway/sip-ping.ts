import net from 'node:net';
import sip from 'sip';
import type { PingResult } from './signaling.ts';
import type { SipEndpoint } from './sip-endpoint.ts';
import { MAX_FORWARDS, randomToken, tagOf } from './sip-message.ts';
import { looseRoute } from './sip-place.ts';

// The embedded stack's OPTIONS to a trunk (SipSignaling.ping, signaling.ts):
// its own Call-ID and tags, no dialog; alive is any final answer from a SIP
// server but 408 and 503.

/** Why a TCP connection to host:port cannot be made (ECONNREFUSED, a timeout…), or null when it can (closed at once). */
function tcpRefused(host: string, port: number, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const done = (why: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done(`no TCP connection in ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}

/** OPTIONS to `uri` (through `o.proxy`) on the endpoint; says whether a SIP server answered within `o.timeoutMs`. */
export async function pingOver(endpoint: SipEndpoint, uri: string, o: { proxy?: string; timeoutMs: number }): Promise<PingResult> {
  const { host, address } = endpoint;
  const hop = sip.parseUri(o.proxy ?? uri);
  if (!sip.parseUri(uri) || !hop) return { ok: false, reason: `not a SIP URI: ${uri}` };
  // Over TCP the connection is tried here first: `sip` prints a refused connection on stdout
  // (console.log), which would break the JSON log every interval while a TCP trunk is down.
  if ((hop.params.transport ?? '').toLowerCase() === 'tcp') {
    const refused = await tcpRefused(hop.host, hop.port ?? 5060, o.timeoutMs);
    if (refused) return { ok: false, reason: `unreachable (${refused})` };
  }
  const rq: sip.Message = {
    method: 'OPTIONS',
    uri,
    headers: {
      via: [],
      'max-forwards': MAX_FORWARDS,
      ...(o.proxy ? { route: `<${looseRoute(o.proxy)}>` } : {}),
      from: `<sip:ping@${address}>;tag=${randomToken(8)}`,
      to: `<${uri}>`,
      'call-id': `${randomToken(12)}@${host}`,
      cseq: { seq: 1, method: 'OPTIONS' },
      contact: `<sip:ping@${address}>`,
      accept: 'application/sdp',
    },
  };
  return new Promise<PingResult>((resolve) => {
    let done = false;
    const finish = (r: PingResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      endpoint.mute(rq);
      resolve(r);
    };
    const timer = setTimeout(() => finish({ ok: false, reason: `no answer to OPTIONS in ${o.timeoutMs} ms` }), o.timeoutMs);
    void endpoint.request(rq, (rs) => {
      const status = rs.status ?? 0;
      if (status < 200) return;
      // `sip`'s own 408 (Timer F) or 503 (nowhere to send it) have no reason phrase and no To tag.
      const local = !tagOf(rs.headers.to) && !rs.reason;
      if (local || status === 408 || status === 503) finish({ ok: false, reason: local ? 'no answer to OPTIONS' : `OPTIONS answered ${status} ${rs.reason ?? ''}`.trim() });
      else finish({ ok: true, status });
    }, { onUnreachable: (code) => finish({ ok: false, reason: `unreachable (${code})` }) });
  });
}
