import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { forbiddenAddressReason, postWebhook, vetUrl, type Lookup } from '../../src/webhooks/outbound.ts';

// The outgoing side of webhooks, against real sockets: local node:http servers
// on 127.0.0.1 reached through allow-listed origins. The only stand-in is the
// injected DNS lookup, so no test depends on (or leaks to) real DNS.

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** A lookup answering from a table, counting its calls; unknown names fail with ENOTFOUND like getaddrinfo. */
function fakeDns(table: Record<string, string[] | (() => string[])>) {
  const calls: string[] = [];
  const lookup: Lookup = async (hostname) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const answers = typeof entry === 'function' ? entry() : entry;
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
}

type Received = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
type TestServer = { port: number; origin: string; received: Received[]; connections: () => number };

const servers: http.Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }
});

/** A real HTTP server on 127.0.0.1 that records what it receives, then hands the request to `answer`. */
async function startServer(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<TestServer> {
  const received: Received[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(req, res);
    });
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  return { port, origin: `http://127.0.0.1:${port}`, received, connections: () => connections };
}

describe('forbiddenAddressReason', () => {
  it('allows public unicast addresses', () => {
    expect(forbiddenAddressReason(PUBLIC_V4)).toBeNull();
    expect(forbiddenAddressReason(PUBLIC_V6)).toBeNull();
    expect(forbiddenAddressReason('8.8.8.8')).toBeNull();
  });

  it('names the kind of a forbidden address', () => {
    expect(forbiddenAddressReason('127.0.0.1')).toBe('loopback address 127.0.0.1');
    expect(forbiddenAddressReason('10.1.2.3')).toBe('private address 10.1.2.3');
    expect(forbiddenAddressReason('169.254.169.254')).toBe('cloud metadata address 169.254.169.254');
    expect(forbiddenAddressReason('fd00:ec2::254')).toBe('cloud metadata address fd00:ec2::254');
    expect(forbiddenAddressReason('168.63.129.16')).toBe('cloud metadata address 168.63.129.16');
  });

  it('refuses an IPv4-mapped address even when its IPv4 half is public', () => {
    expect(forbiddenAddressReason(`::ffff:${PUBLIC_V4}`)).toMatch(/IPv4-mapped/);
    expect(forbiddenAddressReason(`64:ff9b::${PUBLIC_V4}`)).toMatch(/NAT64/);
    // IPv4-compatible (::/96) is outside global unicast 2000::/3.
    expect(forbiddenAddressReason('::7f00:1')).toMatch(/reserved/);
  });

  it('refuses what is not an IP address', () => {
    expect(forbiddenAddressReason('example.com')).toMatch(/invalid IP address/);
  });
});

describe('vetUrl refuses hostile urls', () => {
  const dns = fakeDns({
    'rebind.test': ['127.0.0.1'],
    'mixed.test': [PUBLIC_V4, '10.0.0.1'],
    'mapped.test': ['::ffff:10.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'six.test': [PUBLIC_V6, 'fe80::1'],
    'garbage.test': ['not-an-ip'],
  });
  // One allow-listed origin, so the table also shows what it does not exempt.
  const allowOrigins = ['http://127.0.0.1:4567'];

  const hostile: Array<[url: string, reason: RegExp]> = [
    // Syntax, scheme, credentials.
    ['http://example.com/x', /must use https/],
    ['ftp://example.com/', /must use https/],
    ['javascript:alert(1)', /must use https/],
    ['not a url', /not a valid/],
    ['https://user:pw@hooks.example.com/', /username or password/],
    ['https://user@93.184.215.14/', /username or password/],
    ['http://u:p@127.0.0.1:4567/', /username or password/],
    ['http://127.0.0.1:4568/', /must use https/],
    ['https://127.0.0.1:4567/', /port 4567 is not allowed/],
    // Ports other than https's own and 8443: no knocking on a public host's other services.
    ['https://hooks.example.com:22/', /^url port 22 is not allowed; webhooks go to port 443 or 8443$/],
    ['https://93.184.215.14:25/', /port 25 is not allowed/],
    ['https://hooks.example.com:80/', /port 80 is not allowed/],
    ['https://hooks.example.com:8080/', /port 8080 is not allowed/],
    ['https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:5432/', /port 5432 is not allowed/],
    // IPv4 loopback in every spelling WHATWG URL accepts.
    ['https://127.0.0.1/', /loopback address \(127\.0\.0\.1\)/],
    ['https://2130706433/', /loopback address \(127\.0\.0\.1\)/],
    ['https://0177.0.0.1/', /loopback address \(127\.0\.0\.1\)/],
    ['https://0x7f000001/', /loopback address \(127\.0\.0\.1\)/],
    ['https://0x7f.1/', /loopback address \(127\.0\.0\.1\)/],
    ['https://127.1/', /loopback address \(127\.0\.0\.1\)/],
    ['https://0.0.0.0/', /unspecified address/],
    ['https://[::]/', /unspecified address/],
    ['https://[::1]/', /loopback address \(::1\)/],
    // IPv6 forms that carry an IPv4 address.
    ['https://[::ffff:7f00:1]/', /IPv4-mapped IPv6 address/],
    ['https://[::ffff:127.0.0.1]/', /IPv4-mapped IPv6 address/],
    ['https://[0:0:0:0:0:ffff:a9fe:a9fe]/', /IPv4-mapped IPv6 address/],
    ['https://[::ffff:5db8:d70e]/', /IPv4-mapped IPv6 address/], // maps a public address: still refused
    ['https://[::7f00:1]/', /reserved address/],
    ['https://[64:ff9b::7f00:1]/', /NAT64 address/],
    ['https://[64:ff9b::a9fe:a9fe]/', /NAT64 address/],
    ['https://[64:ff9b:1::a9fe:a9fe]/', /NAT64 address/],
    ['https://[2002:7f00:1::1]/', /6to4 address/],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', /(Teredo|reserved) address/],
    // Cloud metadata.
    ['https://[fd00:ec2::254]/', /cloud metadata address \(fd00:ec2::254\)/],
    ['https://169.254.169.254/latest/meta-data/', /cloud metadata address \(169\.254\.169\.254\)/],
    ['https://100.100.100.200/', /cloud metadata address/],
    ['https://168.63.129.16/', /cloud metadata address/],
    // Private, shared, link-local, multicast, broadcast, reserved.
    ['https://100.64.0.1/', /carrier-grade NAT address/],
    ['https://10.0.0.1/', /private address \(10\.0\.0\.1\)/],
    ['https://172.16.5.4/', /private address/],
    ['https://192.168.0.1/', /private address/],
    ['https://169.254.1.1/', /link-local address/],
    ['https://224.0.0.1/', /multicast address/],
    ['https://255.255.255.255/', /broadcast address/],
    ['https://240.0.0.1/', /reserved address/],
    ['https://[fe80::1]/', /link-local address/],
    ['https://[fc00::1]/', /unique-local address/],
    ['https://[ff02::1]/', /multicast address/],
    ['https://198.18.0.1/', /reserved address/],
    ['https://192.0.2.1/', /reserved address/],
    ['https://[2001:db8::1]/', /reserved address/],
    // Local names, refused before any lookup.
    ['https://localhost/', /local name/],
    ['https://localhost./', /local name/],
    ['https://api.localhost/', /local name/],
    ['https://metadata.google.internal/', /internal name/],
    // Names whose DNS answers are (partly) forbidden.
    ['https://rebind.test/', /resolves to a loopback address \(127\.0\.0\.1\)/],
    ['https://mixed.test/', /resolves to a private address \(10\.0\.0\.1\)/],
    ['https://mapped.test/', /resolves to an IPv4-mapped IPv6 address/],
    ['https://metadata.test/', /resolves to a cloud metadata address/],
    ['https://six.test/', /resolves to a link-local address \(fe80::1\)/],
    ['https://garbage.test/', /invalid address/],
  ];

  it('has a table worth the name', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(30);
  });

  it.each(hostile)('refuses %s at creation', async (url, reason) => {
    const vetted = await vetUrl(url, { allowOrigins, lookup: dns.lookup, requireResolution: false });
    expect(vetted.ok).toBe(false);
    if (vetted.ok) return;
    expect(vetted.reason).toMatch(/^url /);
    expect(vetted.reason).toMatch(reason);
  });

  it.each(hostile)('refuses %s at delivery, without connecting', async (url, reason) => {
    const result = await postWebhook(url, '{}', {}, { allowOrigins, lookup: dns.lookup });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(reason);
  });

  it('does not look up IP literals, local names or refused ports', async () => {
    const counting = fakeDns({});
    for (const url of ['https://127.0.0.1/', 'https://[::1]/', 'https://localhost/', 'https://a.internal/', 'https://hooks.example.com:22/']) {
      await vetUrl(url, { allowOrigins: [], lookup: counting.lookup, requireResolution: true });
    }
    expect(counting.calls).toEqual([]);
  });
});

describe('vetUrl accepts', () => {
  const none = { allowOrigins: [] as string[], requireResolution: true };

  it('a public IPv4 literal', async () => {
    const vetted = await vetUrl(`https://${PUBLIC_V4}/hook`, { ...none, lookup: fakeDns({}).lookup });
    expect(vetted).toMatchObject({ ok: true, exempt: false, addresses: [{ address: PUBLIC_V4, family: 4 }] });
    if (vetted.ok) expect(vetted.url.pathname).toBe('/hook');
  });

  it('a public IPv6 literal', async () => {
    const vetted = await vetUrl(`https://[${PUBLIC_V6}]/`, { ...none, lookup: fakeDns({}).lookup });
    expect(vetted).toMatchObject({ ok: true, exempt: false, addresses: [{ address: PUBLIC_V6, family: 6 }] });
  });

  it('a name resolving only to public addresses, keeping all of them', async () => {
    const dns = fakeDns({ 'hooks.example.com': [PUBLIC_V6, PUBLIC_V4] });
    const vetted = await vetUrl('https://hooks.example.com/in', { ...none, lookup: dns.lookup });
    expect(vetted).toMatchObject({
      ok: true,
      exempt: false,
      addresses: [
        { address: PUBLIC_V6, family: 6 },
        { address: PUBLIC_V4, family: 4 },
      ],
    });
    expect(dns.calls).toEqual(['hooks.example.com']);
  });

  it('https on port 443 (written or not) and 8443', async () => {
    const dns = fakeDns({ 'hooks.example.com': [PUBLIC_V4] });
    for (const url of ['https://hooks.example.com/in', 'https://hooks.example.com:443/in', 'https://hooks.example.com:8443/in', `https://${PUBLIC_V4}:8443/`]) {
      expect(await vetUrl(url, { ...none, lookup: dns.lookup }), url).toMatchObject({ ok: true, exempt: false });
    }
  });

  it('any port of an allow-listed origin', async () => {
    const vetted = await vetUrl('https://hooks.example.com:22/', { allowOrigins: ['https://hooks.example.com:22'], requireResolution: false });
    expect(vetted).toMatchObject({ ok: true, exempt: true });
  });

  it('an unresolvable name at creation, not at delivery', async () => {
    const dns = fakeDns({});
    const atCreation = await vetUrl('https://hooks.example.com/', { allowOrigins: [], lookup: dns.lookup, requireResolution: false });
    expect(atCreation).toMatchObject({ ok: true, exempt: false, addresses: [] });
    const atDelivery = await vetUrl('https://hooks.example.com/', { ...none, lookup: dns.lookup });
    expect(atDelivery).toEqual({ ok: false, reason: 'url host hooks.example.com does not resolve (ENOTFOUND)' });
  });

  it('a name whose lookup hangs, within the time bound', async () => {
    const hanging: Lookup = () => new Promise(() => {});
    const started = Date.now();
    const atCreation = await vetUrl('https://slow.example.com/', { allowOrigins: [], lookup: hanging, timeoutMs: 200, requireResolution: false });
    expect(atCreation).toMatchObject({ ok: true, addresses: [] });
    const atDelivery = await vetUrl('https://slow.example.com/', { allowOrigins: [], lookup: hanging, timeoutMs: 200, requireResolution: true });
    expect(atDelivery).toMatchObject({ ok: false, reason: expect.stringMatching(/does not resolve \(ETIMEOUT\)/) });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('an allow-listed origin over plain http to loopback', async () => {
    const vetted = await vetUrl('http://127.0.0.1:4567/hooks', {
      allowOrigins: ['http://127.0.0.1:4567/'], // compared by origin: a trailing slash is fine
      lookup: fakeDns({}).lookup,
      requireResolution: true,
    });
    expect(vetted).toMatchObject({ ok: true, exempt: true, addresses: [{ address: '127.0.0.1', family: 4 }] });
  });

  it('an allow-listed local name, with whatever it resolves to', async () => {
    const vetted = await vetUrl('http://localhost:3000/', {
      allowOrigins: ['http://localhost:3000'],
      lookup: fakeDns({ localhost: ['::1', '127.0.0.1'] }).lookup,
      requireResolution: true,
    });
    expect(vetted).toMatchObject({ ok: true, exempt: true, addresses: [{ address: '::1' }, { address: '127.0.0.1' }] });
  });

  it('ignores allow-list entries that are not origins', async () => {
    const vetted = await vetUrl('foo://x/', { allowOrigins: ['foo://y', 'not a url'], requireResolution: false });
    expect(vetted).toEqual({ ok: false, reason: 'url must use https' });
  });
});

describe('postWebhook', () => {
  it('delivers headers and body intact, with defaults and its own framing', async () => {
    // The receiver takes 40 ms to answer: the latency counts it, and no more than the call took.
    const server = await startServer((_req, res) => { setTimeout(() => res.writeHead(204).end(), 40); });
    const body = JSON.stringify({ type: 'room.ended', text: 'héllo ✓ 你好' });
    const started = performance.now();
    const result = await postWebhook(
      `${server.origin}/hooks/in?x=1#frag`,
      body,
      { 'X-Tolk-Signature': 't=1,v1=abc', Host: 'evil.example', 'Content-Length': '1' },
      { allowOrigins: [server.origin] },
    );
    expect(result).toMatchObject({ ok: true, status: 204, error: null });
    expect(Number.isInteger(result.latencyMs)).toBe(true);
    expect(result.latencyMs).toBeGreaterThanOrEqual(39);
    expect(result.latencyMs).toBeLessThanOrEqual(Math.ceil(performance.now() - started));

    expect(server.received).toHaveLength(1);
    const got = server.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hooks/in?x=1');
    expect(got.body).toBe(body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('Tolk-Webhooks/1.0');
    expect(got.headers['x-tolk-signature']).toBe('t=1,v1=abc');
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    // Host comes from the url, never from the caller.
    expect(got.headers.host).toBe(`127.0.0.1:${server.port}`);
  });

  it("keeps the caller's content-type and user-agent, whatever their case", async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end('ok'));
    const result = await postWebhook(server.origin, 'x', { 'Content-Type': 'text/plain', 'User-Agent': 'Custom/2' }, { allowOrigins: [server.origin] });
    expect(result.ok).toBe(true);
    expect(server.received[0]!.headers['content-type']).toBe('text/plain');
    expect(server.received[0]!.headers['user-agent']).toBe('Custom/2');
  });

  it('reports a 500 as a failure with its status', async () => {
    const server = await startServer((_req, res) => res.writeHead(500).end('boom'));
    const result = await postWebhook(server.origin, '{}', {}, { allowOrigins: [server.origin] });
    expect(result).toMatchObject({ ok: false, status: 500 });
    expect(result.error).toMatch(/500/);
  });

  it('never follows a redirect', async () => {
    const target = await startServer((_req, res) => res.writeHead(200).end());
    const server = await startServer((_req, res) => res.writeHead(302, { location: `${target.origin}/stolen` }).end());
    const result = await postWebhook(server.origin, '{}', {}, { allowOrigins: [server.origin, target.origin] });
    expect(result).toMatchObject({ ok: false, status: 302, error: 'redirect (302) not followed' });
    expect(server.received).toHaveLength(1);
    expect(target.connections()).toBe(0);
  });

  it('gives up on a server that never answers, on time', async () => {
    const server = await startServer(() => {}); // reads the request, never responds
    const started = Date.now();
    const result = await postWebhook(server.origin, '{}', {}, { allowOrigins: [server.origin], timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout after 300 ms' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
  });

  it('stops reading a huge response body and keeps the status', async () => {
    const total = 10 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const server = await startServer((_req, res) => {
      res.on('error', () => {}); // the client hangs up mid-body, by design
      res.writeHead(200, { 'content-length': String(total) });
      let sent = 0;
      const pump = () => {
        while (sent < total && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
    const started = Date.now();
    const result = await postWebhook(server.origin, '{}', {}, { allowOrigins: [server.origin] });
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports a refused url without connecting or looking anything up', async () => {
    const dns = fakeDns({});
    const result = await postWebhook('https://10.0.0.1/', '{}', {}, { allowOrigins: [], lookup: dns.lookup });
    expect(result).toMatchObject({ ok: false, status: null, error: 'url points to a private address (10.0.0.1)' });
    expect(dns.calls).toEqual([]);
  });

  it('refuses a name resolving to loopback: the listening server sees no connection', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end());
    const dns = fakeDns({ 'rebind.test': ['127.0.0.1'] });
    // The server's port allowed (not its origin), so that only the address can refuse it.
    const ports = [String(server.port)];
    const result = await postWebhook(`https://rebind.test:${server.port}/`, '{}', {}, { allowOrigins: [], lookup: dns.lookup, ports });
    expect(result).toMatchObject({ ok: false, status: null, error: 'url resolves to a loopback address (127.0.0.1)' });
    expect(server.connections()).toBe(0);
  });

  it('reports an unresolvable host as a DNS failure', async () => {
    const result = await postWebhook('https://hooks.example.com/', '{}', {}, { allowOrigins: [], lookup: fakeDns({}).lookup });
    expect(result).toMatchObject({ ok: false, status: null, error: 'dns: ENOTFOUND hooks.example.com' });
  });

  it('reports a refused connection', async () => {
    const server = await startServer(() => {});
    const origin = server.origin;
    await new Promise<void>((done) => servers.pop()!.close(() => done()));
    const result = await postWebhook(origin, '{}', {}, { allowOrigins: [origin], timeoutMs: 2000 });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it('never throws, even on a header value Node rejects', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end());
    const result = await postWebhook(server.origin, '{}', { 'x-bad': 'a\r\nb' }, { allowOrigins: [server.origin] });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toEqual(expect.any(String));
    expect(server.connections()).toBe(0);
  });
});

describe('postWebhook connects to the address it vetted', () => {
  it('looks a name up once and connects to that answer, keeping the name as Host', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end());
    // hooks.example.test exists only in the injected lookup: reaching the
    // server proves the socket used that answer and asked no other resolver.
    const origin = `http://hooks.example.test:${server.port}`;
    const dns = fakeDns({ 'hooks.example.test': ['127.0.0.1'] });
    const result = await postWebhook(`${origin}/in`, '{"a":1}', {}, { allowOrigins: [origin], lookup: dns.lookup });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(dns.calls).toEqual(['hooks.example.test']);
    expect(server.received).toHaveLength(1);
    expect(server.received[0]!.headers.host).toBe(`hooks.example.test:${server.port}`);
  });

  it('falls back to the next vetted address when the first refuses', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end()); // IPv4 only
    const origin = `http://both.test:${server.port}`;
    const dns = fakeDns({ 'both.test': ['::1', '127.0.0.1'] });
    const result = await postWebhook(origin, '{}', {}, { allowOrigins: [origin], lookup: dns.lookup });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(dns.calls).toEqual(['both.test']);
  });

  it('is not rebound by a second, different DNS answer', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end());
    // First answer public (vetted), any later one loopback: a client that
    // resolved again when connecting would land on the local server.
    let answered = 0;
    const dns = fakeDns({ 'rebind.test': () => (answered++ === 0 ? [PUBLIC_V4] : ['127.0.0.1']) });
    const started = Date.now();
    const ports = [String(server.port)];
    const result = await postWebhook(`https://rebind.test:${server.port}/`, '{}', {}, { allowOrigins: [], lookup: dns.lookup, timeoutMs: 300, ports });
    // The socket went to the public address (unreachable on this port, or no
    // network at all): a timeout or a connection error, never the local server.
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toEqual(expect.any(String));
    expect(dns.calls).toEqual(['rebind.test']);
    expect(server.connections()).toBe(0);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
