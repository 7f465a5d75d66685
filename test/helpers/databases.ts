// What becomes of a test file's databases (createTestDatabase in app.ts).
//
// A database is dropped once its file has run, unless a test of that file (or
// one of its hooks) failed: then it is kept for inspection and its name printed
// on stderr, as pg-boss's own tests do. TOLK_TEST_KEEP_DB=1 keeps every one.
//
// The decision needs the file's results, so a release made during the file is
// held until it ends. The setup file test/helpers/keep-failed.ts (setupFiles
// in vitest.config.ts) opens that scope around each file; without it a
// released database is dropped at once, as before.

export type Releasable = { name: string; url: string; drop: () => Promise<void> };

type Scope = { file: string; held: Map<string, Releasable> };

let scope: Scope | null = null;

const keepAll = () => !!process.env.TOLK_TEST_KEEP_DB;

function report(db: Releasable, why: string): void {
  process.stderr.write(`[tolk test] kept database ${db.name} (${why}): psql '${db.url}'; drop it with DROP DATABASE ${db.name} WITH (FORCE)\n`);
}

/** The database is no longer used: dropped now, at the end of its file, or kept (see above). */
export async function releaseDatabase(db: Releasable): Promise<void> {
  if (keepAll()) {
    report(db, 'TOLK_TEST_KEEP_DB');
    return;
  }
  if (scope) {
    scope.held.set(db.name, db);
    return;
  }
  await db.drop();
}

/**
 * Runs one test file (`run`) with its releases held, then drops what it
 * released, or keeps it when `failed()` says the file failed.
 */
export async function holdDatabasesDuring(file: string, run: () => Promise<void>, failed: () => boolean): Promise<void> {
  const mine: Scope = { file, held: new Map() };
  scope = mine;
  try {
    await run();
  } finally {
    if (scope === mine) scope = null;
    const dbs = [...mine.held.values()];
    if (dbs.length > 0 && failed()) {
      for (const db of dbs) report(db, `${file} failed`);
    } else {
      // One failed drop must not leave the others behind; the first error is reported.
      const results = await Promise.allSettled(dbs.map((db) => db.drop()));
      const err = results.find((r) => r.status === 'rejected');
      if (err) throw (err as PromiseRejectedResult).reason;
    }
  }
}
