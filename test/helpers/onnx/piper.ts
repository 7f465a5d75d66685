import fs from 'node:fs';
import path from 'node:path';
import { Graph, FLOAT, INT64 } from './graph.ts';

// A Piper voice as rhasspy/piper-voices publishes one (voice.onnx, a VITS
// model without metadata, and voice.onnx.json, its settings and its phonemes'
// ids), made by the tests: no voice can be downloaded here. Its "VITS" is a
// table of sounds, one per phoneme id (a tone of the id's own pitch, 12 ms),
// read in the order of the ids sherpa-onnx's Piper phonemizer gives it: the
// audio path is the real one (eSpeak NG's phonemes, the ids, the model, the
// samples at 22050 Hz, the line's 8 kHz), and a text's speech lasts as long
// as its phonemes are many.

/** The phonemes eSpeak NG gives for the catalog's languages (Piper's own table has these and more). */
export const PHONEMES = ['_', '^', '$', ' ', '!', "'", '(', ')', ',', '-', '.', ':', ';', '?',
  'a', 'b', 'c', 'd', 'e', 'f', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z',
  'æ', 'ç', 'ð', 'ø', 'ħ', 'ŋ', 'œ', 'ɐ', 'ɑ', 'ɒ', 'ɔ', 'ə', 'ɚ', 'ɛ', 'ɜ', 'ɟ', 'ɡ', 'ɣ', 'ɪ', 'ɫ', 'ɬ', 'ɲ', 'ɹ', 'ɾ', 'ʁ',
  'ʃ', 'ʊ', 'ʋ', 'ʌ', 'ʎ', 'ʏ', 'ʒ', 'ʔ', 'ʲ', 'ˈ', 'ˌ', 'ː', 'β', 'θ', 'χ', 'ᵻ', '\u0303', '\u0327', '\u0361'];
export const SAMPLES_PER_ID = 256;
const RATE = 22050;

/** voice.onnx and voice.onnx.json of a test voice speaking `espeakVoice` (en-us, pt-br...), in `dir`; returns their paths. */
export function publishTestVoice(dir: string, o: { espeakVoice: string; locale: string; language: string }): { onnx: string; json: string } {
  fs.mkdirSync(dir, { recursive: true });
  const g = new Graph(7);
  const input = g.input('input', INT64, [1, 'phonemes']);
  g.input('input_lengths', INT64, [1]);
  g.input('scales', FLOAT, [3]);
  const table: number[] = [];
  for (let id = 0; id < PHONEMES.length; id++) {
    const hz = 120 + 10 * id;
    for (let i = 0; i < SAMPLES_PER_ID; i++) table.push(id < 3 ? 0 : 0.3 * Math.sin((2 * Math.PI * hz * i) / RATE));
  }
  const sounds = g.floats(table, [PHONEMES.length, SAMPLES_PER_ID]);
  g.rename(g.o('Reshape', [g.o('Gather', [sounds, input]), g.ints([1, 1, 1, -1])]), 'output');
  g.output('output', FLOAT, [1, 1, 1, 'time']);
  const files = { onnx: path.join(dir, 'voice.onnx'), json: path.join(dir, 'voice.onnx.json') };
  fs.writeFileSync(files.onnx, g.encode());
  fs.writeFileSync(files.json, JSON.stringify({
    audio: { sample_rate: RATE, quality: 'medium' }, espeak: { voice: o.espeakVoice }, inference: { noise_scale: 0.667, length_scale: 1, noise_w: 0.8 },
    phoneme_type: 'espeak', phoneme_map: {}, phoneme_id_map: Object.fromEntries([['\n', [999]], ...PHONEMES.map((p, i) => [p, [i]])]),
    num_symbols: PHONEMES.length, num_speakers: 1, speaker_id_map: {}, piper_version: '1.0.0',
    language: { code: o.locale.replace('-', '_'), family: o.locale.split('-')[0], name_english: o.language },
  }, null, 2));
  return files;
}
