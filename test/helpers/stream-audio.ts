import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadResampler, resample } from '../../src/engines/speech/resample.ts';
import type { Heard, RecognitionStream } from '../../src/engines/speech/streaming.ts';

// Real recorded speech for the streaming recognizers' tests, and a speaker
// that writes it to a stream as a line would: in chunks, at the pace of the
// audio (or faster, `speed`). Debian's pocketsphinx-testdata has sentences
// read from LibriVox's "Sense and Sensibility" (16 kHz WAV, a 44-byte RIFF
// header) with their transcripts.

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';

/** A LibriVox sentence (`0870`, `0880`...) at `rate` (8000: a phone line), with what was said. */
export async function sentence(id: string, rate = 8_000): Promise<{ pcm: Int16Array; reference: string }> {
  const name = `sense_and_sensibility_01_austen_64kb-${id}`;
  const data = readFileSync(path.join(LIBRIVOX, `${name}.wav`)).subarray(44);
  const pcm16k = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  const line = readFileSync(path.join(LIBRIVOX, 'transcription'), 'utf8').split('\n').find((l) => l.includes(`(${name})`)) ?? '';
  const reference = /^<s>\s*(.*?)\s*<\/s>/.exec(line.trim())?.[1] ?? '';
  if (rate === 16_000) return { pcm: pcm16k, reference };
  await loadResampler();
  return { pcm: resample(pcm16k, 16_000, rate), reference };
}

/** `ms` of silence at `rate`. */
export function silence(ms: number, rate = 8_000): Int16Array {
  return new Int16Array(Math.round((ms * rate) / 1000));
}

/** One result as the listener saw it: when (ms since the speaker started), and whether end() had been called. */
export type Seen = Heard & { at: number; afterEnd: boolean };

/**
 * Writes `pcm` to the stream in `chunkMs` chunks at `speed` times the
 * audio's pace, then calls end() (unless `end` is false), while reading the
 * results. Resolves with them, or rejects with the stream's failure
 * (`seen` keeps what came before it).
 */
export async function speak(stream: RecognitionStream, pcm: Int16Array, o: { rate?: number; chunkMs?: number; speed?: number; end?: boolean; seen?: Seen[] } = {}): Promise<Seen[]> {
  const rate = o.rate ?? 8_000;
  const chunk = Math.round(((o.chunkMs ?? 20) * rate) / 1000);
  const seen = o.seen ?? [];
  const t0 = performance.now();
  let ended = false;
  const reading = (async () => {
    for await (const h of stream) seen.push({ ...h, at: Math.round(performance.now() - t0), afterEnd: ended });
    return seen;
  })();
  // The reading's failure is the caller's (awaited below); the writing stops at it.
  let over = false;
  reading.then(() => { over = true; }, () => { over = true; });
  for (let at = 0; at < pcm.length && !over; at += chunk) {
    stream.write(pcm.subarray(at, at + chunk));
    const due = ((at + chunk) * 1000) / rate / (o.speed ?? 1);
    const wait = due - (performance.now() - t0);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  if (o.end !== false) {
    ended = true;
    stream.end();
  }
  return reading;
}

/** Every result of a stream until it ends (rejects with its failure). */
export async function collect(stream: RecognitionStream): Promise<Heard[]> {
  const out: Heard[] = [];
  for await (const h of stream) out.push(h);
  return out;
}
