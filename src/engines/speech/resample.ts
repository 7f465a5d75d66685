import SpeexResampler from '@echogarden/speex-resampler-wasm';

// Speech engines speak at 16 or 22.05 kHz; the line is 8 kHz. The Speex
// resampler (BSD-3, WebAssembly) converts with a proper low-pass filter, in
// the engine's thread. loadResampler() once per thread, then toLineRate().

const LINE_RATE = 8_000;
/** Speex quality 0-10: 5 is its default for voice. */
const QUALITY = 5;

type Wasm = any;
let speex: Wasm = null;

export async function loadResampler(): Promise<void> {
  speex ??= await SpeexResampler();
}

/** 16-bit mono PCM at `rate` Hz, resampled to the line's 8 kHz, as long as the input (its filter's tail flushed). */
export function toLineRate(pcm: Int16Array, rate: number): Int16Array {
  return resample(pcm, rate, LINE_RATE);
}

/** 16-bit mono PCM at `rate` Hz resampled to `to` Hz (the line's 8 kHz up to a recognizer's 16 kHz, say), as long as the input. */
export function resample(pcm: Int16Array, rate: number, to: number): Int16Array {
  if (!speex) throw new Error('resampler: loadResampler() first');
  const LINE_RATE = to;
  const errPtr = speex._malloc(4);
  const st = speex._speex_resampler_init(1, rate, LINE_RATE, QUALITY, errPtr);
  try {
    speex._speex_resampler_skip_zeros(st);
    // Zeros after the speech flush the filter's tail.
    const input = new Int16Array(pcm.length + speex._speex_resampler_get_input_latency(st));
    input.set(pcm);
    const cap = Math.ceil((input.length * LINE_RATE) / rate) + 16;
    const inPtr = speex._malloc(input.length * 2);
    const outPtr = speex._malloc(cap * 2);
    const inLen = speex._malloc(4);
    const outLen = speex._malloc(4);
    try {
      speex.HEAP16.set(input, inPtr >> 1);
      speex.HEAPU32[inLen >> 2] = input.length;
      speex.HEAPU32[outLen >> 2] = cap;
      const rc = speex._speex_resampler_process_int(st, 0, inPtr, inLen, outPtr, outLen);
      if (rc !== 0) throw new Error(`speex resampler: error ${rc}`);
      const n = Math.min(speex.HEAPU32[outLen >> 2], Math.round((pcm.length * LINE_RATE) / rate));
      return speex.HEAP16.slice(outPtr >> 1, (outPtr >> 1) + n);
    } finally {
      for (const p of [inPtr, outPtr, inLen, outLen]) speex._free(p);
    }
  } finally {
    speex._speex_resampler_destroy(st);
    speex._free(errPtr);
  }
}

/**
 * Audio resampled as it comes (a stream's chunks, to a provider's rate): one
 * Speex state across the chunks, so no edge is made between them. flush()
 * at the end gives the filter's tail; destroy() frees its memory.
 */
export class StreamResampler {
  private st: number;
  private readonly from: number;
  private readonly to: number;

  constructor(from: number, to: number) {
    if (!speex) throw new Error('resampler: loadResampler() first');
    this.from = from;
    this.to = to;
    const errPtr = speex._malloc(4);
    this.st = speex._speex_resampler_init(1, from, to, QUALITY, errPtr);
    speex._free(errPtr);
    speex._speex_resampler_skip_zeros(this.st);
  }

  push(pcm: Int16Array): Int16Array {
    if (!this.st || pcm.length === 0) return new Int16Array(0);
    const cap = Math.ceil((pcm.length * this.to) / this.from) + 64;
    const inPtr = speex._malloc(pcm.length * 2);
    const outPtr = speex._malloc(cap * 2);
    const inLen = speex._malloc(4);
    const outLen = speex._malloc(4);
    try {
      speex.HEAP16.set(pcm, inPtr >> 1);
      speex.HEAPU32[inLen >> 2] = pcm.length;
      speex.HEAPU32[outLen >> 2] = cap;
      const rc = speex._speex_resampler_process_int(this.st, 0, inPtr, inLen, outPtr, outLen);
      if (rc !== 0) throw new Error(`speex resampler: error ${rc}`);
      return speex.HEAP16.slice(outPtr >> 1, (outPtr >> 1) + speex.HEAPU32[outLen >> 2]);
    } finally {
      for (const p of [inPtr, outPtr, inLen, outLen]) speex._free(p);
    }
  }

  /** The filter's tail (zeros after the last chunk push it out). */
  flush(): Int16Array {
    if (!this.st) return new Int16Array(0);
    return this.push(new Int16Array(speex._speex_resampler_get_input_latency(this.st)));
  }

  destroy(): void {
    if (this.st) speex._speex_resampler_destroy(this.st);
    this.st = 0;
  }
}
