import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';

// /favicon.ico, which every browser asks for beside a page: our own icon (a
// white speech bubble with two lines of text on the project's blue), drawn
// here at 32×32 and kept as an ICO holding one PNG (read by every current
// browser), so there is no binary file in the repository and no 404 in the log.

const SIZE = 32;
const BLUE = [0x1f, 0x5f, 0xd6, 0xff];
const WHITE = [0xff, 0xff, 0xff, 0xff];
const CLEAR = [0, 0, 0, 0];

/** Inside a rounded rectangle [x0, x1) × [y0, y1) with corner radius r. */
function inRounded(x: number, y: number, x0: number, y0: number, x1: number, y1: number, r: number): boolean {
  if (x < x0 || x >= x1 || y < y0 || y >= y1) return false;
  const cx = Math.min(Math.max(x + 0.5, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y + 0.5, y0 + r), y1 - r);
  return (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= r * r;
}

function pixel(x: number, y: number): number[] {
  if (!inRounded(x, y, 0, 0, SIZE, SIZE, 7)) return CLEAR;
  const bubble = inRounded(x, y, 6, 7, 26, 21, 4);
  // The bubble's tail, down and to the left.
  const tail = y >= 21 && y < 26 && x >= 9 && x < 9 + (26 - y);
  if (!bubble && !tail) return BLUE;
  // Two lines of "text" in the bubble.
  const line = (y >= 11 && y < 13 && x >= 10 && x < 22) || (y >= 15 && y < 17 && x >= 10 && x < 18);
  return line ? BLUE : WHITE;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

function png(): Buffer {
  const rows: number[] = [];
  for (let y = 0; y < SIZE; y++) {
    rows.push(0); // filter: none
    for (let x = 0; x < SIZE; x++) rows.push(...pixel(x, y));
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(SIZE, 0);
  ihdr.writeUInt32BE(SIZE, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function ico(image: Buffer): Buffer {
  const head = Buffer.alloc(22);
  head.writeUInt16LE(0, 0); // reserved
  head.writeUInt16LE(1, 2); // an icon
  head.writeUInt16LE(1, 4); // one image
  head.writeUInt8(SIZE, 6);
  head.writeUInt8(SIZE, 7);
  head.writeUInt8(0, 8); // no palette
  head.writeUInt8(0, 9);
  head.writeUInt16LE(1, 10); // planes
  head.writeUInt16LE(32, 12); // bits per pixel
  head.writeUInt32LE(image.length, 14);
  head.writeUInt32LE(22, 18); // where the image starts
  return Buffer.concat([head, image]);
}

export const FAVICON = ico(png());
const ETAG = `"${createHash('sha256').update(FAVICON).digest('hex').slice(0, 16)}"`;

/** GET (and HEAD) /favicon.ico: the icon, cached for a week, 304 when the browser has it. */
export default function favicon(app: FastifyInstance): void {
  app.get('/favicon.ico', { schema: { hide: true } }, async (req, reply) => {
    reply
      .header('Cache-Control', 'public, max-age=604800')
      .header('ETag', ETAG)
      .header('X-Content-Type-Options', 'nosniff');
    if (req.headers['if-none-match'] === ETAG) return reply.code(304).send();
    return reply.type('image/x-icon').send(FAVICON);
  });
}
