import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { Pool } from '../src/db/pool.ts';
import type { LoadJob, LoadResult } from './load.ts';

/** One HTTP request on a keep-alive agent: its status and body (the benchmarks' client). */
export function request(agent: http.Agent, url: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) req.end(body);
    else req.end();
  });
}

/** Runs one load job in the child process. */
export function runJob(child: ChildProcess, job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`load generator exited (${code}) during ${job.name}`));
    child.once('exit', onExit);
    child.once('message', (m: { ok: boolean; result?: LoadResult; error?: string }) => {
      child.off('exit', onExit);
      if (m.ok) resolve(m.result!);
      else reject(new Error(`load generator failed during ${job.name}: ${m.error}`));
    });
    child.send(job);
  });
}

/** The database's backends (their CPU is read from /proc). */
export async function backendPids(pool: Pool, db: string): Promise<number[]> {
  const { rows } = await pool.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [db]);
  return rows.map((r) => r.pid as number);
}

/** Idempotency keys kept for a credential: every create a run made. */
export async function countIdempotencyKeys(pool: Pool, credentialId: string): Promise<number> {
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE credential_id = $1`, [credentialId]);
  return rows[0].n;
}
