import http from 'node:http';

/** One HTTP request on a keep-alive agent: its status and body (the benchmarks' client). */
export function request(agent: http.Agent, url: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) req.end(body);
    else req.end();
  });
}
