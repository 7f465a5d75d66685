import type { Services } from '../services.ts';
import type { Log } from './line-deps.ts';
import { claimOrphans, claimUnclaimed, endCallsOfLostGateways } from './claims.ts';
import type { Dialer } from './dialer.ts';
import { beatMs, type Heartbeat } from './heartbeat.ts';

// Every gateway's sweep (claims.ts): it dials the calls nobody dialed
// (unclaimed DIAL_FALLBACK_SECONDS after they were placed, or claimed by a
// gateway since lost) and ends the ringing and answered calls of lost
// gateways (failed/gateway_lost).

export type Sweep = {
  /** One sweep now; how many calls it dialed or ended. */
  run(): Promise<number>;
  stop(): Promise<void>;
};

export function startSweep(s: Services, dialer: Dialer, heartbeat: Heartbeat, log: Log): Sweep {
  const run = async (): Promise<number> => {
    const unclaimed = await claimUnclaimed(s, dialer.id);
    await dialer.place(unclaimed);
    // After an outage of the database every gateway's last beat is old: the
    // others are judged lost only once they have had the time to beat again
    // (their calls answered meanwhile are theirs to write, not failed/gateway_lost).
    const healthySince = heartbeat.healthySince();
    if (healthySince === null || Date.now() - healthySince < s.config.gatewayLostSeconds * 1000) return unclaimed.length;
    const orphans = await claimOrphans(s, dialer.id);
    await dialer.place(orphans);
    return unclaimed.length + orphans.length + await endCallsOfLostGateways(s, dialer.id);
  };
  let sweeping: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    sweeping ??= run()
      .catch((err) => log.error({ err }, 'sweep of lost gateways failed'))
      .finally(() => { sweeping = null; });
  }, beatMs(s));
  timer.unref();
  return {
    run,
    stop: async () => {
      clearInterval(timer);
      await sweeping;
    },
  };
}
