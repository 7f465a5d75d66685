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
// (and its children's: SIPp, servers, Chromium) to the lowest, nice 19, so a
// real-time file beside it gets the processor when it needs it, its own
// low-priority helpers included: PocketSphinx decodes at nice 10
// (engines/pocketsphinx/recognizer.ts), which at the other files' former nice 10
// shared the processor evenly with three of them and read 7 s of a call's
// speech in over 9 s. Lowering a priority needs no privilege.

const TURN = 'tolk-test-real-time-turn';
/** Long enough for the longest real-time file ahead to finish. */
const WAIT_MS = 20 * 60_000;

aroundAll(async (runSuite, {}, suite: Readonly<RunnerTestSuite | RunnerTestFile>) => {
  const file = 'filepath' in suite ? suite : suite.file;
  if (!isRealTime(file.filepath)) {
    try {
      os.setPriority(19);
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
