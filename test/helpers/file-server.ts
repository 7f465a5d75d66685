import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local HTTP server of files (path → bytes, as they may be added after it starts), as a model's publisher serves them; 404 for the rest. */
export async function startFileServer(files: Map<string, Buffer>): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}
