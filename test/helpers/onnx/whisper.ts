import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Graph, FLOAT, INT64 } from './graph.ts';
import { WHISPER_LANGUAGES } from '../../../src/engines/whisper/languages.ts';

// A Whisper model with random weights and the real architecture's shapes, in
// the form sherpa-onnx runs (its export, scripts/whisper/export-onnx.py: an
// encoder from the log-mel spectrogram to every decoder layer's cross-attention
// keys and values; a decoder from tokens, its self-attention cache, the cross
// keys and values and the offset, to the logits and the updated cache; the
// metadata the runtime reads; tokens.txt with a token's bytes in base64 per
// line). The layers are Whisper's: two convolutions and GELU, sinusoid-sized
// positions, pre-norm attention and MLP blocks, the logits as the token
// embedding transposed. Its transcripts are noise; loading it, decoding with
// it and its cost are those of the real model of that size.
//
// `int8`: every weight matrix quantized as onnxruntime's dynamic quantization
// leaves it (sherpa-onnx's *.int8.onnx), the embeddings kept in float.

export type WhisperSize = 'tiny' | 'base' | 'small';

export const WHISPER_SHAPES: Record<WhisperSize, { state: number; heads: number; layers: number }> = {
  tiny: { state: 384, heads: 6, layers: 4 },
  base: { state: 512, heads: 8, layers: 6 },
  small: { state: 768, heads: 12, layers: 12 },
};

const N_MELS = 80;
const AUDIO_CTX = 1500;
const TEXT_CTX = 448;
/** The multilingual vocabulary and its special tokens (openai/whisper's tokenizer). */
export const VOCAB = 51865;
export const EOT = 50257;
export const SOT = 50258;
const FIRST_LANGUAGE = 50259;
const TRANSLATE = 50358;
const TRANSCRIBE = 50359;
const SOT_LM = 50360;
const SOT_PREV = 50361;
const NO_SPEECH = 50362;
const NO_TIMESTAMPS = 50363;

export type RandomWhisper = { dir: string; encoder: string; decoder: string; tokens: string; languages: string[]; size: WhisperSize; int8: boolean };

/**
 * The model's three files in `dir` (made once per size and form, and kept:
 * tests and benchmarks share them). Returns their paths.
 */
export function randomWhisper(size: WhisperSize, o: { int8?: boolean; dir?: string; seed?: number } = {}): RandomWhisper {
  const int8 = o.int8 ?? true;
  const dir = o.dir ?? path.join(os.tmpdir(), 'tolk-test-models', `whisper-${size}${int8 ? '-int8' : ''}-random-${o.seed ?? 1}`);
  const files = { encoder: path.join(dir, 'encoder.onnx'), decoder: path.join(dir, 'decoder.onnx'), tokens: path.join(dir, 'tokens.txt') };
  const done = path.join(dir, '.complete');
  if (!fs.existsSync(done)) {
    fs.mkdirSync(dir, { recursive: true });
    const shape = WHISPER_SHAPES[size];
    writeAtomically(files.encoder, encoder(size, shape, int8, o.seed ?? 1));
    writeAtomically(files.decoder, decoder(shape, int8, (o.seed ?? 1) + 1));
    writeAtomically(files.tokens, Buffer.from(tokensText()));
    fs.writeFileSync(done, '');
  }
  return { dir, ...files, languages: [...WHISPER_LANGUAGES], size, int8 };
}

function writeAtomically(file: string, bytes: Uint8Array): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, bytes);
  fs.renameSync(tmp, file);
}

/** Token i is " w<i>" (printable: the runtime writes its text into JSON unescaped), the specials left out as in the real file. */
function tokensText(): string {
  const lines: string[] = [];
  for (let i = 0; i < EOT; i++) lines.push(`${Buffer.from(` w${i}`).toString('base64')} ${i}`);
  return `${lines.join('\n')}\n`;
}

type Shape = { state: number; heads: number; layers: number };

function encoder(size: WhisperSize, s: Shape, int8: boolean, seed: number): Uint8Array {
  const g = new Graph(seed);
  const d = s.state;
  const dh = d / s.heads;
  const mel = g.input('mel', FLOAT, [1, N_MELS, 'T']);
  let x = g.gelu(g.o('Conv', [mel, g.weight([d, N_MELS, 3], 0.05), g.weight([d], 0.01)], { pads: [1, 1], kernel_shape: [3] }));
  x = g.gelu(g.o('Conv', [x, g.weight([d, d, 3], 0.03), g.weight([d], 0.01)], { pads: [1, 1], strides: [2], kernel_shape: [3] }));
  x = g.o('Transpose', [x], { perm: [0, 2, 1] }); // [1, T/2, d]
  // Positions for the frames there are (sherpa-onnx feeds the audio's frames and 1000 more, up to 3000).
  const frames = g.o('Slice', [g.o('Shape', [x]), g.ints([1]), g.ints([2])]);
  x = g.o('Add', [x, g.o('Slice', [g.weight([AUDIO_CTX, d], 0.05), g.ints([0]), frames, g.ints([0])])]);
  for (let l = 0; l < s.layers; l++) {
    const h = g.layerNorm(x, d);
    const q = g.heads(g.linear(h, d, d, { int8 }), s.heads, dh);
    const k = g.heads(g.linear(h, d, d, { int8, bias: false }), s.heads, dh);
    const v = g.heads(g.linear(h, d, d, { int8 }), s.heads, dh);
    x = g.o('Add', [x, g.linear(g.merge(g.attend(q, k, v, dh), d), d, d, { int8 })]);
    x = g.o('Add', [x, mlp(g, g.layerNorm(x, d), d, int8)]);
  }
  x = g.layerNorm(x, d);
  // Every decoder layer's cross-attention keys and values, computed once per utterance: [layers, 1, T/2, d].
  const ks: string[] = [];
  const vs: string[] = [];
  for (let l = 0; l < s.layers; l++) {
    ks.push(g.o('Unsqueeze', [g.linear(x, d, d, { int8, bias: false }), g.ints([0])]));
    vs.push(g.o('Unsqueeze', [g.linear(x, d, d, { int8 }), g.ints([0])]));
  }
  g.rename(g.o('Concat', ks, { axis: 0 }), 'n_layer_cross_k');
  g.rename(g.o('Concat', vs, { axis: 0 }), 'n_layer_cross_v');
  g.output('n_layer_cross_k', FLOAT, [s.layers, 1, 'T2', d]);
  g.output('n_layer_cross_v', FLOAT, [s.layers, 1, 'T2', d]);
  const languages = WHISPER_LANGUAGES.map((_, i) => FIRST_LANGUAGE + i);
  return g.encode({
    metadata: {
      model_type: `whisper-${size}`, version: 1, maintainer: 'tolk-tests',
      n_mels: N_MELS, n_audio_ctx: AUDIO_CTX, n_audio_state: d, n_audio_head: s.heads, n_audio_layer: s.layers,
      n_vocab: VOCAB, n_text_ctx: TEXT_CTX, n_text_state: d, n_text_head: s.heads, n_text_layer: s.layers,
      sot_sequence: `${SOT},${FIRST_LANGUAGE},${TRANSCRIBE}`, all_language_tokens: languages.join(','), all_language_codes: WHISPER_LANGUAGES.join(','),
      sot: SOT, sot_index: 0, eot: EOT, blank_id: 220, is_multilingual: 1, no_speech: NO_SPEECH, non_speech_tokens: '1,2,7',
      transcribe: TRANSCRIBE, translate: TRANSLATE, sot_prev: SOT_PREV, sot_lm: SOT_LM, no_timestamps: NO_TIMESTAMPS,
    },
  });
}

function mlp(g: Graph, h: string, d: number, int8: boolean): string {
  return g.linear(g.gelu(g.linear(h, d, 4 * d, { int8 })), 4 * d, d, { int8 });
}

function decoder(s: Shape, int8: boolean, seed: number): Uint8Array {
  const g = new Graph(seed);
  const d = s.state;
  const dh = d / s.heads;
  const tokens = g.input('tokens', INT64, [1, 'n']);
  const selfK = g.input('in_n_layer_self_k_cache', FLOAT, [s.layers, 1, TEXT_CTX, d]);
  const selfV = g.input('in_n_layer_self_v_cache', FLOAT, [s.layers, 1, TEXT_CTX, d]);
  const crossK = g.input('n_layer_cross_k', FLOAT, [s.layers, 1, 'T2', d]);
  const crossV = g.input('n_layer_cross_v', FLOAT, [s.layers, 1, 'T2', d]);
  const offset = g.input('offset', INT64, [1]);
  const embedding = g.weight([VOCAB, d], 0.05);
  // The new tokens' positions: offset .. offset + n.
  const n = g.o('Slice', [g.o('Shape', [tokens]), g.ints([1]), g.ints([2])]); // [1]
  const end = g.o('Add', [offset, n]); // [1]
  const positions = g.o('Range', [g.o('Squeeze', [offset, g.ints([0])]), g.o('Squeeze', [end, g.ints([0])]), g.ints([1], [])]);
  let x = g.o('Add', [g.o('Gather', [embedding, tokens]), g.o('Unsqueeze', [g.o('Gather', [g.weight([TEXT_CTX, d], 0.05), positions]), g.ints([0])])]);
  const outK: string[] = [];
  const outV: string[] = [];
  for (let l = 0; l < s.layers; l++) {
    const layer = g.ints([l], []);
    // Self-attention over the cache with this call's keys and values written at offset.
    const h = g.layerNorm(x, d);
    const q = g.heads(g.linear(h, d, d, { int8 }), s.heads, dh);
    const k = g.linear(h, d, d, { int8, bias: false });
    const v = g.linear(h, d, d, { int8 });
    const cacheK = g.o('Gather', [selfK, layer]); // [1, ctx, d]
    const cacheV = g.o('Gather', [selfV, layer]);
    const newK = written(g, cacheK, k, offset, end);
    const newV = written(g, cacheV, v, offset, end);
    outK.push(g.o('Unsqueeze', [newK, g.ints([0])]));
    outV.push(g.o('Unsqueeze', [newV, g.ints([0])]));
    const seenK = g.heads(g.o('Slice', [newK, g.ints([0]), end, g.ints([1])]), s.heads, dh);
    const seenV = g.heads(g.o('Slice', [newV, g.ints([0]), end, g.ints([1])]), s.heads, dh);
    x = g.o('Add', [x, g.linear(g.merge(g.attend(q, seenK, seenV, dh), d), d, d, { int8 })]);
    // Cross-attention over the encoder's keys and values of this layer.
    const c = g.layerNorm(x, d);
    const cq = g.heads(g.linear(c, d, d, { int8 }), s.heads, dh);
    const ck = g.heads(g.o('Gather', [crossK, layer]), s.heads, dh);
    const cv = g.heads(g.o('Gather', [crossV, layer]), s.heads, dh);
    x = g.o('Add', [x, g.linear(g.merge(g.attend(cq, ck, cv, dh), d), d, d, { int8 })]);
    x = g.o('Add', [x, mlp(g, g.layerNorm(x, d), d, int8)]);
  }
  x = g.layerNorm(x, d);
  g.rename(g.o('MatMul', [x, g.o('Transpose', [embedding], { perm: [1, 0] })]), 'logits');
  g.rename(g.o('Concat', outK, { axis: 0 }), 'out_n_layer_self_k_cache');
  g.rename(g.o('Concat', outV, { axis: 0 }), 'out_n_layer_self_v_cache');
  g.output('logits', FLOAT, [1, 'n', VOCAB]);
  g.output('out_n_layer_self_k_cache', FLOAT, [s.layers, 1, TEXT_CTX, d]);
  g.output('out_n_layer_self_v_cache', FLOAT, [s.layers, 1, TEXT_CTX, d]);
  return g.encode({ metadata: { model_type: 'whisper-decoder', maintainer: 'tolk-tests' } });
}

/** cache [1, ctx, d] with rows offset..end replaced by rows [1, n, d]. */
function written(g: Graph, cache: string, rows: string, offset: string, end: string): string {
  const before = g.o('Slice', [cache, g.ints([0]), offset, g.ints([1])]);
  const after = g.o('Slice', [cache, end, g.ints([TEXT_CTX]), g.ints([1])]);
  return g.o('Concat', [before, rows, after], { axis: 1 });
}

/**
 * A random Whisper model installed in `modelsDir` as `npx tolk models pull`
 * leaves one (its files, linked to the generated ones, and model.json).
 */
export function installRandomWhisper(modelsDir: string, size: WhisperSize = 'tiny', o: { int8?: boolean; name?: string; languages?: string[] } = {}): string {
  const m = randomWhisper(size, { int8: o.int8 ?? true });
  const name = o.name ?? `whisper-${size}${m.int8 ? '-int8' : ''}`;
  const dir = path.join(modelsDir, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, from] of [['encoder.onnx', m.encoder], ['decoder.onnx', m.decoder], ['tokens.txt', m.tokens]] as const) {
    fs.rmSync(path.join(dir, file), { force: true });
    fs.symlinkSync(from, path.join(dir, file));
  }
  fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify({
    name, kind: 'recognize', engine: 'whisper', languages: o.languages ?? m.languages, license: 'MIT', source: 'generated by the tests (random weights)',
    about: `Whisper ${size}'s shapes, random weights`, files: [], settings: { size, int8: m.int8 },
  }));
  return name;
}
