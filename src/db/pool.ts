import { hash } from 'node:crypto';
import pg from 'pg';
import { afterCommitNotifier } from './after-commit.ts';

// BIGINT and NUMERIC come back as strings by default; our counters and minutes fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export type Pool = pg.Pool;
export type Client = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

const statementNames = new Map<string, string>();
const MAX_NAMED = 500;

/**
 * A query on a hot path as a named prepared statement: each connection has
 * PostgreSQL parse and plan it once, then only binds and runs it (a GET of a
 * room costs the database about half the CPU it does unnamed). The text must
 * be written by our code, never built from input: every distinct text is a
 * statement kept by every connection (past MAX_NAMED texts, queries run unnamed).
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = statementNames.get(text);
  if (name === undefined) {
    if (statementNames.size >= MAX_NAMED) return { text, values };
    name = `tolk_${hash('sha256', text).slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

export function createPool(url: string, max = 20): pg.Pool {
  // A request waiting for a connection to a database that is gone fails
  // (503, see isDatabaseDown) instead of hanging.
  // pipeline: a query is sent without waiting for the answers to those
  // before it (withTx sends BEGIN with the first statement; commitWith).
  // Nothing changes for code that awaits each query.
  // Named in pg_stat_activity (application_name 'tolk', unless the URL names another).
  const pool = new pg.Pool({ connectionString: url, max, application_name: 'tolk', idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000, pipeline: true } as pg.PoolConfig);
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => {});
  // Nor one that is checked out: the query it runs fails with the error, and
  // without a listener the client's 'error' event would end the process
  // ("terminating connection due to administrator command").
  // Channels written to are notified once the transaction commits (after-commit.ts).
  const notifier = afterCommitNotifier(pool);
  pool.on('connect', (client) => {
    client.on('error', () => {});
    notifier.watch(client);
  });
  return pool;
}

const DOWN_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH',
  // PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now, the connection_exception class,
  // and too_many_connections (the server is full for now: retry later as well).
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300',
]);

/** The database cannot be reached (stopped, restarting, network): retry later, nothing is wrong with the request. */
export function isDatabaseDown(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && DOWN_CODES.has(e.code)) return true;
  return /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/.test(e.message ?? '');
}

/**
 * Runs fn and returns what it returns; the queries it sends on c meanwhile
 * (the pool pipelines: each is sent when made) leave in one write to the
 * socket instead of one each.
 */
export function together<T>(c: pg.PoolClient, fn: () => T): T {
  const stream = (c as unknown as { connection?: { stream?: { cork?: () => void; uncork?: () => void } } }).connection?.stream;
  stream?.cork?.();
  try {
    return fn();
  } finally {
    stream?.uncork?.();
  }
}

/** Transactions their last statement committed (commitWith). */
const committed = new WeakSet<pg.PoolClient>();

/**
 * Runs fn inside one transaction; rolls back on any error. The pool's
 * connections pipeline (createPool), so BEGIN goes out with fn's first
 * statement, and fn may end with commitWith (its last statement and COMMIT
 * together): a transaction of two statements costs two waits, not four.
 */
export async function withTx<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  // A connection comes back to the pool with no transaction open: a mark left
  // by a transaction that committed with commitWith and then threw must not
  // make this one skip its COMMIT.
  committed.delete(c);
  try {
    // BEGIN and what fn sends before its first wait leave in one write.
    const [begin, running] = together(c, () => [c.query('BEGIN'), fn(c)] as const);
    begin.catch(() => {});
    const out = await running;
    await begin;
    if (!committed.delete(c)) await c.query('COMMIT');
    return out;
  } catch (err) {
    committed.delete(c);
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

/**
 * Sends q, the last statement of withTx's transaction, with COMMIT right
 * behind it, and waits for both at once. Nothing may run on tx afterwards
 * (withTx then commits nothing more). If q fails, PostgreSQL turns the COMMIT
 * into a ROLLBACK and q's error is thrown.
 */
export async function commitWith<R extends pg.QueryResultRow>(tx: pg.PoolClient, q: pg.QueryConfig): Promise<pg.QueryResult<R>> {
  const [result, commit] = together(tx, () => [tx.query<R>(q), tx.query('COMMIT')] as const);
  commit.catch(() => {});
  const r = await result;
  await commit;
  committed.add(tx);
  return r;
}

type ErrorLog = { error: (o: object, m: string) => void; warn: (m: string) => void };

/**
 * A logger for loops that retry by themselves (pg-boss, the outbox dispatcher,
 * the simulator): while the database is unreachable, one warning per 30 s
 * instead of an error with a stack trace per failed poll.
 */
export function quietOutages<L extends ErrorLog>(log: L): { error: (o: { err?: unknown }, m: string) => void } {
  let last = 0;
  return {
    error: (o, m) => {
      if (!isDatabaseDown(o.err)) return log.error(o, m);
      const t = Date.now();
      if (t - last < 30_000) return;
      last = t;
      const e = o.err as { code?: string; message?: string };
      log.warn(`${m}: the database is unreachable (${e.code ?? e.message}); retrying`);
    },
  };
}
