import { fork, type ChildProcess } from 'node:child_process';

// A bench baseline served by a process of its own (bare.ts, longpoll-floor.ts):
// the file forks itself with `--serve`, is sent the database's URL, and answers
// with the URL it listens on (or the error that stopped it). Killed with the
// bench, the child goes too.

export type Forked = { url: string; pid: number; close: () => Promise<void> };

/** Forks `file` (a module ending in `serveWhenAsked`) on databaseUrl; resolves once it listens. */
export function forkServer(file: string, name: string, databaseUrl: string): Promise<Forked> {
  const child: ChildProcess = fork(file, ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${name} exited (${code}) before listening`));
    child.once('exit', onExit);
    child.once('message', (m: { url?: string; error?: string }) => {
      child.off('exit', onExit);
      if (m.url) resolve({ url: m.url, pid: child.pid!, close });
      else void close().then(() => reject(new Error(`${name}: ${m.error}`)));
    });
    child.send({ databaseUrl });
  });
}

/** The forked side: when run with `--serve`, serves on the URL it is sent and answers where it listens. */
export function serveWhenAsked(serve: (databaseUrl: string) => Promise<string>): void {
  if (process.argv[2] !== '--serve') return;
  process.once('message', (m: { databaseUrl: string }) => {
    serve(m.databaseUrl).then(
      (url) => process.send!({ url }),
      (err: unknown) => process.send!({ error: String((err as Error)?.stack ?? err) }, () => process.exit(1)),
    );
  });
  // The bench gone (killed), this server goes too.
  process.once('disconnect', () => process.exit(0));
}
