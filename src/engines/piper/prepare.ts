import fs from 'node:fs';
import path from 'node:path';

// What sherpa-onnx reads of a Piper voice beside the voice as published
// (voice.onnx and its settings, voice.onnx.json): the phonemes' ids in
// tokens.txt, a `symbol id` a line, and the voice's settings as the ONNX
// model's metadata (sample_rate, n_speakers, language, the eSpeak NG voice
// that phonemizes its text, and comment=piper, which selects Piper's
// phonemizer). As sherpa-onnx's own scripts/piper/add_meta_data.py does,
// written at install (the published file's SHA-256 was checked before).
//
// The metadata is appended to the model's bytes: an ONNX file is one
// protobuf ModelProto, and a repeated field (metadata_props, field 14)
// written after its end is read as part of it.

type PiperSettings = {
  audio: { sample_rate: number };
  espeak: { voice: string };
  num_speakers: number;
  phoneme_id_map: Record<string, number[]>;
  language?: { name_english?: string; code?: string };
};

export async function preparePiperVoice(folder: string): Promise<void> {
  const settings = JSON.parse(await fs.promises.readFile(path.join(folder, 'voice.onnx.json'), 'utf8')) as PiperSettings;
  // One code point a symbol (sherpa-onnx ends its process on others), each once; the newline left out, as Piper's own export does.
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const [symbol, ids] of Object.entries(settings.phoneme_id_map)) {
    if (symbol === '\n' || [...symbol].length !== 1 || seen.has(symbol) || ids.length === 0) continue;
    seen.add(symbol);
    lines.push(`${symbol} ${ids[0]}`);
  }
  for (const needed of ['_', '^', '$']) if (!seen.has(needed)) throw new Error(`the voice's phonemes lack '${needed}', which Piper's phonemizer needs`);
  await fs.promises.writeFile(path.join(folder, 'tokens.txt'), `${lines.join('\n')}\n`);
  const metadata: Record<string, string> = {
    model_type: 'vits', comment: 'piper', version: '1', has_espeak: '1',
    language: settings.language?.name_english ?? settings.language?.code ?? 'unknown',
    voice: settings.espeak.voice, n_speakers: String(settings.num_speakers), sample_rate: String(settings.audio.sample_rate),
  };
  await fs.promises.appendFile(path.join(folder, 'voice.onnx'), metadataProps(metadata));
}

/** ModelProto.metadata_props entries (field 14: StringStringEntryProto { key = 1; value = 2 }), encoded. */
export function metadataProps(entries: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(entries)) {
    const entry = Buffer.concat([field(1, Buffer.from(key)), field(2, Buffer.from(value))]);
    parts.push(field(14, entry));
  }
  return Buffer.concat(parts);
}

function field(n: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint((n << 3) | 2), varint(bytes.length), bytes]);
}

function varint(v: number): Buffer {
  const out: number[] = [];
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}
