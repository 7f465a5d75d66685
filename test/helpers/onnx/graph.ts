import { createRequire } from 'node:module';

// Builds ONNX models in the tests and the benchmarks: a graph of standard
// operators with weights drawn at random (a seeded generator, so a model is
// the same at every run), written with the ONNX protobuf schema (onnx-proto).
// Models of a real architecture's shapes cost what the real ones cost to
// load and run; their answers are noise, which is what a test of the loading,
// decoding and audio paths needs, and all it may have here (no model
// downloads).

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto') as { onnx: any };

export const FLOAT = 1;
export const UINT8 = 2;
export const INT8 = 3;
export const INT32 = 6;
export const INT64 = 7;
export const BOOL = 9;

type Attr = number | number[] | string | { tensor: unknown } | { floats: number[] };
type Dim = number | string;

/** A seeded generator of uniform numbers in [0, 1) (xorshift32). */
export function seeded(seed = 1): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

export class Graph {
  private readonly nodes: unknown[] = [];
  private readonly initializers: unknown[] = [];
  private readonly inputs: unknown[] = [];
  private readonly outputs: unknown[] = [];
  private n = 0;
  private readonly random: () => number;
  /** Parameters drawn so far (what the model weighs). */
  parameters = 0;

  constructor(seed = 1) {
    this.random = seeded(seed);
  }

  private fresh(hint: string): string {
    return `${hint}_${this.n++}`;
  }

  input(name: string, elemType: number, dims: Dim[]): string {
    this.inputs.push(valueInfo(name, elemType, dims));
    return name;
  }

  output(name: string, elemType: number, dims: Dim[]): void {
    this.outputs.push(valueInfo(name, elemType, dims));
  }

  /** A float weight of `shape`, uniform in ±scale. */
  weight(shape: number[], scale = 0.05, hint = 'w'): string {
    const count = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = (this.random() * 2 - 1) * scale;
    this.parameters += count;
    return this.tensor(hint, FLOAT, shape, new Uint8Array(data.buffer));
  }

  /** An int8 weight of `shape` (a quantized matrix), uniform over its range. */
  weightInt8(shape: number[], hint = 'q'): string {
    const count = shape.reduce((a, b) => a * b, 1);
    const data = new Int8Array(count);
    for (let i = 0; i < count; i++) data[i] = Math.floor(this.random() * 255) - 127;
    this.parameters += count;
    return this.tensor(hint, INT8, shape, new Uint8Array(data.buffer));
  }

  floats(values: number[], shape: number[] = [values.length], hint = 'c'): string {
    return this.tensor(hint, FLOAT, shape, new Uint8Array(new Float32Array(values).buffer));
  }

  ints(values: number[], shape: number[] = [values.length], hint = 'i'): string {
    return this.tensor(hint, INT64, shape, new Uint8Array(new BigInt64Array(values.map(BigInt)).buffer));
  }

  int8s(values: number[], shape: number[] = [values.length], hint = 'z'): string {
    return this.tensor(hint, INT8, shape, new Uint8Array(new Int8Array(values).buffer));
  }

  private tensor(hint: string, dataType: number, dims: number[], raw: Uint8Array): string {
    const name = this.fresh(hint);
    this.initializers.push(onnx.TensorProto.create({ name, dataType, dims, rawData: raw }));
    return name;
  }

  /** One node; its output names (one unless `outputs` says more). */
  op(type: string, inputs: string[], attrs: Record<string, Attr> = {}, outputs = 1, domain = ''): string[] {
    const names = Array.from({ length: outputs }, () => this.fresh(type.toLowerCase()));
    this.nodes.push(onnx.NodeProto.create({
      opType: type, domain, input: inputs, output: names, name: this.fresh(`n_${type}`),
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    }));
    return names;
  }

  /** A node with one output. */
  o(type: string, inputs: string[], attrs: Record<string, Attr> = {}): string {
    return this.op(type, inputs, attrs)[0]!;
  }

  /** Gives an existing value a graph output's name. */
  rename(value: string, name: string): void {
    this.nodes.push(onnx.NodeProto.create({ opType: 'Identity', input: [value], output: [name], name: this.fresh('n_out') }));
  }

  // Layers.

  /** x @ W + b, W of [din, dout]; `int8`: the weight quantized, as onnxruntime's dynamic quantization leaves a MatMul. */
  linear(x: string, din: number, dout: number, o: { bias?: boolean; int8?: boolean } = {}): string {
    let y: string;
    if (o.int8) {
      const [q, scale, zero] = this.op('DynamicQuantizeLinear', [x], {}, 3);
      const w = this.weightInt8([din, dout]);
      // The weight's zero point: int8 weights, symmetric (uint8 activations against int8 weights, as quantize_dynamic writes).
      const acc = this.o('MatMulInteger', [q!, w, zero!, this.int8s([0])]);
      const wscale = this.floats([0.05 / 127]);
      y = this.o('Mul', [this.o('Cast', [acc], { to: FLOAT }), this.o('Mul', [scale!, wscale])]);
    } else {
      y = this.o('MatMul', [x, this.weight([din, dout])]);
    }
    return o.bias === false ? y : this.o('Add', [y, this.weight([dout], 0.01)]);
  }

  layerNorm(x: string, d: number): string {
    return this.o('LayerNormalization', [x, this.floats(new Array(d).fill(1)), this.floats(new Array(d).fill(0))], { axis: -1, epsilon: 1e-5 });
  }

  /** GELU, as 0.5·x·(1 + erf(x/√2)). */
  gelu(x: string): string {
    const erf = this.o('Erf', [this.o('Div', [x, this.floats([Math.SQRT2], [])])]);
    return this.o('Mul', [this.o('Mul', [x, this.o('Add', [erf, this.floats([1], [])])]), this.floats([0.5], [])]);
  }

  /** [B, T, heads·dh] → [B, heads, T, dh]. */
  heads(x: string, heads: number, dh: number): string {
    return this.o('Transpose', [this.o('Reshape', [x, this.ints([0, 0, heads, dh])])], { perm: [0, 2, 1, 3] });
  }

  /** [B, heads, T, dh] → [B, T, heads·dh]. */
  merge(x: string, d: number): string {
    return this.o('Reshape', [this.o('Transpose', [x], { perm: [0, 2, 1, 3] }), this.ints([0, 0, d])]);
  }

  /** softmax(q·kᵀ/√dh (+ mask))·v over [B, heads, T, dh] tensors. */
  attend(q: string, k: string, v: string, dh: number, mask?: string): string {
    let scores = this.o('Div', [this.o('MatMul', [q, this.o('Transpose', [k], { perm: [0, 1, 3, 2] })]), this.floats([Math.sqrt(dh)], [])]);
    if (mask) scores = this.o('Add', [scores, mask]);
    return this.o('MatMul', [this.o('Softmax', [scores], { axis: -1 }), v]);
  }

  /** The model, serialized. */
  encode(o: { metadata?: Record<string, string | number>; opset?: number; producer?: string } = {}): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: o.producer ?? 'tolk-tests',
      opsetImport: [{ domain: '', version: o.opset ?? 17 }],
      graph: onnx.GraphProto.create({ name: 'g', node: this.nodes, initializer: this.initializers, input: this.inputs, output: this.outputs }),
      metadataProps: Object.entries(o.metadata ?? {}).map(([key, value]) => ({ key, value: String(value) })),
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

function valueInfo(name: string, elemType: number, dims: Dim[]): unknown {
  return onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } },
  });
}

function attribute(name: string, v: Attr): unknown {
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? { name, type: 2, i: v } : { name, type: 1, f: v };
  if (typeof v === 'string') return { name, type: 3, s: new TextEncoder().encode(v) };
  if (Array.isArray(v)) return { name, type: 7, ints: v };
  if ('floats' in v) return { name, type: 6, floats: v.floats };
  return { name, type: 4, t: v.tensor };
}
