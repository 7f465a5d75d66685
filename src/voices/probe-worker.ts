import { parentPort, workerData } from 'node:worker_threads';
import decode from 'audio-decode';
import { measure } from './measure.ts';

// Decodes one recording (WebM, Ogg or MP4, as browsers' MediaRecorder makes
// them) off the main thread and reports what probe.ts needs to know.
try {
  const audio = await decode(workerData as Uint8Array);
  parentPort!.postMessage({ ok: true, result: measure(audio.channelData, audio.sampleRate) });
} catch (err) {
  parentPort!.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
}
