import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { BergamotEngine } from '../../src/engines/bergamot/translate.ts';
import type { ModelEntry } from '../../src/engines/models/catalog.ts';
import { CATALOG } from '../../src/engines/models/catalog.ts';
import { pullModels } from '../../src/engines/models/pull.ts';
import { modelsOf } from '../../src/engines/models/store.ts';
import { TranslationChain } from '../../src/engines/translate/chain.ts';
import { bergamotModel, bergamotVocab } from '../helpers/bergamot-model.ts';
import { startFileServer } from '../helpers/file-server.ts';

// `bergamot`: Firefox Translations' models run by the runtime Firefox runs,
// from the publisher's files to a translation. Models of the real tiny
// architecture with random weights (test/helpers/bergamot-model.ts: none can
// be downloaded here), published gzip-compressed as mozilla publishes them,
// pulled from a local server, installed, and translating off the event loop;
// a pair without a model goes through English; a broken model fails its pair
// only.

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let server: Awaited<ReturnType<typeof startFileServer>>;
let base = '';
const served = new Map<string, Buffer>();
let dir: string;
let engine: BergamotEngine;
const PAIRS = [['en', 'es'], ['es', 'en'], ['en', 'pt']] as const;

function entry(from: string, to: string, files: Record<string, Buffer>): ModelEntry {
  const name = `bergamot-${from}-${to}`;
  return {
    name, kind: 'translate', engine: 'bergamot', languages: [from, to], license: 'MPL-2.0', source: base, about: 'a test model',
    files: Object.entries(files).map(([file, body]) => {
      const gz = gzipSync(body);
      served.set(`/${name}/${file}.gz`, gz);
      return { path: file, url: `${base}/${name}/${file}.gz`, size: gz.length, sha256: createHash('sha256').update(gz).digest('hex'), gunzip: true };
    }),
  };
}

beforeAll(async () => {
  server = await startFileServer(served);
  base = server.url;
  const vocab = bergamotVocab();
  const catalog = PAIRS.map(([from, to], i) => entry(from, to, { 'model.bin': bergamotModel({ seed: 100 + i }), 'vocab.spm': vocab }));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-bergamot-'));
  await pullModels(catalog.map((m) => m.name), { dir, catalog });
  engine = new BergamotEngine(modelsOf(dir, 'bergamot'), { backoff: { initialMs: 100 } });
});

afterAll(async () => {
  await engine?.close();
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('bergamot', () => {
  it('the catalog has Firefox Translations\' tiny models both ways between English and es, pt, fr, it, de, pinned', () => {
    const names = CATALOG.filter((m) => m.engine === 'bergamot').map((m) => m.name);
    for (const l of ['es', 'pt', 'fr', 'it', 'de']) expect(names).toEqual(expect.arrayContaining([`bergamot-en-${l}`, `bergamot-${l}-en`]));
    for (const m of CATALOG.filter((x) => x.engine === 'bergamot')) {
      expect(m.files.map((f) => f.path).sort()).toEqual(['lex.s2t.bin', 'model.bin', 'vocab.spm']);
      for (const f of m.files) expect(f).toMatchObject({ gunzip: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), url: expect.stringMatching(/^https:\/\/media\.githubusercontent\.com\/media\/mozilla\/firefox-translations-models\/[0-9a-f]{40}\//) });
    }
  });

  it('covers the pairs installed, and translates a phrase off the event loop: some text, not the phrase', async () => {
    expect(engine.pairs()).toEqual(expect.arrayContaining([['en', 'es'], ['es', 'en'], ['en', 'pt']]));
    expect(engine.covers('en', 'es')).toBe(true);
    expect(engine.covers('en', 'pt-BR')).toBe(true);
    expect(engine.covers('es', 'pt')).toBe(false);
    // The event loop keeps turning while the runtime translates.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const out = await engine.translate('Could you send me the report by Friday?', 'en', ['es', 'pt'], AbortSignal.timeout(30_000));
    clearInterval(timer);
    expect(Object.keys(out).sort()).toEqual(['es', 'pt']);
    for (const t of Object.values(out)) {
      expect(t.trim().length).toBeGreaterThan(0);
      expect(t).not.toBe('Could you send me the report by Friday?');
    }
    expect(ticks).toBeGreaterThan(5);
    const started = performance.now();
    await engine.translate('Can you share your screen, please?', 'en', ['es'], AbortSignal.timeout(30_000));
    process.stderr.write(`[bergamot tiny, random weights] a phrase en→es in ${Math.round(performance.now() - started)} ms (warm)\n`);
  });

  it('through the chain, Spanish reaches Portuguese through English', async () => {
    const chain = new TranslationChain([engine], { timeoutMs: 30_000 });
    expect(chain.route('es', 'pt')).toMatchObject({ engine: { name: 'bergamot' }, via: 'en' });
    const out = await chain.translate('¿Puedes compartir tu pantalla?', 'es', ['pt']);
    expect(out.pt).toMatchObject({ engine: 'bergamot', text: expect.any(String) });
    expect(out.pt!.text.length).toBeGreaterThan(0);
  });

  it('a broken model fails its own pair with a sentence, and the others translate on', async () => {
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-bergamot-broken-'));
    try {
      fs.cpSync(path.join(dir, 'bergamot-en-es'), path.join(broken, 'bergamot-en-es'), { recursive: true });
      fs.cpSync(path.join(dir, 'bergamot-es-en'), path.join(broken, 'bergamot-es-en'), { recursive: true });
      const model = path.join(broken, 'bergamot-en-es', 'model.bin');
      fs.writeFileSync(model, Buffer.from('not a marian model'));
      const e = new BergamotEngine(modelsOf(broken, 'bergamot'), { backoff: { initialMs: 100 } });
      try {
        await expect(e.translate('Hello there.', 'en', ['es'], AbortSignal.timeout(30_000))).rejects.toMatchObject({ name: 'EngineError', message: expect.stringMatching(/^bergamot: .*Binary file versions do not match/) });
        expect((await e.translate('Hola, ¿qué tal?', 'es', ['en'], AbortSignal.timeout(30_000))).en!.length).toBeGreaterThan(0);
      } finally {
        await e.close();
      }
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
  });

  it('a model present is used without configuration: TOLK_TRANSLATE unset begins with bergamot', () => {
    expect(loadConfig({ TOLK_MODELS_DIR: dir }).translate[0]).toEqual({ name: 'bergamot' });
    expect(loadConfig({ TOLK_MODELS_DIR: dir, TOLK_TRANSLATE: '' }).translate).toEqual([]);
  });
});
