import { describe, expect, it } from 'vitest';
import { decodeWav, encodeWav, pcm16le } from './wav.ts';

// The WAV helper of the speech providers: the files sent to recognizers are
// what a strict reader expects, and the files speech servers answer (placeholder
// sizes while streaming, extra chunks, stereo, WAVE_FORMAT_EXTENSIBLE) read
// as the samples they hold.

/** A WAV file byte by byte: a fmt chunk, any chunks between, a data chunk. */
function wav(o: { format?: number; channels?: number; rate?: number; bits?: number; data: number[]; riffSize?: number; dataSize?: number; extra?: Buffer; fmtExtra?: Buffer }): Uint8Array {
  const bits = o.bits ?? 16;
  const channels = o.channels ?? 1;
  const rate = o.rate ?? 16_000;
  const data = Buffer.alloc(o.data.length * 2);
  o.data.forEach((s, i) => data.writeInt16LE(s, i * 2));
  const fmtBody = Buffer.alloc(16);
  fmtBody.writeUInt16LE(o.format ?? 1, 0);
  fmtBody.writeUInt16LE(channels, 2);
  fmtBody.writeUInt32LE(rate, 4);
  fmtBody.writeUInt32LE((rate * channels * bits) / 8, 8);
  fmtBody.writeUInt16LE((channels * bits) / 8, 12);
  fmtBody.writeUInt16LE(bits, 14);
  const fmt = Buffer.concat([fmtBody, o.fmtExtra ?? Buffer.alloc(0)]);
  const chunk = (id: string, body: Buffer, size = body.length) => {
    const h = Buffer.alloc(8);
    h.write(id, 0, 'ascii');
    h.writeUInt32LE(size, 4);
    return Buffer.concat([h, body]);
  };
  const body = Buffer.concat([Buffer.from('WAVE'), chunk('fmt ', fmt), o.extra ?? Buffer.alloc(0), chunk('data', data, o.dataSize)]);
  const head = Buffer.alloc(8);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(o.riffSize ?? body.length, 4);
  return new Uint8Array(Buffer.concat([head, body]));
}

describe('encodeWav', () => {
  it('writes the canonical 44-byte header of 8 kHz 16-bit mono PCM, then the samples little-endian', () => {
    const bytes = encodeWav(new Int16Array([0, 1, -1, 32767, -32768]));
    const b = Buffer.from(bytes);
    expect(b.length).toBe(44 + 10);
    expect(b.toString('ascii', 0, 4)).toBe('RIFF');
    expect(b.readUInt32LE(4)).toBe(b.length - 8);
    expect(b.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect([b.readUInt32LE(16), b.readUInt16LE(20), b.readUInt16LE(22), b.readUInt32LE(24), b.readUInt32LE(28), b.readUInt16LE(32), b.readUInt16LE(34)])
      .toEqual([16, 1, 1, 8000, 16000, 2, 16]);
    expect(b.toString('ascii', 36, 40)).toBe('data');
    expect(b.readUInt32LE(40)).toBe(10);
    expect([...b.subarray(44)]).toEqual([0x00, 0x00, 0x01, 0x00, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x80]);
  });

  it('round-trips through decodeWav, at 8 kHz or another rate', () => {
    const pcm = Int16Array.from({ length: 1234 }, (_, i) => Math.round(10_000 * Math.sin(i / 7)));
    expect(decodeWav(encodeWav(pcm))).toEqual({ rate: 8000, channels: 1, samples: pcm });
    expect(decodeWav(encodeWav(pcm, 16_000)).rate).toBe(16_000);
    expect(decodeWav(encodeWav(new Int16Array(0))).samples).toHaveLength(0);
  });

  it('pcm16le is the data chunk alone', () => {
    expect([...pcm16le(new Int16Array([258, -2]))]).toEqual([0x02, 0x01, 0xfe, 0xff]);
  });
});

describe('decodeWav', () => {
  it('mixes channels down to mono (the average of each frame)', () => {
    const out = decodeWav(wav({ channels: 2, rate: 22_050, data: [100, 300, -1000, 1000, 32767, 32767] }));
    expect(out.rate).toBe(22_050);
    expect(out.channels).toBe(2);
    expect([...out.samples]).toEqual([200, 0, 32767]);
  });

  it('reads a streamed header (0xFFFFFFFF sizes, as OpenAI writes) to the end of the file', () => {
    const out = decodeWav(wav({ rate: 24_000, data: [1, 2, 3, 4], riffSize: 0xffffffff, dataSize: 0xffffffff }));
    expect([...out.samples]).toEqual([1, 2, 3, 4]);
  });

  it('reads a zero data size in a streamed file (libsndfile before it closes) to the end too', () => {
    expect([...decodeWav(wav({ data: [5, 6], riffSize: 0, dataSize: 0 })).samples]).toEqual([5, 6]);
  });

  it('stops at the data size when the file says it, and drops a trailing half sample', () => {
    const file = Buffer.from(wav({ data: [7, 8, 9], dataSize: 4 }));
    expect([...decodeWav(new Uint8Array(file)).samples]).toEqual([7, 8]);
    expect([...decodeWav(wav({ data: [7, 8], dataSize: 3 })).samples]).toEqual([7]);
  });

  it('skips other chunks, an odd-sized one with its pad byte', () => {
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc'), Buffer.from([0])]);
    expect([...decodeWav(wav({ data: [42, -42], extra: list })).samples]).toEqual([42, -42]);
  });

  it('reads WAVE_FORMAT_EXTENSIBLE with a PCM sub-format', () => {
    // cbSize 22, valid bits, channel mask, then the sub-format GUID starting 01 00.
    const ext = Buffer.alloc(24);
    ext.writeUInt16LE(22, 0);
    ext.writeUInt16LE(16, 2);
    ext.writeUInt32LE(4, 4);
    ext.writeUInt16LE(1, 8);
    expect([...decodeWav(wav({ format: 0xfffe, data: [11, 12], fmtExtra: ext })).samples]).toEqual([11, 12]);
  });

  it('refuses what is not 16-bit integer PCM WAV', () => {
    expect(() => decodeWav(new Uint8Array(Buffer.from('ID3\u0004 an mp3')))).toThrow(/not a RIFF\/WAVE/);
    expect(() => decodeWav(wav({ format: 3, bits: 32, data: [0, 0] }))).toThrow(/not 16-bit integer PCM \(format 3, 32 bits\)/);
    expect(() => decodeWav(wav({ bits: 8, data: [0] }))).toThrow(/not 16-bit/);
    expect(() => decodeWav(new Uint8Array(Buffer.from(wav({ data: [1] })).subarray(0, 36)))).toThrow(/no data chunk/);
  });
});
