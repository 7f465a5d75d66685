import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createEventType } from '../../src/cli/admin.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// /mcp driven by an external MCP client, the MCP Inspector's command-line mode,
// run as a user runs it (`mcp-inspector --cli <url>/mcp --header "Authorization:
// Bearer <key>" --method …`): a separate Node 24 process speaking Streamable HTTP
// to the listening server, with no code of this project in the client. Every
// check is made in both protocol eras the inspector can speak: the 2025 handshake
// (initialize, revision 2025-11-25) and the 2026-07-28 revision, which /mcp
// serves side by side. What is checked is what the user sees: the exit status,
// the JSON result the inspector prints, and the error it prints on stderr.

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const ROOT = resolve(import.meta.dirname, '../..');
/** The project's Node 24 (the inspector needs Node >= 22.19). */
const NODE = join(ROOT, 'node_modules/node/bin/node');
/** The `mcp-inspector` executable, as its package declares it. */
const INSPECTOR = (() => {
  const pkgPath = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  return join(dirname(pkgPath), pkg.bin['mcp-inspector'] as string);
})();

const ERAS = [
  { era: 'legacy', revision: '2025-11-25' },
  { era: 'modern', revision: '2026-07-28' },
] as const;
type Era = (typeof ERAS)[number]['era'];

const TOOLS = [
  'join_room', 'listen', 'say', 'leave', 'list_booking_links', 'find_slots', 'book_slot',
  'quote_call', 'place_call', 'get_call', 'hang_up',
];

let t: TestApp;
let key: string;
let orgId: string;
/** The inspector's home: it keeps a catalog and client storage under ~/.mcp-inspector. */
let home: string;

beforeAll(async () => {
  t = await startTestApp({ workers: true });
  ({ secret: key, orgId } = await t.key({ rpm: 100_000 }));
  home = mkdtempSync(join(tmpdir(), 'tolk-inspector-'));
});
afterAll(async () => {
  await t?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

type Run = { code: number | null; stdout: string; stderr: string; out: any; err: any };

/**
 * Runs `mcp-inspector --cli <server>/mcp --protocol-era <era> --format json …args`
 * and returns its exit code, its result (stdout, one JSON object) and its
 * error envelope (stderr, `{"error":{code,message}}`). With a key, it is sent
 * as `--header "Authorization: Bearer <key>"`. `--stored-auth-only` keeps the
 * inspector from starting a browser OAuth flow when the server answers 401:
 * it reports the 401 and exits, as it would in CI.
 */
function inspector(era: Era, args: string[], o: { key?: string | null } = {}): Promise<Run> {
  const k = o.key === undefined ? key : o.key;
  const argv = [
    INSPECTOR, '--cli', `${t.url}/mcp`,
    '--protocol-era', era, '--format', 'json', '--stored-auth-only', '--connect-timeout', '10000',
    ...(k === null ? [] : ['--header', `Authorization: Bearer ${k}`]),
    ...args,
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    MCP_CATALOG_PATH: join(home, 'mcp.json'),
    MCP_CLIENT_CONFIG_PATH: join(home, 'client.json'),
    // No OS keychain on a test machine: keep the inspector's secrets in memory, without its notice about it.
    MCP_INSPECTOR_SECRET_STORE: 'memory',
  };
  for (const v of ['NODE_OPTIONS', 'DEBUG', 'MCP_DEBUG']) delete env[v];
  return new Promise((done, fail) => {
    const child = spawn(NODE, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', (e) => { clearTimeout(timer); fail(e); });
    child.on('close', (code) => {
      clearTimeout(timer);
      const parse = (s: string) => {
        const line = s.split('\n').find((l) => l.startsWith('{'));
        if (!line) return null;
        try { return JSON.parse(line); } catch { return null; }
      };
      done({ code, stdout, stderr, out: parse(stdout)?.result ?? null, err: parse(stderr)?.error ?? null });
    });
  });
}

/** `--method tools/call --tool-name <name> --tool-arg k=v …` (the inspector turns numbers and booleans into JSON). */
function call(era: Era, name: string, args: Record<string, string | number>, o: { key?: string | null } = {}) {
  const pairs = Object.entries(args).map(([k, v]) => `${k}=${v}`);
  return inspector(era, ['--method', 'tools/call', '--tool-name', name, ...(pairs.length ? ['--tool-arg', ...pairs] : [])], o);
}

/** Shows stdout and stderr when an expectation on a run fails. */
const show = (r: Run) => `exit ${r.code}\nstdout: ${r.stdout.slice(0, 2000)}\nstderr: ${r.stderr.slice(0, 2000)}`;

async function room(): Promise<string> {
  const res = await t.request('POST', '/v1/rooms', { key, body: { title: 'x', langs: ['en', 'pt'] }, headers: { 'idempotency-key': randomUUID() } });
  expect(res.status).toBe(201);
  return (await res.json()).id;
}

describe.each(ERAS)('MCP Inspector CLI, protocol era $era', ({ era, revision }) => {
  it(`connects and negotiates ${revision}, seeing the server's name, tools capability and instructions`, async () => {
    const r = await inspector(era, ['--method', 'initialize']);
    expect(r.code, show(r)).toBe(0);
    // The revision the client and /mcp agreed on: 2025-11-25 by the
    // initialize handshake, 2026-07-28 by the newer revision's negotiation.
    expect(r.out.protocolVersion).toBe(revision);
    expect(r.out.serverInfo).toMatchObject({ name: 'tolk', title: 'Tolk' });
    expect(r.out.capabilities.tools).toBeDefined();
    // The instructions a client gives its model name the room tools in order.
    expect(r.out.instructions).toContain('join_room');
  });

  it('tools/list shows the eleven tools with object input schemas, none unportable, without a warning', async () => {
    // --strict: the inspector exits 6 if a schema has an error-severity
    // portability problem (one some model providers would refuse).
    const r = await inspector(era, ['--method', 'tools/list', '--strict']);
    expect(r.code, show(r)).toBe(0);
    // Not even a warning: nullable fields are anyOf branches of one type each, which single-type dialects take.
    expect(r.stderr).not.toMatch(/Warning:/);
    const tools: any[] = r.out.tools;
    expect(tools.map((x) => x.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description.length, tool.name).toBeGreaterThan(40);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
    const join = tools.find((x) => x.name === 'join_room');
    expect(join.inputSchema.required).toEqual(expect.arrayContaining(['room_id', 'speak_lang', 'hear_lang']));
    expect(Object.keys(join.inputSchema.properties)).toEqual(expect.arrayContaining(['room_id', 'speak_lang', 'hear_lang', 'name', 'idempotency_key']));
    // listen is marked read-only, leave destructive: what a client asks the user to confirm.
    expect(tools.find((x) => x.name === 'listen').annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((x) => x.name === 'leave').annotations).toMatchObject({ destructiveHint: true });
  });

  it('join_room → listen → say → leave on a room made over HTTP; the session is the one /v1 sees', async () => {
    const roomId = await room();
    // The inspector checks each structuredContent against the tool's listed
    // outputSchema and fails the call if it does not match: exit 0 also
    // shows that the results fit the schemas tools/list gives.
    const joined = await call(era, 'join_room', { room_id: roomId, speak_lang: 'en', hear_lang: 'de', name: 'Inspector Bot' });
    expect(joined.code, show(joined)).toBe(0);
    expect(joined.out.isError).toBeFalsy();
    const s = joined.out.structuredContent;
    expect(s).toMatchObject({ room_id: roomId, name: 'Inspector Bot', speak_lang: 'en', hear_lang: 'de', status: 'active', livemode: false });
    expect(s.id).toMatch(/^ses_/);
    // The text a text-only client shows names the session and the next step.
    expect(joined.out.content[0].text).toContain(s.id);
    expect(joined.out.content[0].text).toContain('listen');

    // The same session over HTTP: one service behind both interfaces.
    const viaHttp = await t.request('GET', `/v1/sessions/${s.id}`, { key });
    expect(viaHttp.status).toBe(200);
    expect(await viaHttp.json()).toMatchObject({ id: s.id, status: 'active' });

    // listen from cursor 0 hears the announcement of this agent joining,
    // translated into its hear_lang, quoted as untrusted content.
    const heard = await call(era, 'listen', { session_id: s.id, cursor: 0, wait: 0 });
    expect(heard.code, show(heard)).toBe(0);
    const ev = heard.out.structuredContent;
    expect(ev.status).toBe('active');
    expect(ev.cursor).toBeGreaterThanOrEqual(1);
    expect(ev.events[0]).toMatchObject({ id: 1, type: 'segment.final', speaker: null, src_lang: 'en' });
    expect(ev.events[0].untrusted_content.text).toContain('Inspector Bot');
    expect(ev.events[0].untrusted_content.text_in_hear_lang).not.toBe(ev.events[0].untrusted_content.text);
    expect(heard.out.content[0].text).toContain('<untrusted_content>');

    const said = await call(era, 'say', { session_id: s.id, text: 'Hello from the inspector' });
    expect(said.code, show(said)).toBe(0);
    expect(said.out.isError).toBeFalsy();
    expect(said.out.structuredContent.utterance_id).toMatch(/^utt_/);
    expect(said.out.structuredContent.charged_seconds).toBeGreaterThan(0);

    const left = await call(era, 'leave', { session_id: s.id });
    expect(left.code, show(left)).toBe(0);
    expect(left.out.structuredContent).toMatchObject({ id: s.id, status: 'ended' });
    expect(left.out.structuredContent.ended_at).not.toBeNull();
    expect(await (await t.request('GET', `/v1/sessions/${s.id}`, { key })).json()).toMatchObject({ status: 'ended' });

    // Leaving twice: a tool error the model can read (isError, the API's
    // code and status), and the inspector exits 5 (tool returned isError).
    const again = await call(era, 'leave', { session_id: s.id });
    expect(again.code, show(again)).toBe(5);
    expect(again.out.isError).toBe(true);
    expect(again.out.content[0].text).toMatch(/^Error session_ended \(409\): /);
    expect(again.err.code).toBe('tool_is_error');
  });

  it('bad arguments come back as a tool error naming the argument, not as a protocol failure', async () => {
    const roomId = await room();
    const res = await t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key, body: { speak_lang: 'en', hear_lang: 'pt' }, headers: { 'idempotency-key': randomUUID() } });
    expect(res.status).toBe(201);
    const sessionId: string = (await res.json()).id;

    const [empty, missing] = await Promise.all([
      // An empty text (sent as JSON: --tool-arg refuses an empty value).
      inspector(era, ['--method', 'tools/call', '--tool-name', 'say', '--tool-args-json', JSON.stringify({ session_id: sessionId, text: '' })]),
      // A required argument left out.
      call(era, 'join_room', { room_id: roomId, speak_lang: 'en' }),
    ]);
    expect(empty.code, show(empty)).toBe(5);
    expect(empty.out.isError).toBe(true);
    const text: string = empty.out.content[0].text;
    expect(text).toContain('invalid_request');
    expect(text).toContain('(400)');
    expect(text).toContain('text:');
    // The problem document rides along in _meta for clients that want the code.
    expect(empty.out._meta['tolk/problem']).toMatchObject({ code: 'invalid_request', status: 400 });

    // The missing argument is named as required.
    expect(missing.code, show(missing)).toBe(5);
    expect(missing.out.content[0].text).toBe('Error invalid_request (400): hear_lang: required');
  });

  it('without the Authorization header, or with a wrong key, the inspector gets 401 and exits 3', async () => {
    const [none, wrong] = await Promise.all([
      inspector(era, ['--method', 'tools/list'], { key: null }),
      inspector(era, ['--method', 'tools/list'], { key: 'sk_test_not_a_real_key' }),
    ]);
    expect(none.code, show(none)).toBe(3);
    expect(none.out).toBeNull();
    expect(none.err.code).toBe('auth_required');
    expect(none.err.message).toMatch(/401|unauthorized/i);

    expect(wrong.code, show(wrong)).toBe(3);
    expect(wrong.out).toBeNull();
    expect(wrong.err.message).toMatch(/401|unauthorized/i);
  });
});

describe('MCP Inspector CLI, booking links', () => {
  it('list_booking_links and find_slots show a link the operator made', async () => {
    const page = `host-${randomBytes(4).toString('hex')}`;
    const made = await createEventType(t.pool, t.config.publicBaseUrl, { org: orgId, page, slug: 'intro', title: 'Intro call', duration: 30, tz: 'UTC' });

    // A tool without arguments: no --tool-arg at all.
    const links = await call('modern', 'list_booking_links', {});
    expect(links.code, show(links)).toBe(0);
    expect(links.out.structuredContent.data).toEqual([expect.objectContaining({ id: made.id, title: 'Intro call', duration_min: 30, page, slug: 'intro' })]);

    // Weekdays 09:00-17:00 UTC over the next seven days: free 30-minute slots.
    const found = await call('legacy', 'find_slots', { event_type_id: made.id });
    expect(found.code, show(found)).toBe(0);
    expect(found.out.structuredContent).toMatchObject({ tz: 'UTC', duration_min: 30 });
    expect(found.out.structuredContent.slots.length).toBeGreaterThan(0);
  });
});
