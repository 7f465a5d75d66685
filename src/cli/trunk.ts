import { withTx, type Pool } from '../db/pool.ts';
import { newId } from '../ids.ts';
import { encryptSecret, SecretKeyError } from '../trunks/secret.ts';
import { parseTrunkUri, TRUNK_COLUMNS, trunkView, type TrunkRow } from '../trunks/trunks.ts';
import { UsageError } from './admin.ts';

// `tolk trunk add | list | remove` (operator.md, SIP trunks and live mode).
// The password goes into the database encrypted (trunks/secret.ts) and is
// printed nowhere: not by add, list or remove, not in an error.

export type TrunkAddOptions = {
  org: string;
  uri: string;
  proxy?: string;
  username?: string;
  password?: string;
  realm?: string;
  fromDomain?: string;
  callerId?: string;
  privacy?: boolean;
  numberFormat?: string;
  maxCps?: number;
};

const HOST = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
/** A digest username or realm: printable, no quote or backslash (they go between quotes in the Authorization header). */
const TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

export async function addTrunk(pool: Pool, secretKey: Buffer | undefined, o: TrunkAddOptions) {
  if (!parseTrunkUri(o.uri)) throw new UsageError('--uri must be sip:HOST[:PORT][;transport=udp|tcp], e.g. sip:sip.carrier.example;transport=tcp');
  if (o.proxy !== undefined && !parseTrunkUri(o.proxy)) throw new UsageError('--proxy must be sip:HOST[:PORT][;transport=udp|tcp]');
  if (o.password !== undefined && o.username === undefined) throw new UsageError('--password needs --username');
  if (o.password !== undefined && (o.password.length === 0 || o.password.length > 256)) throw new UsageError('--password must be 1 to 256 characters');
  if (o.username !== undefined && !TOKEN.test(o.username)) throw new UsageError('--username must be 1 to 128 printable characters without quotes or backslashes');
  if (o.realm !== undefined && !TOKEN.test(o.realm)) throw new UsageError('--realm must be 1 to 128 printable characters without quotes or backslashes');
  if (o.fromDomain !== undefined && !HOST.test(o.fromDomain)) throw new UsageError('--from-domain must be a host name, e.g. sip.carrier.example');
  const callerId = o.callerId ?? 'from';
  if (callerId !== 'from' && callerId !== 'pai') throw new UsageError('--caller-id must be from or pai');
  if (o.privacy && callerId !== 'pai') throw new UsageError('--privacy needs --caller-id pai: the caller id then goes in P-Asserted-Identity and From is anonymous');
  const numberFormat = o.numberFormat ?? 'e164';
  if (numberFormat !== 'e164' && numberFormat !== 'digits') throw new UsageError('--number-format must be e164 (+14155550100) or digits (14155550100)');
  if (o.maxCps !== undefined && !(o.maxCps > 0 && o.maxCps <= 10_000)) throw new UsageError('--max-cps must be a number above 0 (calls per second)');
  const id = newId('trk');
  let passwordEnc: string | null = null;
  if (o.password !== undefined) {
    try {
      passwordEnc = encryptSecret(secretKey, o.password, id);
    } catch (err) {
      throw new UsageError((err as SecretKeyError).message);
    }
  }
  return withTx(pool, async (tx) => {
    const org = await tx.query(`SELECT 1 FROM organizations WHERE id = $1`, [o.org]);
    if (!org.rows[0]) throw new UsageError(`no such organization: ${o.org}`);
    await tx.query(
      `INSERT INTO trunks (id, org_id, uri, proxy, username, password_enc, realm, from_domain, caller_id, privacy, number_format, max_cps)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [id, o.org, o.uri.trim(), o.proxy?.trim() ?? null, o.username ?? null, passwordEnc, o.realm ?? null, o.fromDomain ?? null,
        callerId, o.privacy ?? false, numberFormat, o.maxCps ?? null],
    );
    return { id };
  });
}

export async function listTrunks(pool: Pool, orgId: string) {
  const org = await pool.query(`SELECT 1 FROM organizations WHERE id = $1`, [orgId]);
  if (!org.rows[0]) throw new UsageError(`no such organization: ${orgId}`);
  const { rows } = await pool.query<TrunkRow>(`SELECT ${TRUNK_COLUMNS} FROM trunks WHERE org_id = $1 ORDER BY created_at, id`, [orgId]);
  return { data: rows.map(trunkView) };
}

/** Removes the trunk; its numbers stay, with no trunk (their live calls answer 501 until they get another). */
export async function removeTrunk(pool: Pool, id: string) {
  return withTx(pool, async (tx) => {
    const { rows } = await tx.query<TrunkRow>(`DELETE FROM trunks WHERE id = $1 RETURNING ${TRUNK_COLUMNS}`, [id]);
    if (!rows[0]) throw new UsageError(`no such trunk: ${id}`);
    return trunkView(rows[0]);
  });
}
