import pino, { type DestinationStream } from 'pino';
import pretty from 'pino-pretty';

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
 * Where a logger of the service writes (fd 1: Fastify's request log, fd 2: the
 * platform's): to a terminal, lines a person reads (pino-pretty: time, level,
 * message, then the fields); anywhere else (a pipe, a file, a log shipper),
 * pino's JSON, one object a line, as before. pino-pretty runs in this process
 * as a stream, after pino's last step, so the redaction of http/redact.ts
 * applies to both.
 */
export function logDestination(fd: 1 | 2): DestinationStream {
  const tty = (fd === 1 ? process.stdout : process.stderr).isTTY === true;
  if (!tty) return pino.destination(fd);
  return pretty({ destination: fd, sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}
