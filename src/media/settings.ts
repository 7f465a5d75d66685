import { z } from 'zod';

// What an operator writes for rooms' live voices (operator.md, Media server), read by
// config.ts: TOLK_MEDIA_SERVER and TOLK_ICE_SERVERS. A value that cannot be used is an
// issue naming what is expected (the start stops with it).

/** Where rooms' voices go: `janus` (run by the service), `janus=ws://HOST:8188[,ws://...]` (run by the operator), `off`. */
export type MediaServer = { kind: 'off' } | { kind: 'janus' } | { kind: 'remote'; urls: string[] };
/** A STUN or TURN server, as RTCPeerConnection takes it. */
export type IceServer = { urls: string; username?: string; credential?: string };

export function parseMediaServer(v: string, ctx: z.RefinementCtx): MediaServer {
  const s = v.trim();
  if (s === 'off' || s === '') return { kind: 'off' };
  if (s === 'janus') return { kind: 'janus' };
  const m = /^janus=(.+)$/.exec(s);
  const urls = m ? m[1]!.split(',').map((u) => u.trim()).filter(Boolean) : [];
  if (urls.length === 0 || !urls.every((u) => /^wss?:\/\/[^\s/]+(\/\S*)?$/.test(u))) {
    ctx.addIssue({ code: 'custom', message: 'must be janus, janus=ws://HOST:8188 (several comma-separated) or off' });
    return z.NEVER;
  }
  return { kind: 'remote', urls };
}

/** `stun:HOST:PORT` and `turn:USER:PASS@HOST:PORT`, comma-separated; TURN's credentials apart. */
export function parseIceServers(v: string, ctx: z.RefinementCtx): IceServer[] {
  const out: IceServer[] = [];
  for (const item of v.split(',').map((x) => x.trim()).filter(Boolean)) {
    const stun = /^stuns?:[^\s@]+:\d{1,5}$/.exec(item);
    const turn = /^(turns?):([^:@\s]+):([^@\s]+)@([^\s@]+:\d{1,5})$/.exec(item);
    if (stun) out.push({ urls: item });
    else if (turn) out.push({ urls: `${turn[1]}:${turn[4]}`, username: turn[2]!, credential: turn[3]! });
    else {
      ctx.addIssue({ code: 'custom', message: `${item}: must be stun:HOST:PORT or turn:USER:PASS@HOST:PORT` });
      return z.NEVER;
    }
  }
  return out;
}
