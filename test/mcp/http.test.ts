import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// /mcp as HTTP: the same bearer key as /v1, refused before any MCP message is
// read when the key, its organization, its allow-list or its rate limit says
// no (problem+json, as on /v1); a 401 tells an MCP client where the
// protected-resource metadata is (RFC 9728); the operator's switch.

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.close(); });

const INIT = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

describe('authentication', () => {
  it('no key or a bad one: 401 problem+json naming the protected-resource metadata, which describes /mcp', async () => {
    const tries: Array<Record<string, string>> = [{}, { authorization: 'Bearer sk_test_notarealkey12345' }, { authorization: 'Basic Zm9vOmJhcg==' }];
    for (const headers of tries) {
      const res = await post(t.url, INIT, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await res.json()).code).toBe('unauthorized');
      const challenge = res.headers.get('www-authenticate')!;
      expect(challenge).toMatch(/^Bearer /);
      const m = /resource_metadata="([^"]+)"/.exec(challenge);
      expect(m, challenge).not.toBeNull();
      const meta = await fetch(m![1]!);
      expect(meta.status).toBe(200);
      const doc: any = await meta.json();
      expect(doc).toMatchObject({ resource: `${t.url}/mcp`, bearer_methods_supported: ['header'] });
      expect(doc.scopes_supported).toContain('rooms:join');
    }
    // The same document at the root of the well-known path.
    expect(await (await fetch(`${t.url}/.well-known/oauth-protected-resource`)).json()).toMatchObject({ resource: `${t.url}/mcp` });
  });

  it('the official client without a key fails to connect, saying so', async () => {
    const client = new Client({ name: 'no-key', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)))).rejects.toThrow(/401|nauthorized/);
  });

  it('a blocked organization, a request outside the allow-list, a free plan: 403 with their codes', async () => {
    const blocked = await t.key({ status: 'blocked' });
    expect((await (await post(t.url, INIT, { authorization: `Bearer ${blocked.secret}` })).json()).code).toBe('org_blocked');
    const fenced = await t.key({ ipAllow: '10.0.0.0/8' });
    expect((await (await post(t.url, INIT, { authorization: `Bearer ${fenced.secret}` })).json()).code).toBe('ip_not_allowed');
    const free = await t.key({ plan: 'free' });
    expect((await (await post(t.url, INIT, { authorization: `Bearer ${free.secret}` })).json()).code).toBe('paid_plan_required');
  });

  it('every MCP request counts against the key\'s rate limit, shared with /v1', async () => {
    const k = await t.key({ rpm: 3 });
    const auth = { authorization: `Bearer ${k.secret}` };
    expect((await post(t.url, INIT, auth)).status).toBe(200);
    expect((await t.request('GET', '/v1/me', { key: k.secret })).status).toBe(200);
    const third = await post(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...auth, 'mcp-protocol-version': '2025-06-18' });
    expect(third.status).toBe(200);
    expect(third.headers.get('ratelimit-remaining')).toBe('0');
    const fourth = await post(t.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...auth, 'mcp-protocol-version': '2025-06-18' });
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await fourth.json()).code).toBe('rate_limited');
  });
});

describe('the transport', () => {
  it('a 2025 client initializes statelessly: no session id, and the tools list comes without one', async () => {
    const { secret } = await t.key({ rpm: 100_000 });
    const auth = { authorization: `Bearer ${secret}` };
    const res = await post(t.url, INIT, auth);
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const body = res.headers.get('content-type')!.startsWith('text/event-stream')
      ? JSON.parse(/^data: (.*)$/m.exec(await res.text())![1]!)
      : await res.json();
    expect(body.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'tolk' }, capabilities: { tools: {} } });
    expect(body.result.instructions).toMatch(/join_room/);
  });

  it('GET and DELETE /mcp: 405 with Allow: POST (no server-initiated stream, no sessions)', async () => {
    const { secret } = await t.key();
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${t.url}/mcp`, { method, headers: { authorization: `Bearer ${secret}`, accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('a body that is not JSON: 415 or 400 problem+json, as on /v1', async () => {
    const { secret } = await t.key();
    const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'text/plain' }, body: 'hello' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).code).toBe('unsupported_media_type');
    const bad = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: '{"jsonrpc":' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).message).toMatch(/^body: malformed JSON/);
  });
});

describe('TOLK_MCP=off', () => {
  it('answers 503 mcp_disabled with Retry-After to an authenticated client, while /v1 works', async () => {
    const off = await startTestApp({ config: { mcpEnabled: false } });
    try {
      const { secret } = await off.key();
      const res = await post(off.url, INIT, { authorization: `Bearer ${secret}` });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await res.json()).code).toBe('mcp_disabled');
      expect((await off.request('GET', '/v1/me', { key: secret })).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});
