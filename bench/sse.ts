import net from 'node:net';

// The room page's stream as the benchmarks' clients read it: a raw socket per
// page (HTTP/1.1, chunked transfer coding, Server-Sent Events), so the moment
// a page holds an event is noted the moment its chunk arrives, with none of a
// general-purpose client's work in the figures.

export type RoomStreamHandlers = {
  /** One event (heartbeat comments left out): its name, id and data, the block as sent, and when its chunk arrived. */
  onEvent: (e: { name: string; id: string; data: string; block: string }, now: number) => void;
  /** The stream answered something else than a 200 chunked stream, or its socket failed. */
  onFail: (why: string) => void;
  /** The socket closed. */
  onClose: () => void;
};

/** Opens GET /r/{roomId}/stream for one participant of the page; the socket, to destroy when done. */
export function openRoomStream(
  target: { host: string; port: number; localAddress?: string; roomId: string; participant: { id: string; secret: string } },
  h: RoomStreamHandlers,
): net.Socket {
  const { host, port, roomId, participant: p } = target;
  const socket = net.connect({ host, port, ...(target.localAddress ? { localAddress: target.localAddress } : {}) });
  socket.setNoDelay(true);
  let buf: Buffer = Buffer.alloc(0);
  let head = true;
  let text = '';
  socket.once('connect', () => {
    socket.write(`GET /r/${roomId}/stream?participant=${p.id}&secret=${p.secret} HTTP/1.1\r\nHost: ${host}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
  });
  const event = (block: string, now: number) => {
    if (block.startsWith(':')) return; // heartbeat comment
    let name = 'message';
    let id = '';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) name = line.slice(7);
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data = line.slice(6);
    }
    h.onEvent({ name, id, data, block }, now);
  };
  socket.on('data', (chunk: Buffer) => {
    const now = Date.now();
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    let pos = 0;
    if (head) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const header = buf.toString('latin1', 0, end);
      if (!header.startsWith('HTTP/1.1 200 ')) return h.onFail(`${header.slice(0, 12)} ${buf.toString('utf8', end + 4, end + 300)}`);
      if (!/\r\ntransfer-encoding: *chunked/i.test(header)) return h.onFail(`not chunked: ${header.slice(0, 300)}`);
      head = false;
      pos = end + 4;
    }
    // Chunked transfer coding: each res.write of the server is one chunk.
    for (;;) {
      const eol = buf.indexOf('\r\n', pos);
      if (eol < 0) break;
      const size = parseInt(buf.toString('latin1', pos, eol), 16);
      if (size === 0) { pos = eol + 2; break; }
      if (buf.length < eol + 2 + size + 2) break;
      text += buf.toString('utf8', eol + 2, eol + 2 + size);
      pos = eol + 2 + size + 2;
    }
    buf = pos >= buf.length ? Buffer.alloc(0) : buf.subarray(pos);
    let k;
    while ((k = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, k);
      text = text.slice(k + 2);
      event(block, now);
    }
  });
  socket.on('error', (err) => h.onFail(String(err)));
  socket.on('close', () => h.onClose());
  return socket;
}
