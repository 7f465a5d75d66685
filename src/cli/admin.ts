import type { Queryable } from '../db/pool.ts';
import { withTx, type Pool } from '../db/pool.ts';
import { newId } from '../ids.ts';
import { generateSecret, hashSecret, notifyCredentialsChanged, type Mode } from '../credentials.ts';
import { PERMISSIONS, isPermission } from '../permissions.ts';
import ipaddr from 'ipaddr.js';
import { formatHours, HoursError, parseHours } from '../bookings/hours.ts';
import { bookingPageUrl } from '../bookings/links.ts';

// Operator actions of operator.md (`tolk org`, `tolk key`, ...). Each change to a
// key or organization notifies every server process to drop cached credentials.

export class UsageError extends Error {}

type Plan = 'paid' | 'free';
type Status = 'active' | 'blocked' | 'suspended';

function minutesToSeconds(m: number | undefined): number | undefined {
  if (m === undefined) return undefined;
  if (!Number.isFinite(m) || m < 0) throw new UsageError('--minutes must be a number >= 0');
  return Math.round(m * 60);
}

export async function createOrg(pool: Pool, o: { name: string; plan?: Plan; status?: Status; minutes?: number; ownerEmail?: string }) {
  const id = newId('org');
  await pool.query(
    `INSERT INTO organizations (id, name, plan, status, balance_seconds, owner_email) VALUES ($1, $2, $3, $4, $5, $6)`,
    [id, o.name, o.plan ?? 'paid', o.status ?? 'active', minutesToSeconds(o.minutes ?? 600), o.ownerEmail ?? null],
  );
  return { id };
}

function orgView(r: Record<string, any>) {
  return {
    id: r.id,
    name: r.name,
    plan: r.plan,
    status: r.status,
    minutes: Math.round((Number(r.balance_seconds) / 60) * 1000) / 1000,
    created_at: r.created_at.toISOString(),
  };
}

export async function setOrg(pool: Pool, id: string, o: { plan?: Plan; status?: Status; minutes?: number }) {
  return withTx(pool, async (tx) => {
    const { rows } = await tx.query(
      `UPDATE organizations SET plan = coalesce($2, plan), status = coalesce($3, status), balance_seconds = coalesce($4, balance_seconds)
        WHERE id = $1 RETURNING *`,
      [id, o.plan ?? null, o.status ?? null, minutesToSeconds(o.minutes) ?? null],
    );
    if (!rows[0]) throw new UsageError(`no such organization: ${id}`);
    await notifyCredentialsChanged(tx);
    return orgView(rows[0]);
  });
}

/** Highest requests_per_minute a key can have. */
export const MAX_RPM = 1_000_000_000;

export type KeyOptions = {
  org: string;
  mode: Mode;
  name?: string;
  permissions?: string;
  ipAllow?: string;
  langs?: string;
  voices?: string;
  numbers?: string;
  destinations?: string;
  spendDay?: number;
  spendMonth?: number;
  perCall?: number;
  rpm?: number;
  expiresAt?: string;
};

const list = (v: string | undefined) => (v === undefined ? null : v.split(',').map((s) => s.trim()).filter(Boolean));

function nonNegative(flag: string, v: number | undefined): number | null {
  if (v === undefined) return null;
  if (!Number.isFinite(v) || v < 0) throw new UsageError(`${flag} must be a number >= 0`);
  return v;
}

export async function createKey(pool: Pool, o: KeyOptions) {
  if (o.mode !== 'test' && o.mode !== 'live') throw new UsageError('--mode must be test or live');
  const perms = o.permissions === undefined || o.permissions === 'all' ? [...PERMISSIONS] : list(o.permissions)!;
  for (const p of perms) if (!isPermission(p)) throw new UsageError(`unknown permission: ${p} (known: ${PERMISSIONS.join(', ')})`);
  const ipAllow = list(o.ipAllow);
  for (const cidr of ipAllow ?? []) {
    if (!(cidr.includes('/') ? ipaddr.isValidCIDR(cidr) : ipaddr.isValid(cidr))) throw new UsageError(`--ip-allow: not an address or CIDR range: ${cidr}`);
  }
  const rpm = o.rpm ?? 60;
  // Window counts are PostgreSQL integers; a billion a minute leaves them room.
  if (!Number.isInteger(rpm) || rpm < 1 || rpm > MAX_RPM) throw new UsageError(`--rpm must be an integer from 1 to ${MAX_RPM}`);
  let expires: Date | null = null;
  if (o.expiresAt) {
    expires = new Date(o.expiresAt);
    if (Number.isNaN(expires.getTime())) throw new UsageError('--expires-at must be an ISO 8601 timestamp');
  }
  const org = await pool.query(`SELECT 1 FROM organizations WHERE id = $1`, [o.org]);
  if (!org.rows[0]) throw new UsageError(`no such organization: ${o.org}`);
  const id = newId('key');
  const secret = generateSecret(o.mode);
  await pool.query(
    `INSERT INTO api_keys (id, org_id, mode, name, secret_hash, secret_last4, permissions, ip_allow, langs, voices, numbers,
                           destinations, spend_day_minutes, spend_month_minutes, per_call_minutes, requests_per_minute, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [
      id, o.org, o.mode, o.name ?? `${o.mode} key`, hashSecret(secret), secret.slice(-4), perms, ipAllow, list(o.langs),
      list(o.voices), list(o.numbers), list(o.destinations)?.map((c) => c.toUpperCase()) ?? null,
      nonNegative('--spend-day', o.spendDay), nonNegative('--spend-month', o.spendMonth), nonNegative('--per-call', o.perCall),
      rpm, expires,
    ],
  );
  return { id, secret };
}

function keyView(r: Record<string, any>) {
  return {
    id: r.id,
    org_id: r.org_id,
    mode: r.mode,
    name: r.name,
    secret_last4: r.secret_last4,
    permissions: r.permissions,
    ip_allow: r.ip_allow,
    langs: r.langs,
    voices: r.voices,
    numbers: r.numbers,
    destinations: r.destinations,
    spend_day_minutes: r.spend_day_minutes,
    spend_month_minutes: r.spend_month_minutes,
    per_call_minutes: r.per_call_minutes,
    requests_per_minute: r.requests_per_minute,
    needs_review: r.needs_review,
    expires_at: r.expires_at?.toISOString() ?? null,
    revoked_at: r.revoked_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
  };
}

async function updateKey(pool: Pool, id: string, set: string) {
  return withTx(pool, async (tx) => {
    const { rows } = await tx.query(`UPDATE api_keys SET ${set} WHERE id = $1 RETURNING *`, [id]);
    if (!rows[0]) throw new UsageError(`no such key: ${id}`);
    await notifyCredentialsChanged(tx);
    return keyView(rows[0]);
  });
}

export const revokeKey = (pool: Pool, id: string) => updateKey(pool, id, 'revoked_at = coalesce(revoked_at, now())');
export const markNeedsReview = (pool: Pool, id: string) => updateKey(pool, id, 'needs_review = true');

const E164 = /^\+[1-9]\d{6,14}$/;

export async function addNumber(pool: Pool, o: { org: string; e164: string; label?: string; default?: boolean; trunk?: string; inbound?: boolean }) {
  if (!E164.test(o.e164)) throw new UsageError('--e164 must be an E.164 number such as +14155550100');
  // Inbound calls come from the number's trunk, and only from it (operator.md, Phone participants).
  if (o.inbound && o.trunk === undefined) throw new UsageError('--inbound needs --trunk: the trunk whose calls to this number join rooms');
  return withTx(pool, async (tx) => {
    const org = await tx.query(`SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE`, [o.org]);
    if (!org.rows[0]) throw new UsageError(`no such organization: ${o.org}`);
    if (o.trunk !== undefined) {
      // A number goes out through its own organization's trunk, never another's.
      const t = await tx.query(`SELECT 1 FROM trunks WHERE id = $1 AND org_id = $2`, [o.trunk, o.org]);
      if (!t.rows[0]) throw new UsageError(`no trunk ${o.trunk} in organization ${o.org}; tolk trunk list --org ${o.org} shows its trunks`);
    }
    if (o.default) await tx.query(`UPDATE phone_numbers SET is_default = false WHERE org_id = $1`, [o.org]);
    const id = newId('num');
    await tx.query(
      `INSERT INTO phone_numbers (id, org_id, e164, label, is_default, trunk_id, inbound) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [id, o.org, o.e164, o.label ?? null, o.default ?? false, o.trunk ?? null, o.inbound ?? false],
    );
    return { id };
  });
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export async function createEventType(
  pool: Pool,
  publicBaseUrl: string,
  o: { org: string; page: string; slug: string; title: string; duration?: number; tz?: string; hours?: string; lang?: string },
) {
  if (!SLUG.test(o.page)) throw new UsageError('--page must be a slug (a-z, 0-9, -)');
  if (!SLUG.test(o.slug)) throw new UsageError('--slug must be a slug (a-z, 0-9, -)');
  const duration = o.duration ?? 30;
  if (!Number.isInteger(duration) || duration < 5 || duration > 720) throw new UsageError('--duration must be 5-720 minutes');
  const tz = o.tz ?? 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
  } catch {
    throw new UsageError(`--tz is not an IANA time zone: ${tz}`);
  }
  let hours: string;
  try {
    // Kept in its canonical spelling; slots read it back with parseHours.
    hours = formatHours(parseHours(o.hours ?? 'mon-fri 09:00-17:00'));
  } catch (err) {
    if (err instanceof HoursError) throw new UsageError(`--hours: ${err.message}`);
    throw err;
  }
  const lang = o.lang ?? 'en';
  if (!/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/.test(lang)) throw new UsageError('--lang must be a language code such as en or pt-BR');
  if (!o.title.trim() || o.title.length > 120) throw new UsageError('--title must be 1-120 characters');
  const org = await pool.query(`SELECT 1 FROM organizations WHERE id = $1`, [o.org]);
  if (!org.rows[0]) throw new UsageError(`no such organization: ${o.org}`);
  const id = newId('et');
  try {
    await pool.query(
      `INSERT INTO event_types (id, org_id, page, slug, title, duration_min, tz, hours, lang) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [id, o.org, o.page, o.slug, o.title, duration, tz, hours, lang],
    );
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new UsageError(`page ${o.page} already has an event type ${o.slug}`);
    throw err;
  }
  return { id, url: bookingPageUrl(publicBaseUrl, o.page, o.slug) };
}

/** The address the server last started with (server.ts recordBaseUrl), if any. */
export async function serverBaseUrl(db: Queryable): Promise<string | null> {
  const { rows } = await db.query(`SELECT value FROM settings WHERE name = 'server_base_url'`);
  return rows[0]?.value ?? null;
}

export async function listMail(db: Queryable, to?: string) {
  const { rows } = await db.query(
    `SELECT id, to_addr, subject, text, ics, created_at, status, livemode FROM mail_outbox WHERE ($1::text IS NULL OR lower(to_addr) = lower($1))
      ORDER BY created_at DESC, id DESC LIMIT 500`,
    [to ?? null],
  );
  // operator.md's fields, then ours: the id (`tolk mail show ID`), the
  // delivery status (kept: never leaves the outbox; queued, sent, failed: to
  // SMTP_URL) and the mode.
  return {
    data: rows.map((r) => ({
      id: String(r.id), to: r.to_addr, subject: r.subject, text: r.text, ics: r.ics, created_at: r.created_at.toISOString(), status: r.status, livemode: r.livemode,
    })),
  };
}
