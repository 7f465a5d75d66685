// A phone's audio in a process of its own (for a test whose service runs in a network namespace:
// this runs beside it, ns.spawn): it binds a UDP port, prints `{"port":N}`, then, every 200 ms,
// the loudness (RMS) of the PCMU it received in that time: `{"at":EPOCH_MS,"rms":R}`.

import { PhoneMedia } from './dial-in-caller.ts';

const media = await PhoneMedia.open();
process.stdout.write(`${JSON.stringify({ port: media.port })}\n`);
let since = Date.now();
setInterval(() => {
  const now = Date.now();
  process.stdout.write(`${JSON.stringify({ at: now, rms: Math.round(media.levelSince(since)) })}\n`);
  media.received.splice(0, media.received.length);
  since = now;
}, 200);
process.on('SIGTERM', () => { media.close(); process.exit(0); });
