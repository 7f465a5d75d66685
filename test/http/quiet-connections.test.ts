import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/app.ts';

// A connection that has sent no request yet (a browser's preconnect, a client gone quiet) does
// not hold the server's close: before, the close waited for its headers to time out (60 s).

describe('closing the server', () => {
  it('ends at once with a connection open that never sent a request, and answers what was asked before', { timeout: 20_000 }, async () => {
    const t = await startTestApp();
    const { port } = new URL(t.url);
    const quiet = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => { quiet.once('connect', resolve); quiet.once('error', reject); });
    const ended = new Promise<void>((resolve) => quiet.once('close', () => resolve()));
    // A request answered on another connection before the close is unaffected.
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    // The test's timeout (20 s) is far below the 60 s the close used to wait.
    await t.close();
    await ended;
    expect(quiet.destroyed).toBe(true);
  });
});
