import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// Bergamot, the translation engine of Firefox Translations (browsermt's build
// of Marian, MPL-2.0), as the npm package @browsermt/bergamot-translator ships
// it: an Emscripten build for browsers and their workers. Its glue has no
// Node path (it was built for web and worker only) and imports its matrix
// products from a `wasm_gemm` module that a browser may provide natively;
// here the WebAssembly instance is made by us, with the build's own fallback
// products linked as that module. Everything is passed as memory (the build
// has no file system). Used in a worker thread only (worker.ts).

const require = createRequire(import.meta.url);
const WORKER_DIR = path.join(path.dirname(require.resolve('@browsermt/bergamot-translator/package.json')), 'worker');

const GEMM_FALLBACKS: Record<string, string> = {
  int8_prepare_a: 'int8PrepareAFallback',
  int8_prepare_b: 'int8PrepareBFallback',
  int8_prepare_b_from_transposed: 'int8PrepareBFromTransposedFallback',
  int8_prepare_b_from_quantized_transposed: 'int8PrepareBFromQuantizedTransposedFallback',
  int8_prepare_bias: 'int8PrepareBiasFallback',
  int8_multiply_and_add_bias: 'int8MultiplyAndAddBiasFallback',
  int8_select_columns_of_b: 'int8SelectColumnsOfBFallback',
};

// The embind API (bergamot-translator wasm/bindings); typed loosely: it is the build's.
export type BergamotModule = any;
/** Node's WebAssembly (the project's TypeScript libraries do not declare it). */
export const Wasm = (globalThis as unknown as { WebAssembly: any }).WebAssembly;

/** The runtime, ready; `printErr` gets what it says (its reasons before an abort). */
export function loadBergamot(printErr: (line: string) => void): Promise<BergamotModule> {
  const wasmBinary = fs.readFileSync(path.join(WORKER_DIR, 'bergamot-translator-worker.wasm'));
  const glue = fs.readFileSync(path.join(WORKER_DIR, 'bergamot-translator-worker.js'), 'utf8');
  return new Promise((resolve, reject) => {
    const Module: BergamotModule = {
      print: () => {},
      printErr,
      onAbort: () => { Module.aborted = true; },
      instantiateWasm(info: Record<string, unknown>, accept: (i: unknown) => void) {
        const wasm_gemm: Record<string, (...a: unknown[]) => unknown> = {};
        for (const [name, fallback] of Object.entries(GEMM_FALLBACKS)) wasm_gemm[name] = (...a) => Module.asm[fallback](...a);
        Wasm.instantiate(wasmBinary, { ...info, wasm_gemm }).then(({ instance }: { instance: unknown }) => accept(instance), reject);
        return {};
      },
      onRuntimeInitialized: () => resolve(Module),
    };
    // The glue is a classic script: its top-level `var Module` is the parameter.
    // eslint-disable-next-line no-new-func
    new Function('Module', glue)(Module);
  });
}

/** How Firefox's translation worker configures a model (intgemm8 matrices with their activation scales). */
const CONFIG = [
  'beam-size: 1', 'normalize: 1.0', 'word-penalty: 0', 'cpu-threads: 0', 'gemm-precision: int8shiftAlphaAll',
  'skip-cost: true', 'alignment: soft', 'quiet: true', 'quiet-translation: true', 'max-length-break: 128',
  'mini-batch-words: 1024', 'workspace: 128', 'max-length-factor: 2.0',
].join('\n');

function aligned(M: BergamotModule, bytes: Uint8Array, alignment: number): BergamotModule {
  const mem = new M.AlignedMemory(bytes.byteLength, alignment);
  mem.getByteArrayView().set(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return mem;
}

/** A translation model from its files: the model (256-byte aligned, as the runtime requires), its shortlist and its vocabulary. */
export function loadModel(M: BergamotModule, files: { model: Uint8Array; shortlist: Uint8Array | null; vocab: Uint8Array }): BergamotModule {
  const model = aligned(M, files.model, 256);
  const shortlist = files.shortlist ? aligned(M, files.shortlist, 64) : new M.AlignedMemory(0, 64);
  const vocab = aligned(M, files.vocab, 64);
  const vocabs = new M.AlignedMemoryList();
  vocabs.push_back(vocab);
  const tm = new M.TranslationModel(CONFIG, model, shortlist, vocabs, null);
  // The model took their contents; the wrappers are left to free.
  for (const m of [model, shortlist, vocab, vocabs]) m.delete();
  return tm;
}

/** Translates texts with a model (blocks the thread while it does). */
export function translateWith(M: BergamotModule, service: BergamotModule, tm: BergamotModule, texts: string[]): string[] {
  const input = new M.VectorString();
  const options = new M.VectorResponseOptions();
  for (const t of texts) {
    input.push_back(t);
    options.push_back({ qualityScores: false, alignment: false, html: false });
  }
  try {
    const responses = service.translate(tm, input, options);
    const out: string[] = [];
    for (let i = 0; i < responses.size(); i++) {
      const r = responses.get(i);
      out.push(r.getTranslatedText());
      r.delete();
    }
    responses.delete();
    return out;
  } finally {
    input.delete();
    options.delete();
  }
}
