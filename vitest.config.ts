import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'machines/**/*.test.ts', 'policies/**/*.test.ts', 'gateway/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Keeps the databases of a file that failed, drops those of one that passed.
    setupFiles: ['test/helpers/keep-failed.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run in parallel, each on its own database cloned from a migrated template.
    pool: 'forks',
    // Most files spend their time waiting on real time (SIP timers, calls
    // ringing and talking, browsers, child servers), not on a core: two at
    // once on two cores (vitest's default is one fewer than the cores, a
    // single file at a time there). More at once runs PostgreSQL out of
    // connections (100 by default: a file's apps, workers and child servers
    // hold twenty or more). --maxWorkers or VITEST_MAX_WORKERS overrides it.
    maxWorkers: 2,
    sequence: { concurrent: false },
  },
});
