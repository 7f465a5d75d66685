import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool } from '../db/pool.ts';
import { breakers } from './metrics.ts';
import { childDown } from '../engines/supervisor.ts';

// Liveness and readiness (GET /healthz, GET /readyz: operator.md, Health and
// metrics). Readiness is what a load balancer or an orchestrator asks before
// sending traffic: the database answers (within a short time), every
// migration of this build is applied, the gateway is bound where this process
// runs one, and no kind of engine has every engine's breaker open. A process
// shutting down answers not ready first, then drains (server.ts). The body
// names each check and its state, nothing else: no address, no error text.

const MIGRATIONS = fs
  .readdirSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'db', 'migrations'))
  .filter((f) => f.endsWith('.sql'))
  .map((f) => f.replace(/\.sql$/, ''));

/** How long readiness waits for the database before calling it down. */
export const READY_DB_TIMEOUT_MS = 1000;

export type CheckState = 'ok' | 'down' | 'pending' | 'degraded';
export type Readiness = { status: 'ready' | 'not_ready' | 'shutting_down'; checks: Record<string, CheckState> };

export class Health {
  private draining = false;
  /** Once every migration of this build is seen applied, it stays so for the life of the process. */
  private migrated = false;
  private readonly pool: Pool;
  private readonly gateway: (() => boolean) | undefined;
  private readonly media: (() => CheckState | null) | undefined;

  /**
   * gateway: whether this process's gateway is bound, when it runs one. media: the state of rooms'
   * voices (TOLK_MEDIA_SERVER), null when there are none by choice; at worst `degraded` (rooms go
   * on without voices), so it never takes a process out of a load balancer.
   */
  constructor(pool: Pool, gateway?: () => boolean, media?: () => CheckState | null) {
    this.pool = pool;
    this.gateway = gateway;
    this.media = media;
  }

  /** From now on /readyz answers 503: the load balancer stops sending before the server closes. */
  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async ready(): Promise<Readiness> {
    const checks: Record<string, CheckState> = {};
    const db = await this.database();
    checks.database = db.reachable ? 'ok' : 'down';
    checks.migrations = db.reachable ? (this.migrated ? 'ok' : 'pending') : 'down';
    if (this.gateway) checks.gateway = this.gateway() ? 'ok' : 'down';
    const kinds = new Map<string, { open: number; all: number }>();
    for (const b of breakers.values()) {
      const k = kinds.get(b.kind) ?? { open: 0, all: 0 };
      k.all++;
      // A child it runs that died (apertium-apy, a worker thread) counts as down until it is back (engines/supervisor.ts).
      if (b.breaker.state === 'open' || childDown(b.kind, b.engine)) k.open++;
      kinds.set(b.kind, k);
    }
    for (const [kind, k] of kinds) checks[`engines_${kind}`] = k.open === 0 ? 'ok' : k.open < k.all ? 'degraded' : 'down';
    const media = this.media?.();
    if (media) checks.media = media;
    // An engine down is reported; only a whole kind down (or anything else) makes the process not ready.
    const ok = Object.values(checks).every((s) => s === 'ok' || s === 'degraded');
    return { status: this.draining ? 'shutting_down' : ok ? 'ready' : 'not_ready', checks };
  }

  /** One statement: reachable, and (until seen once) whether every migration of this build is applied. */
  private async database(): Promise<{ reachable: boolean }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), READY_DB_TIMEOUT_MS); });
    const query = this.migrated
      ? this.pool.query('SELECT 1').then(() => true)
      : this.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pgmigrations WHERE name = ANY($1)', [MIGRATIONS]).then((r) => {
          if (r.rows[0]?.n === MIGRATIONS.length) this.migrated = true;
          return true;
        });
    try {
      // No migrations table yet: the database answers, its migrations are pending.
      const got = await Promise.race([query.catch((err: { code?: string }) => err?.code === '42P01'), timeout]);
      return { reachable: got === true };
    } finally {
      clearTimeout(timer);
    }
  }
}
