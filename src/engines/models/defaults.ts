import type { EngineKindName } from '../descriptor.ts';
import { engineOf } from '../registry.ts';
import { installedModels } from './store.ts';

// The engine lists an operator left unset begin with the offline engines whose
// models are installed (operator.md, Models): each installed model's kind and
// engine, as its model.json says, kept where the registry knows that engine
// for that kind. Read once, at the configuration's load: a model pulled later
// is used from the next start.

/** The engines of each kind an installed model serves, in the registry's terms. */
export function installedEngines(dir: string): Record<EngineKindName, string[]> {
  const out: Record<EngineKindName, string[]> = { translate: [], recognize: [], speak: [] };
  for (const m of installedModels(dir)) {
    if (engineOf(m.kind, m.engine) && !out[m.kind].includes(m.engine)) out[m.kind].push(m.engine);
  }
  return out;
}

/** `names` first, then the list's own entries without them. */
export function offlineFirst<T>(names: readonly string[], list: readonly T[], nameOf: (x: T) => string, make: (name: string) => T): T[] {
  return [...names.map(make), ...list.filter((x) => !names.includes(nameOf(x)))];
}
