import { hash } from 'node:crypto';
import type { Queryable } from './db/pool.ts';
import { randomBase62 } from './ids.ts';

export type Mode = 'test' | 'live';

export type Credential = {
  kind: 'key';
  id: string;
  name: string;
  mode: Mode;
  livemode: boolean;
  orgId: string;
  orgName: string;
  orgPlan: 'paid' | 'free';
  orgStatus: 'active' | 'blocked' | 'suspended';
  permissions: ReadonlySet<string>;
  ipAllow: string[] | null;
  langs: string[] | null;
  voices: string[] | null;
  numbers: string[] | null;
  destinations: string[] | null;
  spendDayMinutes: number | null;
  spendMonthMinutes: number | null;
  perCallMinutes: number | null;
  requestsPerMinute: number;
  expiresAt: Date | null;
  revokedAt: Date | null;
  needsReview: boolean;
};

/** Channel on which every process hears that keys or organizations changed. */
export const CREDENTIALS_CHANNEL = 'tolk_credentials';

export function hashSecret(secret: string): Buffer {
  // The one-shot hash: no Hash object per request.
  return hash('sha256', secret, 'buffer');
}

export function generateSecret(mode: Mode): string {
  // ~238 random bits: a fast hash (not a password hash) is enough for secrets this strong.
  return `sk_${mode}_${randomBase62(40)}`;
}

const SELECT = `
  SELECT k.*, o.name AS org_name, o.plan AS org_plan, o.status AS org_status
    FROM api_keys k JOIN organizations o ON o.id = k.org_id`;

function toCredential(r: Record<string, any>): Credential {
  return {
    kind: 'key',
    id: r.id,
    name: r.name,
    mode: r.mode,
    livemode: r.mode === 'live',
    orgId: r.org_id,
    orgName: r.org_name,
    orgPlan: r.org_plan,
    orgStatus: r.org_status,
    permissions: new Set(r.permissions),
    ipAllow: r.ip_allow,
    langs: r.langs,
    voices: r.voices,
    numbers: r.numbers,
    destinations: r.destinations,
    spendDayMinutes: r.spend_day_minutes,
    spendMonthMinutes: r.spend_month_minutes,
    perCallMinutes: r.per_call_minutes,
    requestsPerMinute: r.requests_per_minute,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    needsReview: r.needs_review,
  };
}

export async function findCredentialByHash(db: Queryable, hash: Buffer): Promise<Credential | null> {
  const { rows } = await db.query(`${SELECT} WHERE k.secret_hash = $1`, [hash]);
  return rows[0] ? toCredential(rows[0]) : null;
}

export async function notifyCredentialsChanged(db: Queryable): Promise<void> {
  await db.query(`SELECT pg_notify($1, '')`, [CREDENTIALS_CHANNEL]);
}
