import type { Services } from '../services.ts';
import type { Log } from './line-deps.ts';
import type { Dialer } from './dialer.ts';

// The gateway's heartbeat in `gateways`: every gateway sweeps the calls of
// gateways that stopped beating (sweep.ts), so a call is never left ringing
// or answered by a process that died. On its own timer: a long sweep never
// delays this gateway's own beat (and makes it look lost). Each beat also
// forgets the lines whose dialog went without an ending event here, and a
// beat that gets through wakes the call events waiting for the database.

export type Heartbeat = {
  /** Since when this gateway's heartbeats have been written without a failure (null: the last one failed). */
  healthySince(): number | null;
  stop(): Promise<void>;
};

/** How often the gateway beats and sweeps: four times within the time after which a silent gateway counts as lost. */
export function beatMs(s: Services): number {
  return Math.max(200, (s.config.gatewayLostSeconds * 1000) / 4);
}

export function startHeartbeat(s: Services, dialer: Dialer, log: Log): Heartbeat {
  let beating: Promise<unknown> | null = null;
  let healthySince: number | null = 0;
  const timer = setInterval(() => {
    if (dialer.lines.size > 0) dialer.lines.forgetGone(new Set(dialer.active()));
    beating ??= s.pool
      .query(`UPDATE gateways SET heartbeat_at = now() WHERE id = $1`, [dialer.id])
      .then(() => {
        healthySince ??= Date.now();
        dialer.back.back();
      })
      .catch((err) => {
        healthySince = null;
        log.error({ err }, 'gateway heartbeat failed');
      })
      .finally(() => { beating = null; });
  }, beatMs(s));
  timer.unref();
  return {
    healthySince: () => healthySince,
    stop: async () => {
      clearInterval(timer);
      await beating;
    },
  };
}
