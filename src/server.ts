import { loadConfig } from './config.ts';
import { startPlatform } from './platform.ts';
import { buildApp } from './app.ts';
import { seedIfEmpty } from './cli/seed.ts';

// Listens and closes gracefully; everything else is in buildApp and startPlatform.
const config = loadConfig();
const platform = await startPlatform(config);
const app = await buildApp({ config, pool: platform.pool, boss: platform.boss, databaseUrl: platform.databaseUrl });

const seeded = await seedIfEmpty(platform.pool, config);
await app.listen({ port: config.port, host: config.host });
if (seeded) {
  process.stderr.write(
    `\nFirst start: seeded a demo organization (${seeded.org_id}).\n` +
      `  test key: ${seeded.test_key}\n  live key: ${seeded.live_key}\n\n` +
      `  curl -s -X POST ${config.publicBaseUrl}/v1/rooms -H "Authorization: Bearer ${seeded.test_key}" ` +
      `-H "Idempotency-Key: $(date +%s%N)" -H "Content-Type: application/json" -d '{"title":"Hello"}'\n\n` +
      `  API reference: ${config.publicBaseUrl}/docs\n\n`,
  );
}

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (closing) return;
    closing = true;
    await app.close().catch(() => {});
    await platform.close();
    process.exit(0);
  });
}
