import { parentPort, workerData } from 'node:worker_threads';
import decode from 'audio-decode';
import { measure } from './measure.ts';

// Decodes one recording (WebM, Ogg or MP4, as browsers' MediaRecorder makes
// them) off the main thread and reports what probe.ts needs to know.
try {
  const audio = await decode(workerData as Uint8Array);
  // Mixed to one channel as 16-bit PCM, for a recognizer to check what was said.
  const channels = audio.channelData;
  const length = channels[0]?.length ?? 0;
  const mono = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    let sum = 0;
    for (const ch of channels) sum += ch[i]!;
    mono[i] = Math.max(-32768, Math.min(32767, Math.round((sum / channels.length) * 32767)));
  }
  parentPort!.postMessage({ ok: true, result: { ...measure(channels, audio.sampleRate), pcm: mono } }, [mono.buffer]);
} catch (err) {
  parentPort!.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
}
