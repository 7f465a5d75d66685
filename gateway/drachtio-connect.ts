import Srf from 'drachtio-srf';
import { CAPABILITIES } from './session-timer.ts';
import type { DrachtioLog } from './drachtio-call.ts';

// The connection of drachtio.ts to drachtio-server: drachtio-srf connected
// (or given up on, its reconnect loop stopped), with the requests from
// outside our dialogs answered as the embedded stack answers them.

/** The SIP address drachtio-server reports at connect (`udp/10.0.0.1:5060,tcp/...`): the first UDP one, `host:port`. */
export function drachtioAddress(hostport: string): string {
  const first = hostport.split(',').map((s) => s.trim()).find((s) => s.startsWith('udp/')) ?? hostport.split(',')[0] ?? '';
  return first.replace(/^[a-z]+\//, '');
}

/**
 * Stops drachtio-srf's reconnect loop after a failed start. It has no call
 * for that before a connection exists (disconnect() asserts a socket), so
 * its wire protocol is told it is closing, as disconnect() would, and its
 * retry timer and socket are dropped. Its error listener stays: a late
 * socket error is logged, never thrown.
 */
function abandon(srf: Srf): void {
  type Wire = { closing: boolean; reconnectVars?: { retryTimer: NodeJS.Timeout | null }; socket?: { destroy(): void } };
  const wp = (srf as unknown as { app?: { client?: { wp?: Wire } } }).app?.client?.wp;
  if (!wp) return;
  wp.closing = true;
  if (wp.reconnectVars?.retryTimer) clearTimeout(wp.reconnectVars.retryTimer);
  if (wp.reconnectVars) wp.reconnectVars.retryTimer = null;
  wp.socket?.destroy();
}

/** Outside our dialogs: INVITEs refused 403, OPTIONS answered 200. */
function answerStrangers(srf: Srf, log: DrachtioLog): void {
  /** Sources of INVITEs from outside our dialogs, when last logged: one line a minute each (a scanner sends thousands). */
  const strangers = new Map<string, number>();
  // Nobody calls us (yet): an INVITE from outside our dialogs is refused 403,
  // as the embedded stack does. drachtio-server's transaction answers its
  // retransmissions with the same 403. Registered before the connection, so
  // drachtio-server routes INVITEs to us from the start.
  srf.invite((req, res) => {
    const source = `${req.source_address}:${req.source_port}`;
    const now = Date.now();
    if (now - (strangers.get(req.source_address) ?? 0) > 60_000) {
      if (strangers.size >= 4096) strangers.clear();
      strangers.set(req.source_address, now);
      log.info({ from: source, callId: req.get('Call-ID'), status: 403 }, 'drachtio: INVITE from outside our dialogs refused');
    }
    res.send(403);
  });
  // A carrier's keep-alive: without a handler drachtio-server answers 503,
  // which takes the trunk for down. Answered as the embedded stack does.
  srf.use('options', (_req, res) => {
    res.send(200, { headers: { ...CAPABILITIES } });
  });
}

/**
 * Connects to drachtio-server; resolves with the connected Srf and the SIP
 * address it reports, or rejects (naming the variables to check) when no
 * connection is made within `connectTimeoutMs` (default 10 s).
 */
export async function connectDrachtio(
  to: { host: string; port: number; secret: string; connectTimeoutMs?: number },
  log: DrachtioLog,
): Promise<{ srf: Srf; address: string }> {
  const srf = new Srf();
  const where = `${to.host}:${to.port}`;
  const waitMs = to.connectTimeoutMs ?? 10_000;
  answerStrangers(srf, log);
  let lastError = '';
  const address = await new Promise<string>((ok, fail) => {
    const refuse = () => new Error(`drachtio: no connection to drachtio-server at ${where}${lastError ? ` (${lastError})` : ''}; check DRACHTIO_HOST, DRACHTIO_PORT and DRACHTIO_SECRET`);
    const timer = setTimeout(() => fail(refuse()), waitMs);
    srf.once('connect', (err: Error | null, hostport: string) => {
      clearTimeout(timer);
      if (err) {
        lastError = err.message;
        fail(refuse());
      } else ok(drachtioAddress(hostport));
    });
    srf.on('error', (err: Error) => {
      lastError = err.message;
      log.warn({ err: err.message, where }, 'drachtio: connection error');
    });
    // (Typed as a promise; this version returns the Srf and reports through 'connect' and 'error'.)
    void srf.connect({ host: to.host, port: to.port, secret: to.secret });
  }).catch((err: Error) => {
    abandon(srf);
    throw err;
  });
  return { srf, address };
}
