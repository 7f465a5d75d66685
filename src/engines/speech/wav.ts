// WAV (RIFF/WAVE, PCM) for the speech providers: the line's utterances go to
// recognizers as 8 kHz 16-bit mono WAV files, and OpenAI-compatible speech
// servers answer WAV at their own rate (OpenAI 24 kHz, Piper 22.05 kHz).
// Samples are little-endian whatever the machine (the format says so).
//
// Decoding is lenient where the servers are: a speech server that streams its
// answer does not know the length when it writes the header, and puts a
// placeholder there (OpenAI writes 0xFFFFFFFF into the RIFF and data sizes:
// speaches-ai/speaches#493, remsky/Kokoro-FastAPI#94; others write 0), so a
// data chunk claiming more than the file holds, or 0 in a streamed file,
// runs to the end of the file. Chunks other than `fmt ` and `data` (LIST,
// fact) are skipped, WAVE_FORMAT_EXTENSIBLE is read when its sub-format is
// PCM, and anything that is not 16-bit integer PCM is refused.

export type DecodedWav = {
  /** Samples per second, as the file says. */
  rate: number;
  /** Channels in the file (the samples are already mixed down to one). */
  channels: number;
  /** 16-bit mono samples: the channels averaged. */
  samples: Int16Array;
};

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

/** 16-bit samples as little-endian bytes. */
export function pcm16le(pcm: Int16Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(pcm.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < pcm.length; i++) view.setInt16(i * 2, pcm[i]!, true);
  return out;
}

/** Mono 16-bit PCM (8 kHz unless told) as a WAV file: a 44-byte header and the samples. */
export function encodeWav(pcm: Int16Array, rate = 8_000): Uint8Array<ArrayBuffer> {
  const dataBytes = pcm.length * 2;
  const out = new Uint8Array(44 + dataBytes);
  const view = new DataView(out.buffer);
  const ascii = (at: number, s: string) => { for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i); };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, WAVE_FORMAT_PCM, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  out.set(pcm16le(pcm), 44);
  return out;
}

/** A 16-bit PCM WAV file's rate, channel count and samples mixed down to mono. Throws Error when it is not one. */
export function decodeWav(bytes: Uint8Array): DecodedWav {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a RIFF/WAVE file');
  const riffSize = view.getUint32(4, true);
  const streamed = riffSize === 0 || riffSize === 0xffffffff;

  let format: { code: number; channels: number; rate: number; bits: number } | null = null;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    const left = bytes.length - body;
    if (id === 'fmt ') {
      if (size < 16 || left < 16) throw new Error('a fmt chunk too short');
      let code = view.getUint16(body, true);
      // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID.
      if (code === WAVE_FORMAT_EXTENSIBLE && size >= 40 && left >= 26) code = view.getUint16(body + 24, true);
      format = { code, channels: view.getUint16(body + 2, true), rate: view.getUint32(body + 4, true), bits: view.getUint16(body + 14, true) };
    } else if (id === 'data') {
      if (!format) throw new Error('a data chunk before its fmt chunk');
      if (format.code !== WAVE_FORMAT_PCM || format.bits !== 16) {
        throw new Error(`not 16-bit integer PCM (format ${format.code}, ${format.bits} bits)`);
      }
      if (format.channels < 1 || format.rate < 1) throw new Error(`an impossible format (${format.channels} channels at ${format.rate} Hz)`);
      const toEnd = size > left || (size === 0 && streamed);
      const length = toEnd ? left : size;
      const frames = Math.floor(length / (2 * format.channels));
      const samples = new Int16Array(frames);
      for (let f = 0; f < frames; f++) {
        let sum = 0;
        for (let c = 0; c < format.channels; c++) sum += view.getInt16(body + (f * format.channels + c) * 2, true);
        samples[f] = Math.round(sum / format.channels);
      }
      return { rate: format.rate, channels: format.channels, samples };
    }
    // Chunks are word-aligned: an odd size is followed by a pad byte.
    at = body + size + (size % 2);
  }
  throw new Error(format ? 'no data chunk' : 'no fmt chunk');
}
