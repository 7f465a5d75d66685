import fs from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { loadConfig } from '../src/config.ts';
import { createPool } from '../src/db/pool.ts';
import { buildApp } from '../src/app.ts';

// Writes openapi.json (the document GET /v1/openapi.json serves) so reviews see
// interface changes, and the client library's types generated from it
// (sdk/src/openapi.ts, by openapi-typescript); `--check` fails when either
// committed file is stale (pretest): a route or field that changes breaks the build.
const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://localhost:8080' }, { workers: false });
// Generating the document needs no database: no query runs, and the LISTEN
// connections buildApp opens fail against this address and close with the app.
const pool = createPool('postgres://unused@127.0.0.1:1/unused', 1);
const app = await buildApp({ config, pool, boss: null as never, databaseUrl: 'postgres://unused@127.0.0.1:1/unused' });
const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
await app.close();
await pool.end();
const text = `${JSON.stringify(JSON.parse(res.body), null, 2)}\n`;
const types = `// Generated from openapi.json by openapi-typescript (npm run openapi): do not edit.\n${astToString(await openapiTS(JSON.parse(text)))}`;
const files: Array<[string, string]> = [['openapi.json', text], ['sdk/src/openapi.ts', types]];
if (process.argv.includes('--check')) {
  const stale = files.filter(([file, body]) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '') !== body).map(([file]) => file);
  if (stale.length > 0) {
    process.stderr.write(`${stale.join(' and ')} ${stale.length > 1 ? 'are' : 'is'} stale: run npm run openapi\n`);
    process.exit(1);
  }
} else {
  for (const [file, body] of files) fs.writeFileSync(file, body);
}
