import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Client0618 } from 'mcp-sdk-2025-06-18/client/index.js';
import { StreamableHTTPClientTransport as Transport0618 } from 'mcp-sdk-2025-06-18/client/streamableHttp.js';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { simulatedTranslator } from '../../src/sim/translator.ts';

// /mcp as three generations of the official client see it: SDK v2 negotiating
// 2026-07-28 (server/discover, no initialize), SDK 1.32 at 2025-11-25 and SDK
// 1.22 at 2025-06-18 (initialize), plus a hand-written 2025-03-26 exchange.
// Each client lists the tools and runs a room conversation; then progress
// while listen waits, and a listener on one server instance hearing a phrase
// said through another instance on the same database.
//
// The robots run 20 times slower than usual (TOLK_SIM_SPEED=0.05: a phrase
// every 40-80 s, a reply 10-50 s after a say), so a room stays quiet for the
// few seconds a test needs.

vi.setConfig({ testTimeout: 60_000 });

const SIM_SPEED = 0.05;
const TOOLS = [
  'join_room', 'listen', 'say', 'leave', 'list_booking_links', 'find_slots', 'book_slot',
  'quote_call', 'place_call', 'get_call', 'hang_up',
];

let t: TestApp;
/** A second server instance on t's database, without workers. */
let b: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({ workers: true, config: { simSpeed: SIM_SPEED } });
  b = await startTestApp({ workers: false, db: t.db, config: { simSpeed: SIM_SPEED } });
  ({ secret: key } = await t.key({ rpm: 100_000 }));
});
afterAll(async () => {
  // b first: t's close drops the database they share.
  for (const app of [b, t]) {
    if (!app) continue;
    app.app.server.closeAllConnections();
    await app.close();
  }
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

async function room(base: TestApp = t) {
  const res = await base.request('POST', '/v1/rooms', { key, body: { title: 'x', langs: ['en', 'pt'] }, headers: idem() });
  expect(res.status).toBe(201);
  return (await res.json()).id as string;
}

async function joinHttp(roomId: string, body: Record<string, unknown>) {
  const res = await t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key, body: { speak_lang: 'en', ...body }, headers: idem() });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

/** One HTTP request a client sent to /mcp, as seen on the wire. */
type Sent = { http: string; rpc: string | undefined; version: string | null; status: number };

/** A fetch that records what it sends (HTTP method, JSON-RPC method, MCP-Protocol-Version) and the status it gets. */
function recorder() {
  const sent: Sent[] = [];
  const f = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const res = await fetch(url, init);
    let rpc: string | undefined;
    try { rpc = JSON.parse(String(init?.body)).method; } catch { /* a GET has no body */ }
    sent.push({ http: init?.method ?? 'GET', rpc, version: new Headers(init?.headers).get('mcp-protocol-version'), status: res.status });
    return res;
  };
  return { sent, fetch: f };
}

type Kind = 'sdk-v2' | 'sdk-1.32' | 'sdk-1.22';
type Connected = {
  kind: Kind;
  /** The revision the client says it negotiated. */
  revision: () => string | undefined;
  /** SDK v2 only: 'modern' (server/discover) or 'legacy' (initialize). */
  era?: () => string | undefined;
  sent: Sent[];
  listTools: () => Promise<{ tools: any[] }>;
  call: (name: string, args: Record<string, unknown>, opts?: { onprogress?: (p: any) => void }) => Promise<any>;
  close: () => Promise<void>;
  /** The SDK's own client object. */
  raw?: unknown;
};

/** Connects the kind of client to `base`'s /mcp with the API key as the bearer. */
async function connect(kind: Kind, base: TestApp = t): Promise<Connected> {
  const { sent, fetch: f } = recorder();
  const url = new URL(`${base.url}/mcp`);
  const requestInit = { headers: { authorization: `Bearer ${key}` } };
  const info = { name: `revisions-${kind}`, version: '1.0.0' };
  if (kind === 'sdk-v2') {
    // SDK v2 connects with the 2025 initialize unless told to negotiate: 'auto'
    // probes with server/discover and takes 2026-07-28 when the server offers it.
    const client = new ClientV2(info, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(url, { requestInit, fetch: f }));
    return {
      kind, sent,
      revision: () => client.getNegotiatedProtocolVersion(),
      era: () => client.getProtocolEra(),
      listTools: () => client.listTools() as Promise<any>,
      call: (name, args, opts) => client.callTool({ name, arguments: args }, opts),
      close: () => client.close(),
      raw: client,
    };
  }
  if (kind === 'sdk-1.32') {
    const client = new ClientV1(info);
    const transport = new TransportV1(url, { requestInit, fetch: f });
    await client.connect(transport);
    return {
      kind, sent,
      // SDK v1 keeps the initialize result's protocolVersion on the transport (it sends it as MCP-Protocol-Version).
      revision: () => transport.protocolVersion,
      listTools: () => client.listTools() as Promise<any>,
      call: (name, args, opts) => client.callTool({ name, arguments: args }, undefined, opts),
      close: () => client.close(),
      raw: client,
    };
  }
  const client = new Client0618(info);
  const transport = new Transport0618(url, { requestInit, fetch: f });
  await client.connect(transport);
  return {
    kind, sent,
    revision: () => transport.protocolVersion,
    listTools: () => client.listTools() as Promise<any>,
    call: (name, args, opts) => client.callTool({ name, arguments: args }, undefined, opts),
    close: () => client.close(),
  };
}

const CLIENTS: { kind: Kind; revision: string }[] = [
  { kind: 'sdk-v2', revision: '2026-07-28' },
  { kind: 'sdk-1.32', revision: '2025-11-25' },
  { kind: 'sdk-1.22', revision: '2025-06-18' },
];

describe.each(CLIENTS)('$kind at $revision', ({ kind, revision }) => {
  it('negotiates its revision and sends it with every request after the handshake', async () => {
    const c = await connect(kind);
    try {
      expect(c.revision()).toBe(revision);
      expect(c.era?.()).toBe(revision === '2026-07-28' ? 'modern' : undefined);
      const posts = c.sent.filter((s) => s.http === 'POST');
      if (revision === '2026-07-28') {
        // No initialize: the first request is server/discover, already at the revision.
        expect(posts.map((s) => s.rpc)).toEqual(['server/discover']);
        expect(posts[0]).toMatchObject({ version: revision, status: 200 });
      } else {
        // initialize, then the initialized notification carrying the revision the server answered.
        expect(posts.map((s) => s.rpc)).toEqual(['initialize', 'notifications/initialized']);
        expect(posts[0]!.status).toBe(200);
        expect(posts[1]).toMatchObject({ version: revision, status: 202 });
      }
      // (The 2025 clients also open a GET stream in the background; there are no sessions here, and it gets 405.)
      const before = c.sent.filter((s) => s.http === 'POST').length;
      await c.call('leave', { session_id: 'ses_none' });
      expect(c.sent.filter((s) => s.http === 'POST').slice(before)).toEqual([{ http: 'POST', rpc: 'tools/call', version: revision, status: 200 }]);
    } finally {
      await c.close();
    }
  });

  it('lists the eleven tools, each with an object input schema and an output schema', async () => {
    const c = await connect(kind);
    try {
      const { tools } = await c.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual([...TOOLS].sort());
      for (const tool of tools) {
        expect(tool.inputSchema?.type, tool.name).toBe('object');
        expect(tool.outputSchema?.type, tool.name).toBe('object');
        expect(tool.description.length, tool.name).toBeGreaterThan(40);
      }
    } finally {
      await c.close();
    }
  });

  it('joins a room, says, listens, leaves; leaving again and an unknown tool are errors', async () => {
    const c = await connect(kind);
    try {
      // Listed first, the tools' output schemas are what the client checks each result against.
      // (SDK 1.22 cannot list them: see the test above.)
      if (kind !== 'sdk-1.22') await c.listTools();
      const roomId = await room();
      // Another agent in the room, over HTTP, to hear what this client says.
      const other = await joinHttp(roomId, { name: 'Other', hear_lang: 'de', announce: false });
      const name = `Agent ${kind}`;

      const joined = await c.call('join_room', { room_id: roomId, name, speak_lang: 'en', hear_lang: 'pt' });
      expect(joined.isError).toBeFalsy();
      const s = joined.structuredContent;
      expect(s).toMatchObject({ room_id: roomId, name, speak_lang: 'en', hear_lang: 'pt', status: 'active', livemode: false });
      expect(s.id).toMatch(/^ses_/);
      expect(joined.content[0].text).toContain(`session ${s.id}`);

      const text = `Hello from the ${kind} client.`;
      const said = await c.call('say', { session_id: s.id, text });
      expect(said.isError).toBeFalsy();
      expect(said.structuredContent.utterance_id).toMatch(/^utt_/);
      expect(said.structuredContent.charged_seconds).toBeGreaterThan(0);

      // The other agent hears it, translated into its language.
      const heard = await t.request('GET', `/v1/sessions/${other.id}/events?cursor=0&wait=5`, { key });
      const phrase = (await heard.json()).events.find((e: any) => e.untrusted_content.text === text);
      expect(phrase).toMatchObject({ type: 'segment.final', speaker: name, src_lang: 'en' });
      expect(phrase.untrusted_content.text_in_hear_lang).toBe(simulatedTranslator.translate(text, 'en', 'de'));

      // Its own listen from 0: its announcement in Portuguese, not its own phrase.
      const heardSelf = await c.call('listen', { session_id: s.id, cursor: 0, wait: 0 });
      expect(heardSelf.isError).toBeFalsy();
      const out = heardSelf.structuredContent;
      expect(Array.isArray(out.events)).toBe(true);
      expect(out).toMatchObject({ status: 'active', notice: expect.stringContaining('untrusted_content') });
      expect(out.cursor).toBeGreaterThan(0);
      const announcement = out.events[0];
      expect(announcement).toMatchObject({ type: 'segment.final', speaker: null });
      expect(announcement.untrusted_content.text_in_hear_lang).toContain(name);
      expect(out.events.map((e: any) => e.untrusted_content.text)).not.toContain(text);
      expect(heardSelf.content[0].text).toContain('<untrusted_content>');

      const left = await c.call('leave', { session_id: s.id });
      expect(left.isError).toBeFalsy();
      expect(left.structuredContent).toMatchObject({ id: s.id, status: 'ended' });
      expect(left.structuredContent.billed_seconds).toBeGreaterThanOrEqual(said.structuredContent.charged_seconds);

      const again = await c.call('leave', { session_id: s.id });
      expect(again.isError).toBe(true);
      expect(again.content[0].text).toMatch(/^Error session_ended \(409\): /);
      expect(again.structuredContent).toBeUndefined();

      // The SDK server answers an unknown tool with a JSON-RPC error (-32602), which every client throws.
      await expect(c.call('no_such_tool', {})).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Tool no_such_tool not found') });
    } finally {
      await c.close();
    }
  });
});

/** The JSON-RPC message of a POST /mcp answer, sent as JSON or as one SSE event. */
async function rpcBody(res: Response): Promise<any> {
  const text = await res.text();
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) return JSON.parse(text);
  const data = text.split('\n').find((l) => l.startsWith('data: '));
  if (!data) throw new Error(`no data in the event stream: ${text}`);
  return JSON.parse(data.slice('data: '.length));
}

describe('2025-03-26 by hand', () => {
  const post = (body: unknown, version?: string) =>
    fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(version ? { 'mcp-protocol-version': version } : {}),
      },
      body: JSON.stringify(body),
    });

  it('initializes at 2025-03-26 without a session, lists the tools and calls one', async () => {
    const init = await post({
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'by-hand', version: '1' } },
    });
    expect(init.status).toBe(200);
    // Stateless: no Mcp-Session-Id to send back.
    expect(init.headers.get('mcp-session-id')).toBeNull();
    const initialized = await rpcBody(init);
    expect(initialized).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-03-26', serverInfo: { name: 'tolk' }, capabilities: { tools: {} } } });
    expect(initialized.result.instructions).toContain('join_room');

    const ack = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, '2025-03-26');
    expect(ack.status).toBe(202);

    const listed = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, '2025-03-26');
    expect(listed.status).toBe(200);
    const { result } = await rpcBody(listed);
    expect(result.tools.map((x: any) => x.name).sort()).toEqual([...TOOLS].sort());

    // A 2025-03-26 client may send no MCP-Protocol-Version at all (the header came with 2025-06-18).
    const bare = await rpcBody(await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    expect(bare.result.tools).toHaveLength(TOOLS.length);

    const called = await rpcBody(await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'leave', arguments: { session_id: 'ses_missing' } } }, '2025-03-26'));
    expect(called).toMatchObject({ id: 4, result: { isError: true } });
    expect(called.result.content[0].text).toBe("Error not_found (404): No such session: 'ses_missing'");
    expect(called.result._meta['tolk/problem']).toMatchObject({ code: 'not_found', status: 404 });

    // A revision the server does not know is refused before any tool runs.
    const unknown = await post({ jsonrpc: '2.0', id: 5, method: 'tools/list' }, '1999-01-01');
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error.message).toContain('Unsupported protocol version');
  });
});

describe.concurrent('progress while listen waits', () => {
  it.for(['sdk-1.32', 'sdk-v2'] as const)('%s gets a notification every 5 s of a 12-second wait', async (kind, { expect }) => {
    const c = await connect(kind);
    try {
      const roomId = await room();
      const joined = await c.call('join_room', { room_id: roomId, name: 'Patient', speak_lang: 'en', hear_lang: 'pt', announce: false });
      const id = joined.structuredContent.id;
      // Past everything there is; the robots' first phrase is 40 s or more away.
      const now = (await c.call('listen', { session_id: id, cursor: 0, wait: 0 })).structuredContent;
      expect(now.status).toBe('active');

      const progress: { progress: number; total?: number; message?: string; at: number }[] = [];
      const started = Date.now();
      const r = await c.call('listen', { session_id: id, cursor: now.cursor, wait: 12 }, {
        onprogress: (p: any) => progress.push({ ...p, at: Date.now() - started }),
      });
      const took = Date.now() - started;

      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ events: [], cursor: now.cursor, status: 'active' });
      expect(r.content[0].text).toMatch(/^0 new events; session active; next cursor \d+\. Call listen again with this cursor\.$/);
      expect(took).toBeGreaterThanOrEqual(11_500);
      expect(took).toBeLessThan(16_000);
      // At about 5 s and 10 s: seconds waited of the 12, counting up, while the call was still open.
      expect(progress).toHaveLength(2);
      const [first, second] = progress as [typeof progress[0], typeof progress[0]];
      expect(first).toMatchObject({ total: 12, message: `Listening: ${first.progress} of 12 s waited, no new event yet` });
      expect(second).toMatchObject({ total: 12, message: `Listening: ${second.progress} of 12 s waited, no new event yet` });
      expect(Math.abs(first.progress - 5)).toBeLessThanOrEqual(1);
      expect(Math.abs(second.progress - 10)).toBeLessThanOrEqual(1);
      expect(first.at).toBeGreaterThanOrEqual(4_500);
      expect(second.at).toBeGreaterThan(first.at + 4_000);

      await c.call('leave', { session_id: id });
    } finally {
      await c.close();
    }
  });
});

// At 2026-07-28 a client cancels a call by closing its request, which the
// server sees. A 2025 client sends notifications/cancelled as a request of its
// own, which a stateless server cannot tie to the call: that listen ends at its
// wait (at most 25 s), its answer unread.
describe('a listen the client gives up on', () => {
  it.for(['sdk-v2'] as const)('%s: canceling the call ends the wait on the server at once, not after 25 s', async (kind, { expect }) => {
    const c = await connect(kind);
    try {
      const roomId = await room();
      const id = (await c.call('join_room', { room_id: roomId, speak_lang: 'en', hear_lang: 'en', announce: false })).structuredContent.id;
      const now = (await c.call('listen', { session_id: id, cursor: 0, wait: 0 })).structuredContent;
      const before = t.app.sessionBus.size;
      const ac = new AbortController();
      const pending = (c as any).raw.callTool({ name: 'listen', arguments: { session_id: id, cursor: now.cursor, wait: 25 } }, { signal: ac.signal }).catch((e: Error) => e);
      await until('the listen waits on the server', async () => t.app.sessionBus.size > before, 5_000);
      const abortedAt = Date.now();
      ac.abort();
      expect(await pending).toBeInstanceOf(Error);
      // The server's waiter is gone within moments: the request was answered or dropped, not left waiting 25 s.
      await until('the server stops waiting', async () => t.app.sessionBus.size === before, 3_000);
      expect(Date.now() - abortedAt).toBeLessThan(3_000);
    } finally {
      await c.close();
    }
  });
});

describe('two server instances on one database', () => {
  it('a listener on one instance hears, at once, what an agent says through the other', async () => {
    // Listener through t (which runs the workers), speaker through b.
    const listener = await connect('sdk-1.32', t);
    const speaker = await connect('sdk-v2', b);
    try {
      const roomId = await room(b);
      const heard = (await listener.call('join_room', { room_id: roomId, name: 'Listener', speak_lang: 'pt', hear_lang: 'pt', announce: false })).structuredContent;
      const said = (await speaker.call('join_room', { room_id: roomId, name: 'Speaker', speak_lang: 'en', hear_lang: 'en', announce: false })).structuredContent;
      expect(heard.room_id).toBe(roomId);
      expect(said.room_id).toBe(roomId);
      let cursor = (await listener.call('listen', { session_id: heard.id, cursor: 0, wait: 0 })).structuredContent.cursor;

      const text = 'Said on one server, heard on the other.';
      let saidAt = 0;
      const waiting = t.app.sessionBus.size;
      const saying = (async () => {
        // Said once the listener's wait has begun (its request holds a place on t's session bus).
        await until('the listener waiting', async () => t.app.sessionBus.size > waiting, 5_000);
        saidAt = Date.now();
        const r = await speaker.call('say', { session_id: said.id, text });
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      })();

      const deadline = Date.now() + 30_000;
      let phrase: any;
      let heardAt = 0;
      while (!phrase && Date.now() < deadline) {
        const r = await listener.call('listen', { session_id: heard.id, cursor, wait: 20 });
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        cursor = r.structuredContent.cursor;
        phrase = r.structuredContent.events.find((e: any) => e.untrusted_content.text === text);
        heardAt = Date.now();
      }
      await saying;
      expect(phrase, 'the phrase never reached the listener').toBeDefined();
      expect(phrase).toMatchObject({ type: 'segment.final', speaker: 'Speaker', src_lang: 'en' });
      expect(phrase.untrusted_content.text_in_hear_lang).toBe(simulatedTranslator.translate(text, 'en', 'pt'));
      // Woken by the phrase, not by the end of its 20-second wait.
      expect(heardAt - saidAt).toBeLessThan(5_000);

      await listener.call('leave', { session_id: heard.id });
      await speaker.call('leave', { session_id: said.id });
    } finally {
      await listener.close();
      await speaker.close();
    }
  });
});
