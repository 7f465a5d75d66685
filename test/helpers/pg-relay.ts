import net from 'node:net';
import { freePort } from '../../src/db/embedded.ts';

// The run's real PostgreSQL behind a port of its own, which a test opens and
// shuts: shut, nothing listens there (a connection is refused, as with a
// database stopped) and the connections it carried are cut; open, it relays
// again. Pools given url() reach the database only through it.

export type PgRelay = {
  port: number;
  /** `dbUrl` (a database of the run's PostgreSQL), reached through the relay. */
  url: (dbUrl: string) => string;
  /** Listens and relays (again); nothing listens before the first open. */
  open: () => Promise<void>;
  /** Stops listening and cuts every connection it carried. */
  shut: () => Promise<void>;
};

/** A relay to the PostgreSQL of `targetUrl`, shut until opened. */
export async function pgRelay(targetUrl: string): Promise<PgRelay> {
  const target = new URL(targetUrl);
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  return {
    port,
    url: (dbUrl) => {
      const u = new URL(dbUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    open: () => new Promise<void>((resolve) => {
      if (server) return resolve();
      server = net.createServer((c) => {
        const up = net.connect(Number(target.port || 5432), target.hostname);
        sockets.add(c).add(up);
        c.pipe(up).pipe(c);
        const drop = () => { c.destroy(); up.destroy(); sockets.delete(c); sockets.delete(up); };
        c.on('error', drop).on('close', drop);
        up.on('error', drop).on('close', drop);
      });
      server.listen(port, '127.0.0.1', () => resolve());
    }),
    shut: () => new Promise<void>((resolve) => {
      const s = server;
      server = null;
      if (!s) return resolve();
      s.close(() => resolve());
      for (const c of sockets) c.destroy();
    }),
  };
}
