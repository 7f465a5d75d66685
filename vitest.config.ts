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
    sequence: { concurrent: false },
  },
});
