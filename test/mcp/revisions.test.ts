import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientOld } from 'mcp-sdk-2025-06-18/client/index.js';
import { StreamableHTTPClientTransport as TransportOld } from 'mcp-sdk-2025-06-18/client/streamableHttp.js';
import { startTestApp, type TestApp } from '../helpers/app.ts';

vi.setConfig({ testTimeout: 60_000 });
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ workers: true, config: { simSpeed: 0.05 } });
  ({ secret: key } = await t.key({ rpm: 100_000 }));
});
afterAll(async () => { t.app.server.closeAllConnections(); await t?.close(); });

function spy() {
  const log: any[] = [];
  const f = async (url: any, init?: any) => {
    const res = await fetch(url, init);
    log.push({ method: init?.method, hdr: Object.fromEntries(new Headers(init?.headers).entries()), body: init?.body, status: res.status, ct: res.headers.get('content-type') });
    return res;
  };
  return { log, f };
}

it('explore', async () => {
  for (const [name, mk] of [
    ['v2auto', (f: any) => { const tr = new TransportV2(new URL(t.url + '/mcp'), { fetch: f, requestInit: { headers: { authorization: 'Bearer ' + key } } }); return { c: new ClientV2({ name: 'x', version: '1' }, { versionNegotiation: { mode: 'auto' } }), tr }; }],
    ['v2default', (f: any) => { const tr = new TransportV2(new URL(t.url + '/mcp'), { fetch: f, requestInit: { headers: { authorization: 'Bearer ' + key } } }); return { c: new ClientV2({ name: 'x', version: '1' }), tr }; }],
    ['v1', (f: any) => { const tr = new TransportV1(new URL(t.url + '/mcp'), { fetch: f, requestInit: { headers: { authorization: 'Bearer ' + key } } }); return { c: new ClientV1({ name: 'x', version: '1' }), tr }; }],
    ['old', (f: any) => { const tr = new TransportOld(new URL(t.url + '/mcp'), { fetch: f, requestInit: { headers: { authorization: 'Bearer ' + key } } }); return { c: new ClientOld({ name: 'x', version: '1' }), tr }; }],
  ] as const) {
    const s = spy();
    const { c, tr } = (mk as any)(s.f);
    await c.connect(tr);
    console.log(name, (c as any).getNegotiatedProtocolVersion?.(), (c as any).getProtocolEra?.(), (tr as any).protocolVersion);
    const tools = await c.listTools();
    console.log(name, tools.tools.length);
    try { const r = await c.callTool({ name: 'nope', arguments: {} }); console.log(name, 'unknown ->', JSON.stringify(r)); } catch (e: any) { console.log(name, 'unknown threw', e.constructor.name, e.code, e.message); }
    try { const r = await c.callTool({ name: 'leave', arguments: { session_id: 'ses_nothing' } }); console.log(name, 'leave ->', JSON.stringify(r)); } catch (e: any) { console.log(name, 'leave threw', e.constructor.name, e.code, e.message); }
    console.log(name, JSON.stringify(s.log, null, 1).slice(0, 4000));
    await c.close();
  }
});
