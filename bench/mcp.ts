import http from 'node:http';
import { loadConfig } from '../src/config.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { startBoss, type Boss } from '../src/jobs-registry.ts';
import { buildApp } from '../src/app.ts';
import { createEventType, createKey, createOrg } from '../src/cli/admin.ts';
import { envNumber, round, stats, type LatencyStats } from './stats.ts';
import { request } from './http.ts';

// The `mcp` target of npm run bench (bench/run.ts), on the production app:
// what the MCP layer costs over the endpoint a tool mirrors. The same read,
// the organization's booking links, three ways, BENCH_MCP_N (default 2,000)
// requests each, BENCH_MCP_C (default 8) at a time, keep-alive:
//
// 1. http: GET /v1/event-types (the baseline, same process, same run);
// 2. tool: POST /mcp tools/call list_booking_links at the current revision
//    (2026-07-28: the request carries its own envelope; a JSON answer): one
//    McpServer per request, authorize, zod, the same service call;
// 3. tool_2025: the same call as a 2025-06-18 client sends it (answered as an
//    event stream of one message, the 2025 transport's default);
// 4. list: tools/list (the eleven tools' schemas), 2026-07-28.
//
// Target: a tool call at the current revision keeps at least 0.4 of the
// endpoint's throughput (MCP_TARGETS.tool_x): the SDK's per-request server,
// its JSON-RPC checks and the web Request/Response it serves cost about as
// much again as the endpoint's own work. The client is this process
// (node:http): its work is billed to both sides alike.

export const MCP_TARGETS = { tool_x: 0.4 } as const;

type Series = { per_s: number; failures: number } & LatencyStats;
export type McpResult = { n: number; concurrency: number; http: Series; tool: Series; tool_2025: Series; list: Series; tool_x: number; tool_2025_x: number; met: { tool_x: boolean }; failures: number };

async function series(n: number, concurrency: number, send: () => Promise<{ status: number; body: string }>, ok: (b: string) => boolean, log: (m: string) => void): Promise<Series> {
  for (let i = 0; i < 50; i++) await send();
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < n; i = next++) {
      const t0 = performance.now();
      const r = await send();
      latencies.push(performance.now() - t0);
      if (r.status !== 200 || !ok(r.body)) {
        failures++;
        if (failures <= 3) log(`mcp: ${r.status} ${r.body.slice(0, 200)}`);
      }
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  return { ...stats(latencies), per_s: round(n / elapsed), failures };
}

export async function runMcpBench(databaseUrl: string, log: (m: string) => void): Promise<McpResult> {
  const n = Math.round(envNumber('BENCH_MCP_N', 2000));
  const concurrency = Math.max(1, Math.round(envNumber('BENCH_MCP_C', 8)));
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, { databaseUrl, workers: false });
  const pool: Pool = createPool(databaseUrl, 20);
  const boss: Boss = await startBoss(databaseUrl, { workers: false, onError: (e) => log(`pg-boss: ${String(e)}`) });
  const app = await buildApp({ config, pool, boss, databaseUrl });
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    config.publicBaseUrl = base;
    const org = await createOrg(pool, { name: 'Bench mcp org' });
    // Live: test keys stop at 1,000 requests a day; booking links work in live mode.
    const key = await createKey(pool, { org: org.id, mode: 'live', name: 'bench', rpm: 100_000_000 });
    await createEventType(pool, base, { org: org.id, page: `bench-mcp-${org.id.slice(-8).toLowerCase()}`, slug: 'call', title: 'Bench call', duration: 15 });
    const auth = { authorization: `Bearer ${key.secret}` };
    const rpc = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const v2025 = { ...rpc, 'mcp-protocol-version': '2025-06-18' };
    const modern = (method: string, name?: string) => ({ ...rpc, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_booking_links', arguments: {}, _meta: envelope } });
    const call2025 = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_booking_links', arguments: {} } });
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope } });
    // A JSON answer or one SSE event holding it.
    const result = (b: string) => JSON.parse(b.startsWith('{') ? b : /^data: (.*)$/m.exec(b)![1]!).result;

    log(`mcp: ${n} GET /v1/event-types, then ${n} tools/call list_booking_links (2026-07-28, then 2025-06-18), then ${n} tools/list, ${concurrency} at a time`);
    const httpS = await series(n, concurrency, () => request(agent, `${base}/v1/event-types`, 'GET', auth), (b) => JSON.parse(b).data.length === 1, log);
    const toolS = await series(n, concurrency, () => request(agent, `${base}/mcp`, 'POST', modern('tools/call', 'list_booking_links'), call), (b) => result(b)?.structuredContent?.data?.length === 1, log);
    const tool2025 = await series(n, concurrency, () => request(agent, `${base}/mcp`, 'POST', v2025, call2025), (b) => result(b)?.structuredContent?.data?.length === 1, log);
    const listS = await series(n, concurrency, () => request(agent, `${base}/mcp`, 'POST', modern('tools/list'), list), (b) => result(b)?.tools?.length === 11, log);
    const toolX = round(toolS.per_s / httpS.per_s, 2);
    const failures = httpS.failures + toolS.failures + tool2025.failures + listS.failures;
    return {
      n, concurrency, http: httpS, tool: toolS, tool_2025: tool2025, list: listS, tool_x: toolX, tool_2025_x: round(tool2025.per_s / httpS.per_s, 2),
      met: { tool_x: toolX >= MCP_TARGETS.tool_x }, failures,
    };
  } finally {
    agent.destroy();
    await app.close();
    await boss.stop({ graceful: false }).catch(() => {});
    await pool.end();
  }
}

export function printMcpReport(r: McpResult): void {
  const row = (name: string, s: Series) => `  ${name.padEnd(34)} ${String(s.per_s).padStart(8)}/s  p50 ${s.p50_ms} ms  p99 ${s.p99_ms} ms  failures ${s.failures}`;
  console.log(`\nMCP (${r.n} requests each, ${r.concurrency} at a time)`);
  console.log(row('GET /v1/event-types', r.http));
  console.log(row('tools/call list_booking_links', r.tool));
  console.log(row('  the same at 2025-06-18', r.tool_2025));
  console.log(row('tools/list', r.list));
  console.log(`  tool call / endpoint throughput: ${r.tool_x} (target >= ${MCP_TARGETS.tool_x}) ${r.met.tool_x ? 'met' : 'NOT met'}; at 2025-06-18: ${r.tool_2025_x}`);
}
