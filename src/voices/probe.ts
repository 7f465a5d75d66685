import { Worker } from 'node:worker_threads';
import { measure, type AudioMeasure } from './measure.ts';

// Probes a consent recording: decoded in a worker thread of its own (a
// decoder is a lot of work on bytes from the Internet: the event loop goes
// on serving everyone else, and a file that makes the decoder spin is
// stopped after PROBE_TIMEOUT_MS), then measured (measure.ts).

const PROBE_TIMEOUT_MS = 10_000;

export class AudioProbeError extends Error {}

/** What probeAudio answers: the measure, and the audio mixed to one channel (16-bit, at its sampleRate). */
export type Probed = AudioMeasure & { pcm: Int16Array };

export function probeAudio(bytes: Uint8Array, timeoutMs = PROBE_TIMEOUT_MS): Promise<Probed> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./probe-worker.ts', import.meta.url), {
      workerData: bytes,
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(() => done(() => reject(new AudioProbeError('decoding took too long'))), timeoutMs);
    worker.once('message', (m: { ok: true; result: Probed } | { ok: false; error: string }) =>
      done(() => (m.ok ? resolve(m.result) : reject(new AudioProbeError(m.error || 'not audio')))));
    worker.once('error', (err) => done(() => reject(new AudioProbeError(err.message))));
    worker.once('exit', (code) => done(() => reject(new AudioProbeError(`decoder stopped (${code})`))));
  });
}

export { measure };
