import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { RunOrder } from './test/helpers/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'machines/**/*.test.ts', 'policies/**/*.test.ts', 'gateway/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    env: {
      // V8's compiled code kept between processes: the CLI and server
      // processes the tests start (a few hundred) and the workers themselves
      // start in about half the processor time.
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? fileURLToPath(new URL('node_modules/.cache/node-compile-cache', import.meta.url)),
      // The server processes the tests start: a pool of 8 (four files at once
      // must fit in PostgreSQL's 100 connections), and no drain on a stop
      // (test/ops/health.test.ts sets its own to test it).
      TOLK_DB_POOL: '8',
      TOLK_DRAIN_SECONDS: '0',
    },
    setupFiles: [
      // Keeps the databases of a file that failed, drops those of one that passed.
      'test/helpers/keep-failed.ts',
      // The files that hear or speak real audio take turns; the others yield the processor to them (run-order.ts).
      'test/helpers/real-time-turn.ts',
    ],
    testTimeout: 30_000,
    // One more try for a test that failed: on two shared cores the files that time real audio
    // (a call's speech read by PocketSphinx at nice 10, paced RTP, a voicemail's greeting) miss
    // their moment now and then, most on a fresh machine's first run (no compile cache). A test
    // that fails twice fails the run; vitest's report names every test that needed its retry.
    retry: 1,
    // A file's set-up starts servers and child processes at nice 19 beside the real-time files: on a
    // loaded CI machine one child server took over a minute to answer.
    hookTimeout: 120_000,
    // Files run in parallel, each in its own process on its own database cloned from a migrated template.
    pool: 'forks',
    // Most files spend much of their time waiting on real time (SIP timers,
    // calls ringing and talking, browsers, child servers), so four at once keep
    // two cores busy. More at once runs PostgreSQL out of connections (100 by
    // default: a file's apps, workers and child servers hold twenty or more).
    // VITEST_MAX_WORKERS overrides it.
    maxWorkers: 4,
    sequence: { concurrent: false, sequencer: RunOrder },
  },
});
