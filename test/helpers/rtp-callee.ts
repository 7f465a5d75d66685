import dgram from 'node:dgram';
import { once } from 'node:events';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { encodeG711, FRAME_SAMPLES, parseRtp, RtpSender } from '../../gateway/media/rtp.ts';

// A callee's media on loopback, in a thread of its own so that what it times
// is not delayed by the test's (and the app's) busy main thread: it receives
// the gateway's RTP, timing each packet on arrival, and sends PCMU paced at
// 20 ms, silence until told to say something. Times are epoch ms with
// fractions (performance.timeOrigin + performance.now()), comparable across
// threads.

type ToThread = { op: 'say'; pcm: Int16Array; start: number } | { op: 'report' } | { op: 'close' };
type Report = { got: number[]; onsetAt: number | null; talking: boolean };

const at = () => performance.timeOrigin + performance.now();

if (!isMainThread && parentPort) {
  const port = parentPort;
  const sock = dgram.createSocket('udp4');
  sock.bind(0, '127.0.0.1');
  await once(sock, 'listening');
  const got: number[] = [];
  let to: { port: number; address: string } | null = null;
  sock.on('message', (b, r) => {
    if (!parseRtp(b)) return;
    got.push(at());
    to ??= { port: r.port, address: r.address };
  });
  const sender = new RtpSender(0);
  const silence = new Uint8Array(FRAME_SAMPLES).fill(0xff);
  let queue: Uint8Array[] = [];
  let onsetAt: number | null = null;
  let onsetIn = -1;
  let stopped = false;
  const t0 = performance.now();
  let n = 0;
  const tick = () => {
    if (stopped) return;
    if (to) {
      const frame = queue.shift() ?? silence;
      if (onsetIn === 0) onsetAt = at();
      onsetIn--;
      sock.send(sender.packet(frame), to.port, to.address);
    }
    n++;
    setTimeout(tick, Math.max(0, t0 + n * 20 - performance.now()));
  };
  tick();
  port.on('message', (m: ToThread) => {
    if (m.op === 'say') {
      const bytes = encodeG711('PCMU', m.pcm);
      queue = [];
      for (let i = 0; i + FRAME_SAMPLES <= bytes.length; i += FRAME_SAMPLES) queue.push(bytes.subarray(i, i + FRAME_SAMPLES));
      onsetIn = Math.floor(m.start / FRAME_SAMPLES);
      onsetAt = null;
    } else if (m.op === 'report') {
      port.postMessage({ got: [...got], onsetAt, talking: queue.length > 0 } satisfies Report);
    } else {
      stopped = true;
      sock.close();
      port.close();
    }
  });
  port.postMessage({ port: sock.address().port });
}

/** Starts a callee thread; its RTP port (to put in the SDP). */
export async function rtpCallee() {
  const w = new Worker(new URL(import.meta.url));
  const [{ port }] = (await once(w, 'message')) as [{ port: number }];
  return {
    port,
    /** Says `pcm` (8 kHz 16-bit), whose speech starts at sample `start`. */
    say(pcm: Int16Array, start: number) { w.postMessage({ op: 'say', pcm, start } satisfies ToThread); },
    /** The arrival times of the gateway's packets, and when the speech's onset frame left. */
    async report(): Promise<Report> {
      w.postMessage({ op: 'report' } satisfies ToThread);
      return ((await once(w, 'message')) as [Report])[0];
    },
    async close() {
      w.postMessage({ op: 'close' } satisfies ToThread);
      await once(w, 'exit');
    },
  };
}
