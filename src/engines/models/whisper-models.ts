import { WHISPER_LANGUAGES } from '../whisper/languages.ts';
import type { ModelEntry, ModelFile } from './types.ts';

// Whisper (OpenAI, MIT) as sherpa-onnx exports it to ONNX (an encoder, a
// decoder and the tokens; the int8 forms quantized by onnxruntime), from
// Hugging Face at the revisions pinned here. Installed as encoder.onnx,
// decoder.onnx and tokens.txt (engines/whisper reads those names). Left
// out: small in float32 (1 GB, and too slow for a conversation on a CPU),
// medium and large (the same, more so).

function whisperModel(o: { name: string; size: 'tiny' | 'base' | 'small'; int8: boolean; multilingual: boolean; source: string; files: ModelFile[] }): ModelEntry {
  const what = `Whisper ${o.size}${o.multilingual ? '' : ' (English only)'}${o.int8 ? ', int8' : ''}`;
  return {
    name: o.name, kind: 'recognize', engine: 'whisper',
    languages: o.multilingual ? [...WHISPER_LANGUAGES].map((l) => (l === 'jw' ? 'jv' : l)) : ['en'],
    license: 'MIT', source: o.source,
    about: `${what}: speech recognition${o.multilingual ? ' in 99 languages, and which one is spoken' : ''} (sherpa-onnx's ONNX export)`,
    files: o.files, settings: { size: o.size, int8: o.int8 },
  };
}

export const WHISPER_MODELS: readonly ModelEntry[] = [
  whisperModel({
    name: 'whisper-tiny-int8', size: 'tiny', int8: true, multilingual: true, source: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny',
    files: [
      { path: 'encoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny/resolve/65176e2deb88badc814a94058666cadccc29b61c/tiny-encoder.int8.onnx', size: 12937772, sha256: 'd24fb083ae3b1041fc24e97971d60e280c9342201fbb67b0ab428a8b4a51a434' },
      { path: 'decoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny/resolve/65176e2deb88badc814a94058666cadccc29b61c/tiny-decoder.int8.onnx', size: 89855401, sha256: 'd2fece8dd42771f1df975c6c0445770d0c292bf7547c2cae04a6c0cc57540925' },
      { path: 'tokens.txt', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny/resolve/65176e2deb88badc814a94058666cadccc29b61c/tiny-tokens.txt', size: 816730, sha256: 'b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126' },
    ],
  }),
  whisperModel({
    name: 'whisper-tiny', size: 'tiny', int8: false, multilingual: true, source: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny',
    files: [
      { path: 'encoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny/resolve/65176e2deb88badc814a94058666cadccc29b61c/tiny-encoder.onnx', size: 37647080, sha256: '42c1d4cbf889632ba21ab6f0d4064c80209755f265ce5cd630db4a6793e7089c' },
      { path: 'decoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny/resolve/65176e2deb88badc814a94058666cadccc29b61c/tiny-decoder.onnx', size: 114505801, sha256: 'e144c07dc6b55cece24392811f2d934b97013811f5e677d1315d341a0a74a25d' },
      { path: 'tokens.txt', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny/resolve/65176e2deb88badc814a94058666cadccc29b61c/tiny-tokens.txt', size: 816730, sha256: 'b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126' },
    ],
  }),
  whisperModel({
    name: 'whisper-base-int8', size: 'base', int8: true, multilingual: true, source: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base',
    files: [
      { path: 'encoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base/resolve/bb53ee204431c90d314c1cc08d28d23e5b7927cc/base-encoder.int8.onnx', size: 29120534, sha256: '0b8fb1304b6109976038efff5ace81720e00386f3ff6b54ee8c75291ca0a1e11' },
      { path: 'decoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base/resolve/bb53ee204431c90d314c1cc08d28d23e5b7927cc/base-decoder.int8.onnx', size: 130672026, sha256: '9759d217388a01b3a4c7c15533201067b48ae819c4daafc8624e64b9409dc02d' },
      { path: 'tokens.txt', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base/resolve/bb53ee204431c90d314c1cc08d28d23e5b7927cc/base-tokens.txt', size: 816730, sha256: 'b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126' },
    ],
  }),
  whisperModel({
    name: 'whisper-base', size: 'base', int8: false, multilingual: true, source: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base',
    files: [
      { path: 'encoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base/resolve/bb53ee204431c90d314c1cc08d28d23e5b7927cc/base-encoder.onnx', size: 95087154, sha256: '5a6b87cb313993f6c9fefec9e7027556f6cb30becddf49655bee36c50ecc12d7' },
      { path: 'decoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base/resolve/bb53ee204431c90d314c1cc08d28d23e5b7927cc/base-decoder.onnx', size: 196548998, sha256: '8a12c3f6ad65bb5b86d7e6eccc302378f20f9fb2df6cb10747c62895da7ac194' },
      { path: 'tokens.txt', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base/resolve/bb53ee204431c90d314c1cc08d28d23e5b7927cc/base-tokens.txt', size: 816730, sha256: 'b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126' },
    ],
  }),
  whisperModel({
    name: 'whisper-small-int8', size: 'small', int8: true, multilingual: true, source: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-small',
    files: [
      { path: 'encoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-small/resolve/8f3c18b358db4d1f2fc1eae49d75cd20989e4309/small-encoder.int8.onnx', size: 112442483, sha256: '4cbe7b22fa9026b843b60a68640c747de05bafb1a11b57edc0e66c232d9f33a9' },
      { path: 'decoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-small/resolve/8f3c18b358db4d1f2fc1eae49d75cd20989e4309/small-decoder.int8.onnx', size: 262226114, sha256: 'acad50b5c782696e91b55914cc5ab4f756f1532f76e22aa6fc615f39fb69a8ee' },
      { path: 'tokens.txt', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-small/resolve/8f3c18b358db4d1f2fc1eae49d75cd20989e4309/small-tokens.txt', size: 816730, sha256: 'b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126' },
    ],
  }),
  whisperModel({
    name: 'whisper-tiny.en-int8', size: 'tiny', int8: true, multilingual: false, source: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny.en',
    files: [
      { path: 'encoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny.en/resolve/d026532c022fa99fd789d6b32446a1df7b6bfc43/tiny.en-encoder.int8.onnx', size: 12937772, sha256: '0ce578b827c94a961aacb8fa14b02f096504b337e5c94be37c36238cbe3e8bc6' },
      { path: 'decoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny.en/resolve/d026532c022fa99fd789d6b32446a1df7b6bfc43/tiny.en-decoder.int8.onnx', size: 89853865, sha256: '06c0e6ff6348d427e51839219d1c886c18cfdf411e629e33f5e1679bff9c1527' },
      { path: 'tokens.txt', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny.en/resolve/d026532c022fa99fd789d6b32446a1df7b6bfc43/tiny.en-tokens.txt', size: 835554, sha256: '306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930' },
    ],
  }),
  whisperModel({
    name: 'whisper-base.en-int8', size: 'base', int8: true, multilingual: false, source: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base.en',
    files: [
      { path: 'encoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base.en/resolve/59eea950fc76df2453efb57e6c0fd334548e8ffe/base.en-encoder.int8.onnx', size: 29120534, sha256: 'ef6b936f4c9b1d90a3b68634b60c4ed8576b26172b33c2535ec0e933c9edb823' },
      { path: 'decoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base.en/resolve/59eea950fc76df2453efb57e6c0fd334548e8ffe/base.en-decoder.int8.onnx', size: 130669978, sha256: 'f7162ad6db2dbef16cfaeaa7f945b9d7dd9c1b8d472f6aca82f2273d185e4d41' },
      { path: 'tokens.txt', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-base.en/resolve/59eea950fc76df2453efb57e6c0fd334548e8ffe/base.en-tokens.txt', size: 835554, sha256: '306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930' },
    ],
  }),
  whisperModel({
    name: 'whisper-small.en-int8', size: 'small', int8: true, multilingual: false, source: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-small.en',
    files: [
      { path: 'encoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-small.en/resolve/d9533f69affd85061aee349af7fea5cb2996dbbe/small.en-encoder.int8.onnx', size: 112442483, sha256: '8bdac288f369aa94ee2194059238c465ed82ea9d47ee8fa4a8c0a891873e462f' },
      { path: 'decoder.onnx', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-small.en/resolve/d9533f69affd85061aee349af7fea5cb2996dbbe/small.en-decoder.int8.onnx', size: 262223042, sha256: '710ccf890e10f3faa15f51ec346081a2723c9f3adb6e4da81c6573a5a6f877fb' },
      { path: 'tokens.txt', url: 'https://huggingface.co/csukuangfj/sherpa-onnx-whisper-small.en/resolve/d9533f69affd85061aee349af7fea5cb2996dbbe/small.en-tokens.txt', size: 835554, sha256: '306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930' },
    ],
  }),
];
