import pino, { type DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';

// What a start tells the operator when it cannot go on: one sentence saying
// why and what to do, on stderr, and a non-zero exit; never a stack trace.

/** A failure whose message is already the sentence the operator should read. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/** postgres://user:secret@host/db → postgres://user@host/db: what the operator set, without the password. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString().replace(/^(\w+:\/\/[^@/]*):@/, '$1@');
  } catch {
    return '(not a URL)';
  }
}

/** The sentence for a failure while connecting to or migrating the database. */
export function databaseFailure(err: unknown, url: string, fromEnv: boolean): StartupError {
  if (err instanceof StartupError) return err;
  const e = err as { code?: string; message?: string };
  const where = fromEnv ? `DATABASE_URL (${redactUrl(url)})` : `the embedded PostgreSQL (${redactUrl(url)})`;
  const msg = (e?.message ?? String(err)).split('\n')[0]!;
  if (e?.code && CONNECTION_CODES.has(e.code)) {
    return new StartupError(`cannot connect to ${where}: ${e.code}; check that PostgreSQL runs there${fromEnv ? ', or unset DATABASE_URL to use the embedded one' : ''}`);
  }
  if (e?.code === '28P01' || e?.code === '28000') return new StartupError(`cannot log in to ${where}: ${msg}`);
  if (e?.code === '3D000') return new StartupError(`${where}: ${msg}; create the database first`);
  if (/invalid url|Invalid URL|Cannot read|must be a string|not a valid/i.test(msg) || e?.code === 'ERR_INVALID_URL') {
    return new StartupError(`DATABASE_URL is not a PostgreSQL connection string (postgres://user:password@host:5432/database)`);
  }
  return new StartupError(`database migration failed on ${where}: ${msg}`);
}

/**
 * A request's line (http/request-log.ts, the one line that carries
 * `responseTime`) as a terminal shows it: its message, which says method, URL,
 * status and time, and its request id, on one line; its fields repeat the
 * message, and pino-pretty would print each on a line of its own. Any other
 * line, and a request's line with an error (`err`), is left whole.
 */
export function terminalLine(line: string): string | object {
  if (!line.includes('"responseTime":')) return line;
  try {
    const o = JSON.parse(line) as { level?: number; time?: number; msg?: unknown; reqId?: unknown; responseTime?: unknown; err?: unknown };
    if (typeof o.responseTime !== 'number' || typeof o.msg !== 'string' || o.err !== undefined) return line;
    return { level: o.level, time: o.time, msg: typeof o.reqId === 'string' ? `${o.msg} (${o.reqId})` : o.msg };
  } catch {
    return line;
  }
}

/**
 * Where a logger of the service writes (fd 1: Fastify's request log, fd 2: the
 * platform's): to a terminal, lines a person reads (pino-pretty: time, level,
 * message, then the fields; a request's line on one line, terminalLine);
 * anywhere else (a pipe, a file, a log shipper), pino's JSON, one object a
 * line. The terminal's lines are made in this process, after pino's last
 * step, so the redaction of http/redact.ts applies to both.
 */
export function logDestination(fd: 1 | 2): DestinationStream {
  const tty = (fd === 1 ? process.stdout : process.stderr).isTTY === true;
  if (!tty) return pino.destination(fd);
  const out = pino.destination({ dest: fd, sync: true });
  const prettify = prettyFactory({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return { write: (line: string) => { out.write(prettify(terminalLine(line))); } };
}
