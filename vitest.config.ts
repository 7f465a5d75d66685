import { defineConfig } from 'vitest/config';

/**
 * Files that hear, speak or time real audio against real peers (PocketSphinx
 * on a call, baresip and a carrier's Kamailio, the room page's audio socket,
 * a recording made in Chromium, two gateways behind Kamailio): a second such file beside them on two cores
 * takes the processor their real-time work needs (an utterance read late, a
 * call answered late). They run one at a time, after the others.
 */
const REAL_TIME = [
  'test/calls/trunks.test.ts',
  'test/calls/hearing.test.ts',
  'test/calls/baresip.test.ts',
  'test/calls/softphone-recipe.test.ts',
  'test/calls/carrier.test.ts',
  'test/rooms/audio.test.ts',
  'test/rooms/audio-page.test.ts',
  'test/voices/live-cloning.test.ts',
  'gateway/sip-stack.carriers.test.ts',
  // Two server processes and Kamailio, the say's speech counted on the line.
  'test/calls/dispatcher.test.ts',
];

export default defineConfig({
  test: {
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
    projects: [
      {
        extends: true,
        test: {
          name: 'tolk',
          include: ['test/**/*.test.ts', 'machines/**/*.test.ts', 'policies/**/*.test.ts', 'gateway/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: REAL_TIME,
        },
      },
      { extends: true, test: { name: 'real-time', include: REAL_TIME, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
