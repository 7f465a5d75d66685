import http from 'node:http';

// What the room-page benchmarks' client process shares (room-page.ts,
// translate.ts): the pages' loopback addresses, and joining N pages of a
// room through POST /r/{id}/participants, `concurrency` at a time, each
// worker over its own keep-alive connection from its own address.

/** The pages' client addresses (loopback): 127.0.0.10 up to 127.0.0.(10 + ADDRESSES - 1). */
export const ADDRESSES = 64;
export const addressOf = (i: number) => `127.0.0.${10 + (i % ADDRESSES)}`;

export type Creds = { id: string; secret: string };

/** Joins n pages (page i hears langs[i % langs.length]); a failure is reported to `fail` and leaves a hole. */
export async function joinPages(o: {
  base: string; roomId: string; n: number; concurrency: number; langs: readonly string[]; fail: (why: string) => void;
}): Promise<{ creds: Creds[]; ms: number }> {
  const creds: Creds[] = new Array(o.n);
  const started = Date.now();
  let next = 0;
  const post = (agent: http.Agent, body: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${o.base}/r/${o.roomId}/participants`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(Array.from({ length: o.concurrency }, async (_, w) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: addressOf(w) });
    for (let i = next++; i < o.n; i = next++) {
      const res = await post(agent, JSON.stringify({ name: `Page ${i}`, speak: 'en', hear: o.langs[i % o.langs.length] })).catch((err: unknown) => err as Error);
      if (res instanceof Error) { o.fail(`join: ${String(res)}`); continue; }
      if (res.status !== 201) { o.fail(`join ${res.status}: ${res.body.slice(0, 200)}`); continue; }
      const p = JSON.parse(res.body) as Creds;
      creds[i] = { id: p.id, secret: p.secret };
    }
    agent.destroy();
  }));
  return { creds, ms: Date.now() - started };
}
