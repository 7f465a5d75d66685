import { aroundAll } from 'vitest';
import type { RunnerTestFile, RunnerTestSuite, RunnerTask } from 'vitest';
import { holdDatabasesDuring } from './databases.ts';

// Setup file (vitest.config.ts setupFiles), run before each test file: holds
// the file's test databases until it has run, then drops them if it passed and
// keeps them (printing their names) if it failed (see databases.ts).
//
// aroundAll wraps the whole file, its beforeAll and afterAll hooks included, so
// by the time runSuite() returns every result is known: a test's, a describe's
// hook's (on that suite's result), and the file's own hooks' (on the file's).

function failed(task: Readonly<RunnerTask>): boolean {
  if (task.result?.state === 'fail') return true;
  return 'tasks' in task && task.tasks.some((t) => failed(t));
}

// (The empty pattern: vitest reads fixtures from the second argument and requires destructuring there.)
aroundAll(async (runSuite, {}, suite: Readonly<RunnerTestSuite | RunnerTestFile>) => {
  const file = 'filepath' in suite ? suite : suite.file;
  await holdDatabasesDuring(file.name, runSuite, () => failed(file));
});
