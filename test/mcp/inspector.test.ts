import { afterAll, beforeAll, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { startTestApp, type TestApp } from '../helpers/app.ts';
vi.setConfig({ testTimeout: 900_000 });
let t: TestApp;
beforeAll(async () => { t = await startTestApp({ workers: true }); });
afterAll(async () => { await t?.close(); });
it('explore', async () => {
  const { secret } = await t.key({ rpm: 100_000 });
  const res = await t.request('POST', '/v1/rooms', { key: secret, body: { title: 'x', langs: ['en', 'pt'] }, headers: { 'idempotency-key': crypto.randomUUID() } });
  const room = (await res.json()).id;
  writeFileSync('/tmp/mcpx/explore.json', JSON.stringify({ url: t.url, secret, room }));
  await new Promise((r) => setTimeout(r, 800_000));
});
