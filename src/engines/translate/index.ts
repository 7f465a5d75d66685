import path from 'node:path';
import type { Config } from '../../config.ts';
import type { RunningServer } from '../descriptor.ts';
import { createTranslationEngine, ownServerOf } from '../registry.ts';
import { simulatedEngine } from '../sim/index.ts';
import { markUntranslated } from '../sim/phrasebook.ts';
import { TranslationChain, type ChainOptions } from './chain.ts';
import type { TranslationEngine } from './engine.ts';

// The service's translation: TOLK_TRANSLATE's engines (operator.md, Engines)
// built, loaded and put in a chain (chain.ts). Engines that do not answer
// at start cover nothing until a later load (every RELOAD_MS) succeeds; the
// server starts anyway and says so in the log. An entry without a URL of an
// engine that runs its own server (descriptor.ts, ownServer: apertium's
// apertium-apy) has it run first, stopped by close(): one that dies is
// started again (supervisor.ts), and the engine asks the new one (its address
// read at each request); meanwhile the engine's breaker stays open (what it
// would translate passes untranslated and flagged, /readyz says it is down),
// and it closes the moment the new one answers.

const RELOAD_MS = 30_000;
const LOAD_TIMEOUT_MS = 10_000;

type Log = { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };

export type Translation = {
  /** TOLK_TRANSLATE's engines: live mode's chain. */
  chain: TranslationChain;
  /** Test mode's: the simulated translator first (the phrasebook's lines), then the same engines, with the same breakers. */
  testChain: TranslationChain;
  engines: readonly TranslationEngine[];
  /** How long a reader waits for a translation another reader is making (and when a claim counts as abandoned). */
  waitMs: number;
  /** The engine that translates from → to now (its name), null when none covers it. */
  engineOf(from: string, to: string): string | null;
  /** Which engines loaded (know what they cover). */
  loaded: ReadonlySet<TranslationEngine>;
  close(): Promise<void>;
};

/** An engine of TOLK_TRANSLATE, made by its folder (engines/registry.ts), with where the server this process runs for it answers, when it runs one. */
export function makeEngine(e: Config['translate'][number], config: Pick<Config, 'engineKeys'> & Partial<Pick<Config, 'modelsDir'>>, ownUrl?: () => string): TranslationEngine {
  return createTranslationEngine(e, { engineKeys: config.engineKeys, modelsDir: config.modelsDir ?? path.resolve('.data', 'models'), ...(ownUrl ? { ownUrl } : {}) });
}

/** Loads an engine (what it covers) within LOAD_TIMEOUT_MS; false when it did not answer. */
export async function loadEngine(e: TranslationEngine): Promise<boolean> {
  try {
    await e.load(AbortSignal.timeout(LOAD_TIMEOUT_MS));
    return true;
  } catch {
    return false;
  }
}

/** A server this process runs for an engine (ownServer), and the engines that ask it once made; null: it did not start. */
type Owned = { server: RunningServer; engines: TranslationEngine[] } | null;

export async function startTranslation(config: Pick<Config, 'translate' | 'translateTimeoutMs' | 'engineKeys'> & Partial<Pick<Config, 'port'>>, log: Log, o: Pick<ChainOptions, 'now'> = {}): Promise<Translation> {
  // One server per engine, whatever the number of its entries without a URL, started in the list's order.
  const owned = new Map<string, Owned>();
  // The chain, once made: a server's death holds its engines' breakers in it.
  let live: TranslationChain | undefined;
  for (const spec of config.translate) {
    const own = ownServerOf(spec);
    if (!own || owned.has(spec.name)) continue;
    const users: TranslationEngine[] = [];
    try {
      const server = await own.supervise({
        // Never on the API's own port, which the server binds once this is done.
        avoidPorts: config.port ? [config.port] : [],
        log,
        // Down: left alone until it is back (no request waits on a dead address meanwhile).
        onDown: () => { for (const e of users) live?.breakers.get(e)?.hold(`${own.what} died`); },
        // Back: what it covers read again; then its breaker closes (supervisor.ts).
        onUp: async () => { await Promise.all(users.map(load)); },
      });
      owned.set(spec.name, { server, engines: users });
    } catch (err) {
      // The server starts anyway, without it: what it would have translated passes untranslated and flagged.
      log.warn({ engine: spec.name }, `translation engine ${spec.name} left out: ${(err as Error).message}`);
      owned.set(spec.name, null);
    }
  }
  const ownOf = (spec: Config['translate'][number]): Owned | undefined => (ownServerOf(spec) ? owned.get(spec.name) : undefined);
  const specs = config.translate.filter((spec) => ownOf(spec) !== null);
  const engines = specs.map((spec) => {
    const mine = ownOf(spec);
    const e = makeEngine(spec, config, mine?.server.url);
    mine?.engines.push(e);
    return e;
  });
  const loaded = new Set<TranslationEngine>();
  const load = async (e: TranslationEngine) => {
    if (await loadEngine(e)) {
      if (!loaded.has(e)) log.info({ engine: e.name, url: e.url, pairs: e.pairs().length }, `translation engine ${e.name} ready`);
      loaded.add(e);
    } else if (!loaded.has(e)) {
      log.warn({ engine: e.name, url: e.url }, `translation engine ${e.name} does not answer; it covers nothing until it does (tried again every ${RELOAD_MS / 1000} s)`);
    }
  };
  await Promise.all(engines.map(load));
  const timer = setInterval(() => { for (const e of engines) if (!loaded.has(e)) void load(e); }, RELOAD_MS);
  timer.unref();
  const chain = new TranslationChain(engines, { timeoutMs: config.translateTimeoutMs, log, ...o });
  const testChain = new TranslationChain([simulatedEngine, ...engines], { timeoutMs: config.translateTimeoutMs, log, ...o }, chain);
  live = chain;
  // A pivot is two requests in a row, each with a retry: the owner of a claim has that long.
  const waitMs = 4 * config.translateTimeoutMs + 1000;
  return {
    chain,
    testChain,
    engines,
    waitMs,
    loaded,
    engineOf: (from, to) => chain.route(from, to)?.engine.name ?? null,
    close: async () => {
      clearInterval(timer);
      await Promise.all([...owned.values()].map((mine) => mine?.server.stop()));
    },
  };
}

/** Test mode's chain where the operator names no translation engine: the simulated translator alone. */
const SIMULATOR_ONLY = new TranslationChain([simulatedEngine]);

/**
 * The chain a phrase of live or test mode goes through: in test mode the
 * simulated translator first (the phrasebook's lines keep their fixed
 * translations), then TOLK_TRANSLATE's engines; in live mode those engines
 * alone (undefined: none).
 */
export function chainFor(t: Translation | undefined, livemode: boolean): TranslationChain | undefined {
  return livemode ? t?.chain : (t?.testChain ?? SIMULATOR_ONLY);
}

/**
 * A text no engine could translate from → to, as it is passed on: in live
 * mode the original text (flagged untranslated by the caller), in test mode
 * the simulator's marked form, `[en→ja] …` (operator.md, Engines).
 */
export function untranslatedText(text: string, from: string, to: string, livemode: boolean): string {
  return livemode ? text : markUntranslated(text, from, to);
}
