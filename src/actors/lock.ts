import type { Client } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import type { MachineName } from '../../machines/index.ts';
import { IDENT, OBJECT_TABLES } from './tables.ts';

// Reading an object and its actor for a transition: both rows locked, in
// that order, by one statement (the store's transition and planTransition
// take what this returns).

/** An object's row and its actor, locked for the rest of the transaction (lockObjects). */
export type Locked<Row> = {
  machine: MachineName;
  id: string;
  row: Row;
  actor: { org_id: string; livemode: boolean; snapshot: unknown; version: number };
  /** The transaction's now(), the time PostgreSQL stamps ended_at with. */
  now: Date;
};

type Lookup = { machine: MachineName; returning: string };

/** The column names of a `returning` list ('id, status, ended_at'). */
function columnsOf(returning: string): string[] {
  const cols = returning.split(',').map((c) => c.trim());
  for (const c of cols) if (!IDENT.test(c)) throw new Error(`lockObjects: '${c}' is not a plain column name`);
  return cols;
}

const ACTOR_COLUMNS = ['machine', 'org_id', 'livemode', 'snapshot', 'version'] as const;

/**
 * Locks and reads, in one statement (one round trip), an object's row and
 * then its actor, and, when `second` is given, the object its row names in
 * column `second.via` (a call's session): that one's row, then its actor.
 * Every transition locks an object's row before its actor, so holding the
 * row is what guards the actor. null for an object that does not exist (or
 * whose actor is another machine's).
 */
export async function lockObjects<A extends Record<string, unknown>, B extends Record<string, unknown> = Record<string, unknown>>(
  tx: Client,
  first: Lookup & { id: string },
  second?: Lookup & { via: string },
): Promise<{ first: Locked<A> | null; second: Locked<B> | null }> {
  const actorCols = (alias: string, prefix: string) => ACTOR_COLUMNS.map((c) => `${alias}.${c} AS ${prefix}${c}`).join(', ');
  const select = [`r.*`, actorCols('a', '__a_')];
  const joins = [`LEFT JOIN LATERAL (SELECT ${ACTOR_COLUMNS.join(', ')} FROM actors WHERE actors.id = r.id FOR UPDATE) a ON true`];
  let cols2: string[] = [];
  if (second) {
    if (!IDENT.test(second.via)) throw new Error(`lockObjects: '${second.via}' is not a plain column name`);
    cols2 = columnsOf(second.returning);
    select.push(cols2.map((c) => `s.__s_${c}`).join(', '), actorCols('b', '__b_'));
    joins.push(
      `LEFT JOIN LATERAL (SELECT ${cols2.map((c) => `${c} AS __s_${c}`).join(', ')} FROM ${OBJECT_TABLES[second.machine].table} t
        WHERE t.id = r.${second.via} FOR UPDATE) s ON true`,
      `LEFT JOIN LATERAL (SELECT ${ACTOR_COLUMNS.join(', ')} FROM actors WHERE actors.id = s.__s_id FOR UPDATE) b ON true`,
    );
  }
  const returning = second && !columnsOf(first.returning).includes(second.via) ? `${first.returning}, ${second.via}` : first.returning;
  const { rows } = await tx.query(prepared(
    `WITH r AS MATERIALIZED (SELECT ${returning}, now() AS __now FROM ${OBJECT_TABLES[first.machine].table} WHERE id = $1 FOR UPDATE)
     SELECT ${select.join(', ')} FROM r ${joins.join(' ')}`,
    [first.id],
  ));
  const found = rows[0] as Record<string, unknown> | undefined;
  if (!found) return { first: null, second: null };
  const take = (prefix: string, machine: MachineName, row: Record<string, unknown>, now: Date) => {
    const a = Object.fromEntries(ACTOR_COLUMNS.map((c) => [c, found[`${prefix}${c}`]])) as Record<string, unknown>;
    if (a.machine !== machine) return null;
    return {
      machine, id: row.id as string, row, now,
      actor: { org_id: a.org_id as string, livemode: a.livemode as boolean, snapshot: a.snapshot, version: a.version as number },
    };
  };
  const now = found.__now as Date;
  const row1: Record<string, unknown> = {};
  const row2: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(found)) {
    if (k.startsWith('__s_')) row2[k.slice(4)] = v;
    else if (!k.startsWith('__')) row1[k] = v;
  }
  return {
    first: take('__a_', first.machine, row1, now) as Locked<A> | null,
    second: second && row2.id != null ? (take('__b_', second.machine, row2, now) as Locked<B> | null) : null,
  };
}
