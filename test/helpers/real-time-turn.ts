import os from 'node:os';
import pg from 'pg';
import { aroundAll, inject } from 'vitest';
import type { RunnerTestFile, RunnerTestSuite } from 'vitest';
import { isRealTime } from './run-order.ts';

// Setup file (vitest.config.ts setupFiles), run before each test file.
//
// A real-time file (run-order.ts) runs only while it holds the run's turn: a
// PostgreSQL advisory lock on a connection of its own, given back when the
// file ends (or its process dies). Every other file lowers its own priority
// (and its children's: SIPp, servers, Chromium) by ten steps, so a real-time
// file beside it gets the processor when it needs it. Lowering a priority
// needs no privilege.

const TURN = 'tolk-test-real-time-turn';
/** Long enough for the longest real-time file ahead to finish. */
const WAIT_MS = 10 * 60_000;

aroundAll(async (runSuite, {}, suite: Readonly<RunnerTestSuite | RunnerTestFile>) => {
  const file = 'filepath' in suite ? suite : suite.file;
  if (!isRealTime(file.filepath)) {
    try {
      os.setPriority(Math.min(19, os.getPriority() + 10));
    } catch {
      // A system that refuses even this: the file runs as it is, only the run's length changes.
    }
    await runSuite();
    return;
  }
  const turn = new pg.Client({ connectionString: inject('adminUrl'), application_name: 'tolk-test-turn' });
  await turn.connect();
  try {
    await turn.query(`SELECT pg_advisory_lock(hashtext($1))`, [TURN]);
    await runSuite();
  } finally {
    await turn.end();
  }
}, WAIT_MS);
