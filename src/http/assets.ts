import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// The pages' scripts and stylesheets: real files in each capability's
// assets/ folder (type-checked by tsconfig.assets.json), read once at start
// and served by one route. A page links each by its content's hash
// (`/assets/room.3f9c0a1b2c4d.js`): the browser keeps it for a year and
// never asks again, and a new version is a new address. The same file is
// also served at its plain name (`/assets/room.js`) and at the address it had
// before (`/r/assets/room.js`), revalidated each time (ETag, 304).

type AssetType = 'text/javascript' | 'text/css';
type Asset = { body: Buffer; type: AssetType; hash: string; etag: string };

/** Each asset: its file (under src/) and the folder it was served from before the hashed addresses. */
const FILES = {
  'page.css': { file: 'http/assets/page.css', before: null },
  'booking.css': { file: 'bookings/assets/booking.css', before: '/book/assets/' },
  'booking.js': { file: 'bookings/assets/booking.js', before: '/book/assets/' },
  'consent.css': { file: 'voices/assets/consent.css', before: '/consent/assets/' },
  'consent.js': { file: 'voices/assets/consent.js', before: '/consent/assets/' },
  'room.css': { file: 'rooms/assets/room.css', before: '/r/assets/' },
  'room.js': { file: 'rooms/assets/room.js', before: '/r/assets/' },
  'room-audio.js': { file: 'rooms/assets/room-audio.js', before: '/r/assets/' },
  'room-voices.js': { file: 'rooms/assets/room-voices.js', before: '/r/assets/' },
  // An AudioWorklet module: loaded by room-audio.js, by the address the page gives it (data-worklet).
  'mic-worklet.js': { file: 'rooms/assets/mic-worklet.js', before: '/r/assets/' },
} as const;

export type AssetName = keyof typeof FILES;

const ASSETS = new Map<string, Asset>(Object.entries(FILES).map(([name, { file }]) => {
  const body = readFileSync(new URL(`../${file}`, import.meta.url));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return [name, { body, type: name.endsWith('.css') ? 'text/css' : 'text/javascript', hash, etag: `"${hash}"` }];
}));

/** The address a page links an asset by: its name with its content's hash. */
export function assetUrl(name: AssetName): string {
  const a = ASSETS.get(name)!;
  return `/assets/${name.replace(/\.(js|css)$/, `.${a.hash}.$1`)}`;
}

function notFound(reply: FastifyReply): FastifyReply {
  reply.callNotFound();
  return reply;
}

const HASHED = /^([a-z-]+)\.([0-9a-f]{12})\.(js|css)$/;

function send(req: FastifyRequest, reply: FastifyReply, name: string, hash: string | null): FastifyReply {
  const a = ASSETS.get(name);
  if (!a) return notFound(reply);
  reply.header('ETag', a.etag).header('X-Content-Type-Options', 'nosniff');
  // An address with an older hash (a page opened before a restart) gets today's file, revalidated.
  reply.header('Cache-Control', hash === a.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
  return reply.type(`${a.type}; charset=utf-8`).send(a.body);
}

export default function register(app: FastifyInstance) {
  const hide = { schema: { hide: true } };
  app.get<{ Params: { file: string } }>('/assets/:file', hide, async (req, reply) => {
    const m = HASHED.exec(req.params.file);
    return m ? send(req, reply, `${m[1]}.${m[3]}`, m[2]!) : send(req, reply, req.params.file, null);
  });
  const before = new Set(Object.values(FILES).map((f) => f.before).filter((p) => p !== null));
  for (const folder of before) {
    app.get<{ Params: { file: string } }>(`${folder}:file`, hide, async (req, reply) => {
      const f = FILES[req.params.file as AssetName];
      return f?.before === folder ? send(req, reply, req.params.file, null) : notFound(reply);
    });
  }
}
