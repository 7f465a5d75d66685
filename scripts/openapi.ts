import fs from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { createPool } from '../src/db/pool.ts';
import { buildApp } from '../src/app.ts';

// Writes openapi.json (the document GET /v1/openapi.json serves) so reviews see
// interface changes; `--check` fails when the committed file is stale (pretest).
const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://localhost:8080' }, { workers: false });
// Generating the document needs no database: no query runs, and the LISTEN
// connections buildApp opens fail against this address and close with the app.
const pool = createPool('postgres://unused@127.0.0.1:1/unused', 1);
const app = await buildApp({ config, pool, boss: null as never, databaseUrl: 'postgres://unused@127.0.0.1:1/unused' });
const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
await app.close();
await pool.end();
const text = `${JSON.stringify(JSON.parse(res.body), null, 2)}\n`;
const file = 'openapi.json';
if (process.argv.includes('--check')) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current !== text) {
    process.stderr.write(`${file} is stale: run npm run openapi\n`);
    process.exit(1);
  }
} else {
  fs.writeFileSync(file, text);
}
