// A Firefox Translations model with random weights and the real "tiny"
// student's architecture (Marian transformer: 6 encoder layers, a 2-layer
// SSRU decoder, 256 dimensions, tied embeddings of a 32,000-piece vocabulary),
// in the format Firefox's model.*.intgemm.alphas.bin files have (Marian's
// binary file: int8 matrices with their quantization multipliers, their
// activations' scales, the model's settings as `special:model.yml`), and a
// SentencePiece vocabulary: what @browsermt/bergamot-translator loads. Its
// translations are noise; loading and translating with it cost what a real
// tiny model costs (its parameter and byte counts are those mozilla's
// metadata.json gives for the tiny en→es model). Made by the tests: no model
// can be downloaded here.
//
// Formats: marian-dev src/common/binary.cpp (the file), common/types.h (type
// codes), models/transformer.h and rnn/cells.h (parameter names and shapes);
// sentencepiece src/sentencepiece_model.proto (the vocabulary).

const TYPE = { int8: 0x0101, float32: 0x0404, intgemm8: 0x4101 };

export const TINY: Record<string, unknown> = {
  'dec-cell': 'ssru', 'dec-cell-base-depth': 2, 'dec-cell-high-depth': 1, 'dec-depth': 2,
  'dim-emb': 256, 'dim-rnn': 1024, 'dim-vocabs': [32000, 32000], 'enc-depth': 6, 'enc-cell': 'gru', 'enc-type': 'bidirectional',
  'layer-normalization': false, 'right-left': false, 'tied-embeddings': false, 'tied-embeddings-all': true, 'tied-embeddings-src': false,
  'transformer-decoder-autoreg': 'rnn', 'transformer-dim-ffn': 1536, 'transformer-ffn-activation': 'relu', 'transformer-ffn-depth': 2,
  'transformer-heads': 8, 'transformer-no-projection': false, 'transformer-postprocess': 'dan', 'transformer-postprocess-emb': 'd',
  'transformer-preprocess': '', 'transformer-train-position-embeddings': false, type: 'transformer',
};

function yaml(cfg: Record<string, unknown>): string {
  return `${Object.entries(cfg).map(([k, v]) => {
    if (Array.isArray(v)) return v.length ? `${k}:\n${v.map((x) => `  - ${x}`).join('\n')}` : `${k}: []`;
    if (typeof v === 'string' && (v === '' || /[:#\s]/.test(v))) return `${k}: "${v}"`;
    return `${k}: ${v}`;
  }).join('\n')}\n`;
}

/** mulberry32: a seeded generator of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Param = { name: string; shape: [number, number]; kind: 'W' | 'b' | 'lns' | 'lnb' | 'emb' };

function parameters(cfg: Record<string, unknown>): Param[] {
  const d = cfg['dim-emb'] as number;
  const ffn = cfg['transformer-dim-ffn'] as number;
  const v = (cfg['dim-vocabs'] as number[])[1]!;
  const out: Param[] = [];
  const mat = (name: string, r: number, c: number) => out.push({ name, shape: [r, c], kind: 'W' });
  const vec = (name: string, c: number, kind: Param['kind'] = 'b') => out.push({ name, shape: [1, c], kind });
  const ln = (p: string) => { vec(`${p}_ln_scale`, d, 'lns'); vec(`${p}_ln_bias`, d, 'lnb'); };
  const attention = (p: string) => {
    for (const x of ['q', 'k', 'v']) { mat(`${p}_W${x}`, d, d); vec(`${p}_b${x}`, d); }
    mat(`${p}_Wo`, d, d); vec(`${p}_bo`, d); ln(`${p}_Wo`);
  };
  const feedForward = (p: string) => { mat(`${p}_W1`, d, ffn); vec(`${p}_b1`, ffn); mat(`${p}_W2`, ffn, d); vec(`${p}_b2`, d); ln(`${p}_ffn`); };
  out.push({ name: 'Wemb', shape: [v, d], kind: 'emb' });
  for (let i = 1; i <= (cfg['enc-depth'] as number); i++) { attention(`encoder_l${i}_self`); feedForward(`encoder_l${i}_ffn`); }
  for (let i = 1; i <= (cfg['dec-depth'] as number); i++) {
    const r = `decoder_l${i}_rnn`;
    mat(`${r}_W`, d, d); mat(`${r}_Wf`, d, d); vec(`${r}_bf`, d); ln(`${r}_ffn`);
    attention(`decoder_l${i}_context`);
    feedForward(`decoder_l${i}_ffn`);
  }
  vec('decoder_ff_logit_out_b', v);
  return out;
}

const f32 = (x: number) => { const b = Buffer.alloc(4); b.writeFloatLE(x); return b; };
const pad256 = (n: number) => Math.ceil(n / 256) * 256;

/** model.bin: the tiny architecture (or `config` over it), intgemm8 with activation scales, random weights. */
export function bergamotModel(o: { seed?: number; config?: Record<string, unknown> } = {}): Buffer {
  const cfg = { ...TINY, ...o.config };
  const rand = seeded(o.seed ?? 1234);
  const alpha = 8;
  const items: Array<{ name: string; type: number; shape: number[]; data: Buffer; noPad?: boolean }> = [];
  for (const p of parameters(cfg)) {
    const [r, c] = p.shape;
    const n = r * c;
    if (p.kind !== 'W' && p.kind !== 'emb') {
      const f = new Float32Array(n);
      if (p.kind === 'lns') f.fill(1);
      else if (p.kind === 'b') for (let i = 0; i < n; i++) f[i] = (rand() * 2 - 1) * 0.01;
      items.push({ name: p.name, type: TYPE.float32, shape: p.shape, data: Buffer.from(f.buffer) });
      continue;
    }
    const scale = p.kind === 'emb' ? Math.sqrt(6 / (1 + c)) : Math.sqrt(6 / (r + c));
    // int8 values, then the float multiplier that turns them back into the weights.
    const buf = Buffer.alloc(n + 4);
    for (let i = 0; i < n; i++) buf[i] = (Math.floor(rand() * 255) - 127) & 0xff;
    buf.writeFloatLE(127 / scale, n);
    items.push({ name: p.name, type: TYPE.intgemm8, shape: p.shape, data: buf });
    if (p.kind === 'W') items.push({ name: `${p.name}_QuantMultA`, type: TYPE.float32, shape: [1, 1], data: f32(127 / alpha) });
  }
  for (const name of ['Wemb_QuantMultA', 'none_QuantMultA']) items.push({ name, type: TYPE.float32, shape: [1, 1], data: f32(127 / alpha) });
  items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const settings = Buffer.from(`${yaml(cfg)}\0`, 'utf8');
  items.push({ name: 'special:model.yml', type: TYPE.int8, shape: [settings.length], data: settings, noPad: true });
  const u64 = (n: number) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
  const head: Buffer[] = [u64(1), u64(items.length)];
  const lengths = items.map((it) => (it.noPad ? it.data.length : pad256(it.data.length)));
  items.forEach((it, i) => head.push(u64(Buffer.byteLength(it.name) + 1), u64(it.type), u64(it.shape.length), u64(lengths[i]!)));
  for (const it of items) head.push(Buffer.from(`${it.name}\0`, 'utf8'));
  for (const it of items) {
    const s = Buffer.alloc(4 * it.shape.length);
    it.shape.forEach((x, j) => s.writeInt32LE(x, 4 * j));
    head.push(s);
  }
  const at = head.reduce((a, b) => a + b.length, 0);
  const offset = Math.floor((at + 8) / 256 + 1) * 256 - at - 8;
  head.push(u64(offset), Buffer.alloc(offset));
  return Buffer.concat([...head, ...items.map((it, i) => { const b = Buffer.alloc(lengths[i]!); it.data.copy(b); return b; })]);
}

function varint(n: number): Buffer {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}
const fVarint = (f: number, n: number) => Buffer.concat([varint((f << 3) | 0), varint(n)]);
const fBytes = (f: number, b: Buffer | string) => { const buf = typeof b === 'string' ? Buffer.from(b, 'utf8') : b; return Buffer.concat([varint((f << 3) | 2), varint(buf.length), buf]); };
const fFloat = (f: number, x: number) => Buffer.concat([varint((f << 3) | 5), f32(x)]);

/** vocab.spm: a SentencePiece model of `size` pieces (`</s>` 0 and `<unk>` 1, as Marian has them; every ASCII text encodable). */
export function bergamotVocab(size = 32000): Buffer {
  const NORMAL = 1;
  const pieces: Array<{ piece: string; score: number; type: number }> = [{ piece: '</s>', score: 0, type: 3 }, { piece: '<unk>', score: 0, type: 2 }];
  const seen = new Set(pieces.map((p) => p.piece));
  const add = (s: string, score: number) => {
    if (pieces.length < size && !seen.has(s)) { seen.add(s); pieces.push({ piece: s, score, type: NORMAL }); }
  };
  'the of and to in is that for it as was with be by on not this are or from at but have an you were one all we can hello world'.split(' ').forEach((w, i) => add(`▁${w}`, -2 - i * 0.001));
  const chars: string[] = [];
  for (let c = 0x21; c < 0x7f; c++) chars.push(String.fromCharCode(c));
  for (const c of 'áéíóúñüçàèìòùâêîôûäëïöÿßøåæœ¿¡«»€') chars.push(c);
  add('▁', -3);
  chars.forEach((c) => add(c, -10));
  chars.forEach((c) => add(`▁${c}`, -8));
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (const a of letters) for (const b of letters) { add(a + b, -7); add(`▁${a}${b}`, -6); }
  for (const a of letters) for (const b of letters) for (const c of letters) { add(a + b + c, -6.5); add(`▁${a}${b}${c}`, -5.5); }
  for (let i = 0; pieces.length < size; i++) add(`▁x${i}`, -20);
  const parts = pieces.map((p) => fBytes(1, Buffer.concat([fBytes(1, p.piece), fFloat(2, p.score), fVarint(3, p.type)])));
  parts.push(fBytes(2, Buffer.concat([fVarint(3, 1), fVarint(4, pieces.length), fVarint(40, 1), fVarint(41, -1), fVarint(42, 0), fVarint(43, -1)])));
  parts.push(fBytes(3, Buffer.concat([fBytes(1, 'identity'), fVarint(3, 1), fVarint(4, 1), fVarint(5, 1)])));
  return Buffer.concat(parts);
}
