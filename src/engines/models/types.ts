// A model of the catalog (catalog.ts): where each of its files comes from,
// how big it is, its pinned SHA-256, and what its engine reads of it.

export type ModelFile = {
  /** Its path inside the model's folder once installed. */
  path: string;
  /** Where its publisher serves it. */
  url: string;
  /** Bytes downloaded (before gunzip). */
  size: number;
  /** SHA-256 of the bytes downloaded, lowercase hex. */
  sha256: string;
  /** Downloaded gzip-compressed: installed decompressed at `path`. */
  gunzip?: boolean;
};

export type ModelEntry = {
  /** What `npx tolk models pull` takes: lowercase letters, digits, `-`, `_` and `.`. */
  name: string;
  /** The engine list it serves: TOLK_RECOGNIZE, TOLK_TRANSLATE or TOLK_SPEECH_ENGINES (descriptor.ts, EngineKindName). */
  kind: 'recognize' | 'translate' | 'speak';
  /** The engine that uses it (whisper, bergamot, piper). */
  engine: 'whisper' | 'bergamot' | 'piper';
  /**
   * The languages it covers, as BCP 47 primary tags. A recognizer: the ones it
   * hears; a translation model: its pair, `[from, to]`; a voice: the one it speaks.
   */
  languages: string[];
  license: string;
  /** The page its publisher describes it on. */
  source: string;
  /** A few words a person choosing one reads (`npx tolk models list`). */
  about: string;
  files: ModelFile[];
  /** What the engine reads of it beyond its files (a whisper model's size class, a voice's sample rate). */
  settings?: Record<string, string | number | boolean>;
};

export const MODEL_NAME = /^[a-z0-9][a-z0-9._-]{0,79}$/;

/** The size of a model as downloaded. */
export function sizeOf(m: Pick<ModelEntry, 'files'>): number {
  return m.files.reduce((sum, f) => sum + f.size, 0);
}

