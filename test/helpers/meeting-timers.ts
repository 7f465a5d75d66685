import { expect } from 'vitest';
import type { Pool } from '../../src/db/pool.ts';
import { until } from './wait.ts';

/** Makes a meeting's pg-boss timer of `kind` due now, as if its time had come, and waits until the workers have run it. */
export async function fireMeetingTimer(pool: Pool, roomId: string, kind: string): Promise<void> {
  const r = await pool.query(
    `UPDATE pgboss.job SET start_after = now() WHERE name = 'meeting-timer' AND data->>'roomId' = $1 AND data->>'kind' = $2 AND state = 'created'`,
    [roomId, kind],
  );
  expect(r.rowCount).toBe(1);
  await until(`the ${kind} timer to run`, async () => {
    const { rows } = await pool.query(
      `SELECT state FROM pgboss.job WHERE name = 'meeting-timer' AND data->>'roomId' = $1 AND data->>'kind' = $2`,
      [roomId, kind],
    );
    return rows[0]?.state === 'completed' ? true : undefined;
  }, { intervalMs: 50 });
}
