import { MediaPlane } from '../gateway/media/plane.ts';
import type { Negotiated } from '../gateway/media/sdp.ts';

// The far ends of bench/media.ts, in a process of their own: one stream per
// call, each connected to the bench's stream and speaking without pause.

type Msg = { op: 'open'; n: number } | { op: 'connect'; ports: number[]; seconds: number } | { op: 'stop' };
const send = (m: unknown) => process.send!(m);
const plane = await MediaPlane.start('127.0.0.1');
const keys: string[] = [];

const remote = (port: number): Negotiated => ({ address: '127.0.0.1', port, codec: 'PCMU', payloadType: 0, dtmfPayloadType: 101, ptimeMs: 20, direction: 'sendrecv' });
const tone = (ms: number) => Int16Array.from({ length: ms * 8 }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / 8000)));

process.on('message', async (m: Msg) => {
  if (m.op === 'open') {
    const ports: number[] = [];
    for (let i = 0; i < m.n; i++) { keys.push(`peer-${i}`); ports.push((await plane.open(`peer-${i}`)).port); }
    send({ op: 'opened', ports });
  } else if (m.op === 'connect') {
    await Promise.all(keys.map((k, i) => plane.connect(k, remote(m.ports[i]!))));
    await Promise.all(keys.map((k) => plane.play(k, 'talk', tone(m.seconds * 1000))));
    send({ op: 'talking' });
  } else {
    const stats = await Promise.all(keys.map((k) => plane.close(k)));
    send({ op: 'stopped', received: stats.reduce((a, s) => a + (s?.received ?? 0), 0), sent: stats.reduce((a, s) => a + (s?.sent ?? 0), 0) });
    await plane.stop();
    process.exit(0);
  }
});
send({ op: 'ready' });
