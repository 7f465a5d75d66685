import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { lazyChildLogger } from '../../src/http/lazy-logger.ts';

// A request's logger is made real only when it writes a line; what it writes
// carries the request id like a pino child's, and the parent's level holds.

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({ write(chunk, _enc, cb) { lines.push(JSON.parse(String(chunk))); cb(); } });
  return { lines, logger: pino({ level }, stream) as unknown as FastifyBaseLogger };
}

describe('request logger', () => {
  it('writes lines with the request id at enabled levels and nothing below the level', async () => {
    const { lines, logger } = capture('warn');
    const log = lazyChildLogger(logger, { reqId: 'req_1' }, {});
    log.info('not written');
    log.debug({ a: 1 }, 'not written either');
    log.warn({ code: 'x' }, 'written');
    log.error(new Error('boom'), 'failed');
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.reqId, l.msg, l.level])).toEqual([['req_1', 'written', 40], ['req_1', 'failed', 50]]);
    expect(lines[0]!.code).toBe('x');
    expect((lines[1]!.err as { message: string }).message).toBe('boom');
    expect(log.level).toBe('warn');
    expect((log as unknown as pino.Logger).isLevelEnabled('info')).toBe(false);
    // Its own children keep both bindings.
    log.child({ job: 'j' }).error('child line');
    await new Promise((r) => setImmediate(r));
    expect(lines[2]).toMatchObject({ reqId: 'req_1', job: 'j', msg: 'child line' });
  });

  it('a route with its own level gets a real child at that level', async () => {
    const { lines, logger } = capture('warn');
    const log = lazyChildLogger(logger, { reqId: 'req_2' }, { level: 'debug' });
    log.debug('route debug');
    await new Promise((r) => setImmediate(r));
    expect(lines).toMatchObject([{ reqId: 'req_2', msg: 'route debug' }]);
  });
});
