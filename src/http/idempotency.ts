import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { prepared, together, type Client, type Pool } from '../db/pool.ts';
import { ApiError } from '../errors.ts';
import { caller } from './route.ts';

// Idempotency-Key (api.md section 8), Stripe's semantics:
// - required on the listed creates; up to 255 characters;
// - kept 24 hours per credential;
// - a replay answers the original status and body (header Idempotent-Replayed);
// - the same key with another request answers 409 idempotency_mismatch;
// - while the first request runs, a duplicate answers 409 idempotency_in_progress.
//
// The work and the saved response commit in one transaction, guarded by a
// transaction-scoped advisory lock on (credential, key). A process killed
// mid-way loses its connection, so PostgreSQL rolls the work back and drops
// the lock: no half-made object, no key stuck. Only successful (2xx) results
// are saved; a request that failed changed nothing and may be retried with the
// same key (our choice where api.md is silent).

export const MAX_KEY_LENGTH = 255;

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  }
  return v;
}

/**
 * What a key is bound to: the method, the path and the body (keys in any order).
 * An MCP tool call hashes the request its HTTP twin would send, so one key used
 * over both is one request.
 */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${JSON.stringify(canonical(body ?? null))}`).digest('hex');
}

/** preValidation: the key must be there before the body is even looked at. */
export function readIdempotencyKey(req: FastifyRequest): void {
  const raw = req.headers['idempotency-key'];
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || key === '') {
    throw new ApiError('idempotency_key_required', `Idempotency-Key: header required on ${req.method} ${req.routeOptions.url}`);
  }
  if (key.length > MAX_KEY_LENGTH) {
    throw new ApiError('invalid_request', `Idempotency-Key: at most ${MAX_KEY_LENGTH} characters`);
  }
  const hash = requestHash(req.method, req.url.split('?')[0]!, req.body);
  req.idempotency = { key, hash };
}

export type Outcome<T> = { status: number; body: T };

/** Runs a create's work once per key: idempotent() for a route, mcp/tool.ts once() for a tool. */
export type Once<T> = (work: (tx: Client) => Promise<Outcome<T>>) => Promise<T>;

/** Runs a create at most once per (credential, Idempotency-Key). */
export async function idempotent<T>(
  pool: Pool,
  req: FastifyRequest,
  reply: FastifyReply,
  work: (tx: Client) => Promise<Outcome<T>>,
): Promise<T> {
  const idem = req.idempotency;
  if (!idem) throw new Error('idempotent() on a route without config.idempotent');
  const out = await runOnce(pool, caller(req).id, idem, work);
  if (out.replayed) reply.header('Idempotent-Replayed', 'true');
  reply.code(out.status);
  return out.body;
}

/**
 * The rule above for any caller (an HTTP route, an MCP tool): the work and its
 * saved outcome commit together, or the saved outcome of an earlier run with
 * the same key comes back with `replayed`.
 */
export async function runOnce<T>(
  pool: Pool,
  credentialId: string,
  idem: { key: string; hash: string },
  work: (tx: Client) => Promise<Outcome<T>>,
): Promise<Outcome<T> & { replayed: boolean }> {
  const tx = await pool.connect();
  let broken = false;
  try {
    // One round trip, three statements (the pool pipelines them, in one
    // write). The SELECT is its own statement, so (READ COMMITTED) it takes its
    // snapshot after the lock is held and sees whatever the previous holder of
    // the lock committed. It runs even when the lock is not granted; its result
    // is then ignored.
    const [, lock, prior] = await Promise.all(together(tx, () => [
      tx.query('BEGIN'),
      tx.query<{ locked: boolean }>(prepared(`SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7)) AS locked`, [`${credentialId}\n${idem.key}`])),
      tx.query<{ request_hash: string; status: number; body: unknown }>(prepared(
        `SELECT request_hash, status, body FROM idempotency_keys WHERE credential_id = $1 AND key = $2 AND created_at > now() - interval '24 hours'`,
        [credentialId, idem.key],
      )),
    ] as const));
    if (!lock.rows[0]!.locked) {
      throw new ApiError('idempotency_in_progress', 'Idempotency-Key: a request with this key is still running; retry shortly', { 'Retry-After': '1' });
    }
    const p = prior.rows[0];
    if (p) {
      await tx.query('ROLLBACK');
      if (p.request_hash !== idem.hash) {
        throw new ApiError('idempotency_mismatch', 'Idempotency-Key: already used with a different request; use a new key');
      }
      return { status: p.status, body: p.body as T, replayed: true };
    }
    const out = await work(tx);
    if (!Number.isInteger(out.status)) throw new Error(`idempotent(): status ${out.status} is not an integer`);
    // The saved response and COMMIT in one round trip; if the INSERT fails,
    // PostgreSQL turns the COMMIT into a ROLLBACK and its error is thrown.
    const [saved, commit] = together(tx, () => [
      tx.query(prepared(
        `INSERT INTO idempotency_keys (credential_id, key, request_hash, status, body) VALUES ($1, $2, $3, $4, $5::jsonb)
         ON CONFLICT (credential_id, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, status = EXCLUDED.status, body = EXCLUDED.body, created_at = now()`,
        [credentialId, idem.key, idem.hash, out.status, JSON.stringify(out.body)],
      )),
      tx.query('COMMIT'),
    ] as const);
    commit.catch(() => {});
    await saved;
    await commit;
    return { ...out, replayed: false };
  } catch (err) {
    await tx.query('ROLLBACK').catch(() => { broken = true; });
    throw err;
  } finally {
    tx.release(broken);
  }
}
