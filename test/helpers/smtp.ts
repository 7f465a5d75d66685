import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

// A real SMTP server on 127.0.0.1 (smtp-server) that keeps every message it
// accepts, raw and parsed (mailparser), with its envelope; it can refuse
// messages, temporarily or for good, to exercise retries.
//
// Plain SMTP, no TLS: STARTTLS is disabled, so the server never offers it and
// nodemailer, given `smtp://127.0.0.1:PORT` (the `url` below), sends in plain
// text without needing ?ignoreTLS=true. (Were STARTTLS offered, nodemailer
// would upgrade and then reject the server's self-signed certificate.) AUTH
// is optional: a URL with user:password authenticates, one without does not.

export type SmtpMessage = { raw: string; parsed: ParsedMail; envelope: { from: string; to: string[] } };

export type SmtpServer = {
  /** SMTP_URL for the service: smtp://127.0.0.1:PORT */
  url: string;
  port: number;
  /** Accepted messages, in the order they arrived. */
  messages: SmtpMessage[];
  /** How many DATA commands were refused so far. */
  refused: () => number;
  /** Resolves once `n` messages have been accepted (rejects after timeoutMs, default 15 s). */
  waitFor: (n: number, timeoutMs?: number) => Promise<void>;
  close: () => Promise<void>;
};

export type SmtpOptions = {
  /** Refuse the first n messages (at the end of DATA). */
  failFirst?: number;
  /** Refuse every message. */
  failAlways?: boolean;
  /** SMTP reply code of a refusal: 451 (temporary, the default) or a 5xx (permanent). */
  failCode?: number;
};

export async function startSmtp(opts: SmtpOptions = {}): Promise<SmtpServer> {
  const messages: SmtpMessage[] = [];
  const waiters: Array<() => void> = [];
  let dataCommands = 0;
  let refused = 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    onAuth: (_auth, _session, callback) => callback(null, { user: 'test' }),
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        dataCommands++;
        if (opts.failAlways || dataCommands <= (opts.failFirst ?? 0)) {
          refused++;
          const code = opts.failCode ?? 451;
          const err = Object.assign(new Error(code >= 500 ? 'Requested action not taken (test refusal)' : 'Try again later (test refusal)'), {
            responseCode: code,
          });
          return callback(err);
        }
        const raw = Buffer.concat(chunks);
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        simpleParser(raw).then(
          (parsed) => {
            messages.push({ raw: raw.toString('utf8'), parsed, envelope });
            for (const w of waiters.splice(0)) w();
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    refused: () => refused,
    waitFor: (n, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`SMTP server got ${messages.length} of ${n} messages in ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          if (messages.length >= n) {
            clearTimeout(deadline);
            resolve();
          } else waiters.push(check);
        };
        check();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
