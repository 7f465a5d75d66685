import { notifyAfterCommit } from './after-commit.ts';
import { commitWith, prepared, type Client, type Queryable } from './pool.ts';

/** Whether err is a statement that runAlone failed because a row changed concurrently (or any serialization failure). */
export function isConcurrentChange(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '40001';
}

/** An SQL expression written by our code (never input), given where a value is expected (a column a part sets). */
export class Sql {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * One statement built from parts, so that the writes of several functions (an
 * actor's transition, a phrase in a log, a ledger row, a transcript) reach the
 * database in one round trip instead of one each. Each part adds CTEs; their
 * parameters are numbered as they are added (p()), and the statement returns
 * one row of the outputs the parts asked for (out()).
 *
 * What PostgreSQL does with such a statement, and the parts must respect:
 * every data-modifying CTE runs to completion whether or not anything reads
 * it; all of them see one snapshot, taken when the statement starts, and none
 * sees the rows another one writes (a part reads another's results only
 * through its RETURNING); two parts must never update the same row (the
 * second update would be lost). A part that depends on another (an actor's
 * history row on its version check) selects FROM that part's CTE.
 *
 * The text depends only on which parts were added, never on values, so each
 * combination is one named prepared statement (pool.ts prepared()).
 */
export class Writes {
  readonly values: unknown[] = [];
  private readonly ctes: string[] = [];
  private readonly outputs: string[] = [];
  private readonly checks: Array<{ alias: string; cte: string; want: number; fail: () => Error }> = [];
  private readonly channels = new Set<string>();
  private n = 0;

  /** The placeholder of a new parameter holding value (with an optional cast such as '::text[]'). */
  p(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }

  /** value's placeholder, or, for an Sql expression, its text. */
  value(value: unknown): string {
    return value instanceof Sql ? value.text : this.p(value);
  }

  /** A name for a CTE or an output no other part uses. */
  name(stem: string): string {
    return `${stem}_${this.n++}`;
  }

  /** Adds `name AS (sql)`. */
  with(name: string, sql: string): void {
    this.ctes.push(`${name} AS (${sql})`);
  }

  /** Adds an output column of the statement's row; returns its alias. */
  out(expr: string, stem = 'out'): string {
    const alias = this.name(stem);
    this.outputs.push(`${expr} AS ${alias}`);
    return alias;
  }

  /** The statement fails with fail() (after it ran: the caller's transaction rolls it back) unless `cte` returned `want` rows. */
  expectRows(cte: string, want: number, fail: () => Error): void {
    const alias = this.name('rows');
    this.outputs.push(`(SELECT count(*)::int FROM ${cte}) AS ${alias}`);
    this.checks.push({ alias, cte, want, fail });
  }

  /** The statement writes what `channel`'s readers wait for: they are woken once it is committed (after-commit.ts). */
  notify(channel: string): void {
    this.channels.add(channel);
  }

  get isEmpty(): boolean {
    return this.ctes.length === 0 && this.outputs.length === 0;
  }

  /** Runs the statement in tx; its row of outputs. */
  async run(tx: Queryable): Promise<Record<string, unknown>> {
    const wake = this.marked(tx);
    const row = (await tx.query(this.query())).rows[0] as Record<string, unknown>;
    wake();
    return this.checked(row);
  }

  /** Runs the statement as the last of withTx's transaction and commits it with it (pool.ts commitWith). */
  async runAndCommit(tx: Client): Promise<Record<string, unknown>> {
    this.marked(tx);
    const { rows } = await commitWith(tx, this.query());
    // A failed check after the commit would leave what was committed
    // unexplained: only the version checks fail here, and they cannot
    // while the caller holds the rows' locks (lockObjects).
    return this.checked(rows[0] as Record<string, unknown>);
  }

  /**
   * Runs the statement on its own, outside any transaction (one round trip, no
   * BEGIN or COMMIT): PostgreSQL commits it whole or not at all. Its checks run
   * inside it (tolk_expect_rows): one that does not hold fails the statement,
   * and so every write of it, with SQLSTATE 40001 (isConcurrentChange). For
   * writes guarded by optimistic versions alone, with no lock held.
   */
  async runAlone(db: Queryable): Promise<Record<string, unknown>> {
    const wake = this.marked(db);
    const row = (await db.query(this.query(true))).rows[0] as Record<string, unknown>;
    wake();
    return row;
  }

  /** Marks db for the channels' wake-ups; what to call once the statement has answered (for a pool's statement, its commit). */
  private marked(db: Queryable): () => void {
    if (this.channels.size === 0) return () => {};
    const marks = [...this.channels].map((c) => notifyAfterCommit(db, c));
    return () => { for (const m of marks) m.committed(); };
  }

  private query(checkInside = false) {
    const outputs = this.outputs.map((o) => {
      const c = checkInside ? this.checks.find((k) => o.endsWith(` AS ${k.alias}`)) : undefined;
      return c ? `tolk_expect_rows((SELECT count(*)::int FROM ${c.cte}), ${c.want}) AS ${c.alias}` : o;
    });
    const select = `SELECT ${outputs.length > 0 ? outputs.join(', ') : 'true AS done'}`;
    return prepared(this.ctes.length > 0 ? `WITH ${this.ctes.join(',\n')}\n${select}` : select, this.values);
  }

  private checked(row: Record<string, unknown>): Record<string, unknown> {
    for (const c of this.checks) if (row[c.alias] !== c.want) throw c.fail();
    return row;
  }
}
