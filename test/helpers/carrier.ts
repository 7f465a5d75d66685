// Kamailio (Debian's package) as a carrier's SIP trunk in front of a test's
// called phone (SIPp): what a live call meets at a real carrier.
//   - OPTIONS are answered 200 (the trunk's health checks);
//   - an INVITE without valid credentials is challenged 407 (digest, qop=auth;
//     a nonce past its `nonceExpire` gets stale=true), checked against the
//     trunk's user and password;
//   - the caller id must be one of the expected numbers, in the header its
//     trunk names (From's user, or P-Asserted-Identity's URI user): else 403;
//   - a call to a number ending in 0100 is answered 486 by the carrier itself;
//   - the rest is record-routed and sent on to `next` (SIPp).
// Each INVITE it gets is logged as `carrier: <what> <Call-ID> <time>`, so a
// test can count challenges and see when INVITEs arrived.
//
// Kamailio is a hard requirement of the tests that use it: if it is missing,
// startCarrier throws (a test that cannot run must not pass by being skipped).

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeUdpPort } from '../../gateway/sip-stack.ts';
import { KAMAILIO, kamailioConfig } from './kamailio.ts';
import { requireBinary, startPeerProcess } from './peer.ts';


export type CarrierOptions = {
  next: string;
  username: string;
  password: string;
  realm: string;
  /** The caller ids it accepts (E.164), each in the header its trunk names. */
  numbers: Array<{ e164: string; header: 'from' | 'pai' }>;
  /** Seconds a nonce stays valid (default 300). */
  nonceExpire?: number;
  /** Listen on this port (default: a free one); a restarted carrier keeps its address. */
  port?: number;
};

export type CarrierLine = {
  what: 'challenge' | 'stale' | 'authenticated' | 'caller-id-refused';
  callId: string;
  at: number;
  /** Of an authenticated INVITE: the Request-URI's user and host, the transport it came over (udp, tcp), From's user, its Privacy header (`<null>`: none). */
  user?: string;
  host?: string;
  transport?: string;
  fromUser?: string;
  privacy?: string;
};

export type Carrier = {
  address: string;
  port: number;
  /** The INVITEs it saw, in order. */
  lines(): CarrierLine[];
  log(): string;
  stop(): Promise<void>;
};

export async function startCarrier(o: CarrierOptions): Promise<Carrier> {
  await requireBinary(KAMAILIO, 'kamailio', 'Kamailio');
  const host = '127.0.0.3';
  const port = o.port ?? await freeUdpPort(host);
  const dir = await mkdtemp(path.join(tmpdir(), 'tolk-carrier-'));
  const cfg = path.join(dir, 'kamailio.cfg');
  // The caller id is P-Asserted-Identity's user when the INVITE has one, else From's; it must be one of
  // the numbers, in the header its trunk names.
  const allowed = o.numbers.map((n) => n.header === 'pai'
    ? `($var(pai) == 1 && $var(cid) == "${n.e164}")`
    : `($var(pai) == 0 && $var(cid) == "${n.e164}")`).join(' || ');
  const callerCheck = `$var(pai) = 0;
    $var(cid) = $fU;
    if (is_present_hf("P-Asserted-Identity")) { $var(pai) = 1; $var(cid) = $(hdr(P-Asserted-Identity){nameaddr.uri}{uri.user}); }
    if (!(${allowed || '0'})) {`;
  const head = kamailioConfig({
    listen: [`udp:${host}:${port}`, `tcp:${host}:${port}`], children: 2, more: ['xlog', 'auth'],
    params: ['modparam("auth", "secret", "carrier-test-secret")', `modparam("auth", "nonce_expire", ${o.nonceExpire ?? 300})`],
  });
  await writeFile(cfg, `${head}  if (is_method("OPTIONS")) { sl_send_reply("200", "OK"); exit; }
  if (is_method("ACK")) { exit; }
  if (is_method("INVITE")) {
    pv_proxy_authenticate("${o.realm}", "${o.password}", "0");
    $var(rc) = $rc;
    if ($var(rc) == -4) {
      xlog("L_NOTICE", "carrier: stale $ci $TV(Sn)\\n");
      proxy_challenge("${o.realm}", "17");
      exit;
    }
    if ($var(rc) < 0 || $au != "${o.username}") {
      xlog("L_NOTICE", "carrier: challenge $ci $TV(Sn)\\n");
      proxy_challenge("${o.realm}", "1");
      exit;
    }
    consume_credentials();
    ${callerCheck}
      xlog("L_NOTICE", "carrier: caller-id-refused $ci $TV(Sn)\\n");
      sl_send_reply("403", "Caller ID Not Allowed");
      exit;
    }
    xlog("L_NOTICE", "carrier: authenticated $ci $TV(Sn) $rU $pr $rd $fU $hdr(Privacy)\\n");
    if ($rU =~ "0100$") { sl_send_reply("486", "Busy Here"); exit; }
  }
  record_route();
  $du = "sip:${o.next}";
  t_relay();
}
`);
  const peer = await startPeerProcess({
    name: 'kamailio (carrier)', bin: KAMAILIO, args: ['-f', cfg, '-DD', '-E', '-Y', dir, '-P', path.join(dir, 'kamailio.pid')], dir,
    ready: /SO_RCVBUF is finally/,
  });
  return {
    address: `${host}:${port}`,
    port,
    log: peer.log,
    lines: () => [...peer.log().matchAll(/carrier: (challenge|stale|authenticated|caller-id-refused) (\S+) ([\d.]+)(?: (\S+) (\S+) (\S+) (\S+) (\S+))?/g)]
      .map((m) => ({
        what: m[1] as CarrierLine['what'], callId: m[2]!, at: Number(m[3]) * 1000,
        ...(m[4] ? { user: m[4], transport: m[5]!, host: m[6]!, fromUser: m[7]!, privacy: m[8]! } : {}),
      })),
    stop: peer.stop,
  };
}
