import type { Queryable } from '../db/pool.ts';
import { decryptSecret, SecretKeyError } from './secret.ts';

// SIP trunks (operator.md, SIP trunks and live mode): an organization's
// carrier connection, kept in `trunks`. A live call goes out through the
// trunk of its caller id's number (phone_numbers.trunk_id); no other
// organization's call, and no test call, ever uses it.
//
// - this file: the row, its operator view (no password), the dialing view
//   (the password decrypted), and the start check of TOLK_SECRET_KEY;
// - secret.ts: the password's encryption at rest;
// - ping.ts: the OPTIONS pings that mark a trunk up or down;
// - src/cli/trunk.ts: `tolk trunk add | list | remove`.
// The gateway's side (the INVITE's next hop, digest answers, caller id
// header, pacing) is gateway/trunk-route.ts and dial.ts.

export type TrunkRow = {
  id: string;
  org_id: string;
  uri: string;
  proxy: string | null;
  username: string | null;
  password_enc: string | null;
  realm: string | null;
  from_domain: string | null;
  caller_id: 'from' | 'pai';
  privacy: boolean;
  number_format: 'e164' | 'digits';
  max_cps: number | null;
  state: 'unknown' | 'up' | 'down';
  state_reason: string | null;
  state_since: Date | null;
  created_at: Date;
};

export const TRUNK_COLUMNS = `id, org_id, uri, proxy, username, password_enc, realm, from_domain, caller_id, privacy, number_format,
  max_cps, state, state_reason, state_since, created_at`;

/** `sip:HOST[:PORT][;transport=udp|tcp]`: the only shape a trunk's address (or proxy) takes. */
export const TRUNK_URI = /^sip:([A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?(?:;transport=(udp|tcp))?$/i;

export type TrunkAddress = { host: string; port: number; transport: 'udp' | 'tcp' };

/** The host, port (5060 when not given) and transport (UDP when not given) of a trunk URI; undefined when it is not one. */
export function parseTrunkUri(uri: string): TrunkAddress | undefined {
  const m = TRUNK_URI.exec(uri.trim());
  if (!m) return undefined;
  const port = m[2] === undefined ? 5060 : Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port, transport: (m[3]?.toLowerCase() ?? 'udp') as 'udp' | 'tcp' };
}

/** What `tolk trunk list` shows: everything but the password (has_password says whether there is one). */
export function trunkView(r: TrunkRow) {
  return {
    id: r.id,
    org_id: r.org_id,
    uri: r.uri,
    proxy: r.proxy,
    username: r.username,
    has_password: r.password_enc !== null,
    realm: r.realm,
    from_domain: r.from_domain,
    caller_id: r.caller_id,
    privacy: r.privacy,
    number_format: r.number_format,
    max_cps: r.max_cps,
    state: r.state,
    state_reason: r.state_reason,
    state_since: r.state_since?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
  };
}

/** A trunk as the gateway dials through it: the password in clear, held in memory only. */
export type DialTrunk = Omit<TrunkRow, 'password_enc'> & { password: string | null };

export function dialView(r: TrunkRow, key: Buffer | undefined): DialTrunk {
  const { password_enc: enc, ...rest } = r;
  return { ...rest, password: enc === null ? null : decryptSecret(key, enc, r.id) };
}

export async function loadTrunk(db: Queryable, id: string): Promise<TrunkRow | undefined> {
  const { rows } = await db.query<TrunkRow>(`SELECT ${TRUNK_COLUMNS} FROM trunks WHERE id = $1`, [id]);
  return rows[0];
}

/**
 * The start check (operator.md: TOLK_SECRET_KEY): with a trunk password
 * stored, the key must be set and must decrypt every one of them. Throws a
 * SecretKeyError naming the trunks otherwise, so the service does not start
 * only to fail each live call.
 */
export async function checkSecretKey(db: Queryable, key: Buffer | undefined): Promise<void> {
  const { rows } = await db.query<{ id: string; password_enc: string }>(
    `SELECT id, password_enc FROM trunks WHERE password_enc IS NOT NULL ORDER BY created_at`);
  if (rows.length === 0) return;
  const ids = rows.map((r) => r.id);
  if (!key) {
    throw new SecretKeyError(`TOLK_SECRET_KEY is not set, and ${ids.length === 1 ? 'trunk' : 'trunks'} ${ids.join(', ')} ${ids.length === 1 ? 'has a password' : 'have passwords'} encrypted with it: set the key they were stored with (64 hex characters)`);
  }
  const bad: string[] = [];
  for (const r of rows) {
    try {
      decryptSecret(key, r.password_enc, r.id);
    } catch {
      bad.push(r.id);
    }
  }
  if (bad.length > 0) {
    throw new SecretKeyError(`TOLK_SECRET_KEY does not decrypt the password of ${bad.length === 1 ? 'trunk' : 'trunks'} ${bad.join(', ')}: it is not the key ${bad.length === 1 ? 'it was' : 'they were'} stored with`);
  }
}

/** The number as the trunk wants it in the Request-URI and To: +E.164, or its digits alone. */
export function dialedNumber(t: Pick<TrunkRow, 'number_format'>, e164: string): string {
  return t.number_format === 'digits' ? e164.replace(/^\+/, '') : e164;
}
