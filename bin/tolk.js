#!/usr/bin/env node
// Launcher for the operator CLI. The project runs on Node 24 (the `node`
// devDependency); if an older node started us, re-run under that one.
import { spawnSync } from 'node:child_process';
import module, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const require = createRequire(import.meta.url);
  const node = require.resolve('node/bin/node');
  const r = spawnSync(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
} else {
  // V8's compiled code for the CLI's modules is kept between runs (in
  // NODE_COMPILE_CACHE, else the system's temporary folder): a command starts
  // in about half the processor time.
  module.enableCompileCache?.();
  await import('../src/cli/main.ts');
}
