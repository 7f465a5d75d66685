// baresip (Debian's package) as the far end of a call test: a real softphone
// that answers by itself (answermode=auto), sends silence from a WAV file,
// and records what it hears (its sndfile module: dump-<peer>-dec.wav, the
// decoded audio of the call). It listens on its own loopback address
// (127.0.0.2): a SIP stack whose next hop has its own host answers itself.
//
// baresip is a hard requirement of the tests that use it: if it is missing,
// startBaresip throws (a test that cannot run must not pass by being skipped).

import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeUdpPort } from '../../gateway/sip-stack.ts';
import { until } from './wait.ts';
import { requireBinary, startPeerProcess } from './peer.ts';

export const BARESIP = '/usr/bin/baresip';

export type Baresip = {
  /** `host:port` it listens on. */
  address: string;
  /** Its log so far (stdout and stderr). */
  log(): string;
  /** The calls it recorded: what it heard, as 8 kHz 16-bit PCM, one per call, oldest first. Waits for the files to close. */
  heard(): Promise<Int16Array[]>;
  /** Stops it and removes its files. Idempotent. */
  stop(): Promise<void>;
};

/** A WAV file's 16-bit PCM (the data chunk), checked to be 8 kHz mono. */
export function wavPcm(buf: Buffer): Int16Array {
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  let off = 12;
  let rate = 0;
  let channels = 0;
  while (off + 8 <= buf.length) {
    const id = buf.toString('ascii', off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(off + 10);
      rate = buf.readUInt32LE(off + 12);
    } else if (id === 'data') {
      if (rate !== 8000 || channels !== 1) throw new Error(`WAV is ${rate} Hz, ${channels} channels`);
      const end = Math.min(buf.length, off + 8 + size);
      const data = buf.subarray(off + 8, end);
      return new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + (data.length & ~1)));
    }
    off += 8 + size + (size & 1);
  }
  throw new Error('WAV without data');
}

/** Starts baresip answering calls to `user` (the number dialed); resolves once it is ready. */
export async function startBaresip(o: { user: string }): Promise<Baresip> {
  await requireBinary(BARESIP, 'baresip-core', 'baresip');
  const host = '127.0.0.2';
  const port = await freeUdpPort(host);
  const dir = await mkdtemp(path.join(tmpdir(), 'tolk-baresip-'));
  const rec = path.join(dir, 'rec');
  await mkdir(rec);
  // 60 s of silence to send (it must send something: its source is a file).
  const seconds = 60;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii'); header.writeUInt32LE(36 + seconds * 16000, 4); header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16); header.writeUInt16LE(1, 20); header.writeUInt16LE(1, 22); header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28); header.writeUInt16LE(2, 32); header.writeUInt16LE(16, 34); header.write('data', 36, 'ascii');
  header.writeUInt32LE(seconds * 16000, 40);
  await writeFile(path.join(dir, 'silence.wav'), Buffer.concat([header, Buffer.alloc(seconds * 16000)]));
  const rtpBase = 20000 + 2 * Math.floor(Math.random() * 10000);
  await writeFile(path.join(dir, 'config'), [
    'poll_method epoll',
    `sip_listen ${host}:${port}`,
    // No sound card: what it hears goes to a bridge nobody reads; sndfile records it on the way.
    'audio_player aubridge,heard',
    `audio_source aufile,${path.join(dir, 'silence.wav')}`,
    'audio_alert aubridge,alert',
    'module_path /usr/lib/baresip/modules',
    'module g711.so',
    'module aubridge.so',
    'module aufile.so',
    'module sndfile.so',
    'module_app account.so',
    `snd_path ${rec}`,
    `rtp_ports ${rtpBase}-${rtpBase + 40}`,
    '',
  ].join('\n'));
  await writeFile(path.join(dir, 'accounts'), `<sip:${o.user}@${host}:${port}>;regint=0;answermode=auto\n`);
  const peer = await startPeerProcess({ name: 'baresip', bin: BARESIP, args: ['-f', dir], dir, ready: /baresip is ready/ });
  return {
    address: `${host}:${port}`,
    log: peer.log,
    async heard() {
      // A recording's WAV header gets its length when the call closes it.
      return until('baresip to close its recording', async () => {
        const files = (await readdir(rec)).filter((f) => f.endsWith('-dec.wav')).sort();
        if (files.length === 0) return null;
        const pcms = await Promise.all(files.map(async (f) => wavPcm(await readFile(path.join(rec, f)))));
        return pcms.every((p) => p.length > 0) ? pcms : null;
      }, { timeoutMs: 10_000, intervalMs: 100 });
    },
    stop: peer.stop,
  };
}
