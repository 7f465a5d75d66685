import { PgListener } from '../db/listener.ts';
import type { Services } from '../services.ts';
import { ENDED } from './calls.ts';
import type { Log } from './line-deps.ts';
import { CALLS_CHANNEL, decodeNotice } from './channel.ts';
import type { Dialer } from './dialer.ts';

// What the rest of the service tells the gateway holding a call's dialog
// (channel.ts), heard on one LISTEN connection: hang up, say a phrase on the
// line (call-line.ts), the built-in callee's words. On (re)connect, whatever
// was announced while down is found by asking: the calls that ended
// elsewhere meanwhile are hung up here.

export async function listenForNotices(s: Services, databaseUrl: string, dialer: Dialer, log: Log): Promise<{ close(): Promise<void> }> {
  const sip = dialer.gateway.signaling;
  const hangUpEnded = async () => {
    const keys = sip.active();
    if (keys.length === 0) return;
    const { rows } = await s.pool.query<{ id: string }>(`SELECT id FROM calls WHERE id = ANY($1) AND status = ANY($2)`, [keys, [...ENDED]]);
    for (const r of rows) await sip.hangup(r.id);
  };
  const listener = new PgListener(databaseUrl, CALLS_CHANNEL, {
    onNotify: (payload) => {
      const n = decodeNotice(payload);
      if (!n) return log.warn({ payload: payload.slice(0, 80) }, 'a notice on the calls channel this version does not know');
      if (!sip.active().includes(n.call)) return;
      if (n.type === 'hangup') {
        // The call ended elsewhere (the API, another process): its line goes now, not at the next heartbeat
        // (a call into a room takes its participant out of the room with it).
        void sip.hangup(n.call);
        dialer.lines.dispose(n.call);
      }
      else if (n.type === 'say') dialer.lines.get(n.call)?.say(n);
      // The simulator gives the built-in callee its words; the one holding the call says them.
      else dialer.gateway.callee?.say(n.call, n.text, n.lang).catch((err) => log.warn({ err: String(err), callId: n.call }, 'the callee could not speak'));
    },
    onUp: () => {
      dialer.back.back();
      hangUpEnded().catch((err) => log.error({ err }, 'cannot check ended calls'));
    },
  });
  await listener.start();
  return listener;
}
