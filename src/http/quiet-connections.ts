import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

// The server's close waits for its connections. Node closes the idle ones (a request answered,
// kept alive), but not a connection that has not sent a request yet: a browser's preconnect,
// or a client that opened one and went quiet. Such a connection held the close until its
// headers timed out (60 s; the service's own shutdown cuts it short at 20 s, without closing its
// pools). Here they are closed with the server: nothing was asked on them, so nothing is lost.

export function closeQuietConnections(app: FastifyInstance): void {
  const quiet = new Set<Socket>();
  app.server.on('connection', (sock: Socket) => {
    quiet.add(sock);
    sock.once('close', () => quiet.delete(sock));
  });
  app.server.on('request', (req: { socket: Socket }) => quiet.delete(req.socket));
  // preClose: the server's own close (which waits for every connection) comes right after.
  app.addHook('preClose', async () => {
    for (const sock of quiet) sock.destroy();
    quiet.clear();
  });
}
