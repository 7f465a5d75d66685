import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CATALOG, MODEL_NAME, sizeOf, type ModelEntry } from './catalog.ts';

// The models installed on this machine: TOLK_MODELS_DIR (default
// `.data/models`) holds a folder per model, named as the model, with its
// files and `model.json`, the catalog's entry as it was installed (what the
// engines read, and what `npx tolk models list` says of it). A folder without
// `model.json` is not a model (an install under way or broken).
//
// Besides them:
//   downloads/NAME/   files being downloaded (kept to be resumed), or copied
//                     in by hand to be checked and installed by `pull`;
//   .staging-*, .old-*, .removing-*   an install or a removal under way
//                     (renamed into place or away, so that a reader sees a
//                     model whole or not at all).

export const MANIFEST = 'model.json';
export const DOWNLOADS = 'downloads';

export type InstalledModel = ModelEntry & { dir: string };

/** The models installed in `dir`, by name; a folder whose model.json cannot be read is left out. */
export function installedModels(dir: string): InstalledModel[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: InstalledModel[] = [];
  for (const name of names.sort()) {
    if (!MODEL_NAME.test(name)) continue;
    const m = readManifest(path.join(dir, name));
    if (m && m.name === name) out.push({ ...m, dir: path.join(dir, name) });
  }
  return out;
}

/** The installed models an engine uses. */
export function modelsOf(dir: string, engine: ModelEntry['engine']): InstalledModel[] {
  return installedModels(dir).filter((m) => m.engine === engine);
}

function readManifest(folder: string): ModelEntry | null {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(folder, MANIFEST), 'utf8')) as ModelEntry;
    if (typeof m.name !== 'string' || !Array.isArray(m.files) || !Array.isArray(m.languages)) return null;
    return m;
  } catch {
    return null;
  }
}

export type ListedModel = {
  name: string;
  kind: ModelEntry['kind'];
  engine: ModelEntry['engine'];
  languages: string[];
  size_bytes: number;
  license: string;
  source: string;
  about: string;
  installed: boolean;
};

/** `npx tolk models list`: the catalog's models, installed or not, then those installed that it does not list. */
export function listModels(dir: string, catalog: readonly ModelEntry[] = CATALOG): ListedModel[] {
  const installed = new Map(installedModels(dir).map((m) => [m.name, m]));
  const row = (m: ModelEntry, on: boolean): ListedModel => ({
    name: m.name, kind: m.kind, engine: m.engine, languages: m.languages, size_bytes: sizeOf(m),
    license: m.license, source: m.source, about: m.about, installed: on,
  });
  return [
    ...catalog.map((m) => row(installed.get(m.name) ?? m, installed.has(m.name))),
    ...[...installed.values()].filter((m) => !catalog.some((c) => c.name === m.name)).map((m) => row(m, true)),
  ];
}

export class ModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelError';
  }
}

/** A name to a folder beside `dir`'s models that no reader takes for one (renamed into place or away). */
export function hiddenBeside(dir: string, what: 'staging' | 'old' | 'removing', name: string): string {
  return path.join(dir, `.${what}-${name}-${randomBytes(4).toString('hex')}`);
}

/** Removes an installed model: renamed away at once (the engines no longer see it), then deleted. */
export async function removeModel(dir: string, name: string): Promise<void> {
  const folder = path.join(dir, name);
  if (!MODEL_NAME.test(name) || !readManifest(folder)) {
    throw new ModelError(`no model named '${name}' is installed in ${dir}: \`npx tolk models list\` says which are`);
  }
  const away = hiddenBeside(dir, 'removing', name);
  await fs.promises.rename(folder, away);
  await fs.promises.rm(away, { recursive: true, force: true });
  await fs.promises.rm(path.join(dir, DOWNLOADS, name), { recursive: true, force: true });
}
