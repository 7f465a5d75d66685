import type { ModelEntry } from './catalog.ts';
import { ENGINES } from '../registry.ts';

/**
 * What the model's engine makes of its checked files before it is installed
 * (descriptor.ts, prepareModel: a voice's tokens written from its published
 * settings), in the folder being installed.
 */
export async function prepareModel(m: ModelEntry, folder: string): Promise<void> {
  await ENGINES.find((d) => d.name === m.engine)?.prepareModel?.(m, folder);
}
