import type { ModelEntry } from './types.ts';
import { BERGAMOT_MODELS } from './bergamot-models.ts';
import { PIPER_VOICES } from './piper-models.ts';
import { WHISPER_MODELS } from './whisper-models.ts';

export { MODEL_NAME, sizeOf, type ModelEntry, type ModelFile } from './types.ts';

// The models `npx tolk models pull` can install (operator.md, Models): each
// one a folder of files under TOLK_MODELS_DIR, used by its engine without
// configuration once installed. An entry says where every file comes from
// (the address its publisher serves it at), how big it is and its SHA-256,
// pinned here: a file that does not hash to it is never installed.
//
// The SHA-256 values are the publishers' own: the Git LFS object ids of the
// files in the repositories that publish them (a Hugging Face or GitHub
// repository stores each large file under its SHA-256, and serves it by that
// id at a pinned revision). sources.md beside this file says where each was
// read and how sure it is.

export const CATALOG: readonly ModelEntry[] = [...WHISPER_MODELS, ...BERGAMOT_MODELS, ...PIPER_VOICES];
