import { inject } from 'vitest';
import type { Config } from '../../src/config.ts';

/**
 * The address of the run's Apertium server (global-setup.ts), for tests that
 * translate for real. Apertium missing is a failure, never a skip: .ci/run
 * installs apertium-apy and its pairs from Debian.
 */
export function apertiumUrl(): string {
  const url = inject('apertiumUrl');
  if (!url) {
    throw new Error('apertium-apy is not installed: install Debian\'s apertium-apy, apertium-eng-spa, apertium-es-pt, apertium-fr-es and apertium-spa-ita (.ci/run does); these tests translate with it');
  }
  return url;
}

/** A test app's configuration with Apertium as its translation engine. */
export function withApertium(): Partial<Config> {
  return { translate: [{ name: 'apertium', url: apertiumUrl() }] };
}
