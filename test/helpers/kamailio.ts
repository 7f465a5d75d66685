// Kamailio (Debian's package) as a SIP proxy in front of a test's callee: a
// transaction-stateful proxy that record-routes every dialog it forwards, so
// the gateway must keep the route set for its in-dialog requests (ACK, BYE)
// and send CANCEL where the INVITE went. Every initial request goes to
// `next`; in-dialog ones follow their Route (loose routing).
//
// Kamailio is a hard requirement of the tests that use it: if it is missing,
// startKamailio throws (a test that cannot run must not pass by being skipped).

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeUdpPort } from '../../gateway/sip-stack.ts';
import { requireBinary, startPeerProcess } from './peer.ts';

export const KAMAILIO = '/usr/sbin/kamailio';
export const MODULES = '/usr/lib/x86_64-linux-gnu/kamailio/modules/';

export type Kamailio = { address: string; log(): string; stop(): Promise<void> };

/**
 * What every Kamailio of the tests shares: core settings, where it listens,
 * the modules of a transaction-stateful proxy (and `more`, with `params`), and the start of
 * its request route: Max-Forwards, in-dialog requests along their Route, a
 * CANCEL to its transaction. The caller writes the rest of the route and `}`.
 */
export function kamailioConfig(o: { listen: string[]; children: number; more?: string[]; params?: string[] }): string {
  return `#!KAMAILIO
debug=2
log_stderror=yes
children=${o.children}
${o.listen.some((l) => l.startsWith('tcp:')) ? `tcp_children=${o.children}\n` : ''}auto_aliases=no
${o.listen.map((l) => `listen=${l}`).join('\n')}
mpath="${MODULES}"
${['tm', 'sl', 'rr', 'pv', 'maxfwd', 'siputils', 'textops', ...(o.more ?? [])].map((m) => `loadmodule "${m}.so"`).join('\n')}
${(o.params ?? []).map((p) => `${p}\n`).join('')}request_route {
  if (!mf_process_maxfwd_header("10")) { sl_send_reply("483", "Too Many Hops"); exit; }
  if (has_totag()) {
    if (loose_route()) { t_relay(); exit; }
    if (is_method("ACK") && t_check_trans()) { t_relay(); }
    exit;
  }
  if (is_method("CANCEL")) { if (t_check_trans()) { t_relay(); } exit; }
`;
}

/** Starts Kamailio on its own loopback address (127.0.0.3) forwarding to `next` (`host:port`); resolves once it listens. */
export async function startKamailio(o: { next: string }): Promise<Kamailio> {
  await requireBinary(KAMAILIO, 'kamailio', 'Kamailio');
  const host = '127.0.0.3';
  const port = await freeUdpPort(host);
  const dir = await mkdtemp(path.join(tmpdir(), 'tolk-kamailio-'));
  const cfg = path.join(dir, 'kamailio.cfg');
  await writeFile(cfg, `${kamailioConfig({ listen: [`udp:${host}:${port}`], children: 1 })}  record_route();
  $du = "sip:${o.next}";
  t_relay();
}
`);
  const peer = await startPeerProcess({
    name: 'kamailio', bin: KAMAILIO, args: ['-f', cfg, '-DD', '-E', '-n', '1', '-Y', dir, '-P', path.join(dir, 'kamailio.pid')], dir,
    ready: /SO_RCVBUF is finally/,
  });
  return { address: `${host}:${port}`, log: peer.log, stop: peer.stop };
}
