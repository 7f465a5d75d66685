import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../src/engines/errors.ts';
import { LibreTranslateEngine } from '../../src/engines/libretranslate/translate.ts';
import { startLibreTranslate, type FakeServer, type LibreLanguage } from '../helpers/fake-engines.ts';

// The LibreTranslate adapter against a local server that answers as
// LibreTranslate documents (https://docs.libretranslate.com/guides/api_usage/,
// and the routes of its server, libretranslate/app.py: GET /languages →
// [{code, name, targets}], POST /translate {q, source, target, format,
// api_key} → {translatedText}, {"error": ...} with 400/403/429/500).

const KEY = 'lt-key-5f0c2b9e-7d41-4a52-9a3e-1c2d3e4f5a6b';
const servers: FakeServer[] = [];
const signal = () => AbortSignal.timeout(5000);

async function start(o: Parameters<typeof startLibreTranslate>[0] = {}): Promise<FakeServer> {
  const s = await startLibreTranslate(o);
  servers.push(s);
  return s;
}

async function loaded(server: FakeServer, apiKey?: string): Promise<LibreTranslateEngine> {
  const e = new LibreTranslateEngine({ url: `${server.url}/`, ...(apiKey ? { apiKey } : {}) });
  await e.load(signal());
  return e;
}

async function failure(p: Promise<unknown>): Promise<EngineError> {
  const err: unknown = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('LibreTranslate: coverage from /languages', () => {
  it('covers the pairs /languages lists, reading its own codes (pb) as the service’s (pt-BR)', async () => {
    const server = await start();
    const e = await loaded(server, KEY);
    expect(e.url).toBe(server.url);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /languages']);
    expect(e.covers('en', 'es')).toBe(true);
    expect(e.covers('en', 'pt')).toBe(true);
    expect(e.covers('en', 'pt-BR')).toBe(true);
    expect(e.covers('en-US', 'fr')).toBe(true);
    expect(e.covers('de', 'en')).toBe(true);
    expect(e.covers('de', 'es')).toBe(false);
    expect(e.covers('en', 'ja')).toBe(false);
    expect(e.covers('pt', 'pt-BR')).toBe(false);
    expect(e.pairs()).toEqual(expect.arrayContaining([['en', 'es'], ['en', 'pt'], ['de', 'en'], ['pt', 'en']]));
    expect(e.pairs()).not.toContainEqual(['en', 'pt-BR']);
    expect(e.requests).toBe(0);
  });

  it('takes a newer server’s codes (pt-BR, zh-Hans, zh-Hant) and sends the variety each service code asks for', async () => {
    const languages: LibreLanguage[] = [
      { code: 'en', name: 'English', targets: ['pt', 'pt-BR', 'zh-Hans', 'zh-Hant'] },
      { code: 'pt', name: 'Portuguese', targets: ['en'] },
      { code: 'pt-BR', name: 'Portuguese (Brazil)', targets: ['en'] },
      { code: 'zh-Hans', name: 'Chinese', targets: ['en'] },
      { code: 'zh-Hant', name: 'Chinese (traditional)', targets: ['en'] },
    ];
    const server = await start({ languages });
    const e = await loaded(server);
    expect(e.covers('en', 'zh')).toBe(true);
    expect(e.covers('zh-TW', 'en')).toBe(true);
    await e.translate('Hello, how are you?', 'en', ['zh', 'zh-TW', 'pt-BR', 'pt-PT'], signal());
    const targets = server.requests.filter((r) => r.path === '/translate').map((r) => (JSON.parse(r.body) as { target: string }).target);
    expect(targets.sort()).toEqual(['pt', 'pt-BR', 'zh-Hans', 'zh-Hant']);
  });

  it('covers nothing when /languages does not answer, and nothing more after a failed reload', async () => {
    const server = await start();
    const e = await loaded(server);
    expect(e.covers('en', 'es')).toBe(true);
    server.fail = { status: 500 };
    await failure(e.load(signal()));
    expect(e.covers('en', 'es')).toBe(false);
    expect(e.pairs()).toEqual([]);
  });
});

describe('LibreTranslate: translation', () => {
  it('translates into each target, one POST /translate per target, with the body LibreTranslate reads', async () => {
    const server = await start({ apiKey: KEY });
    const e = await loaded(server, KEY);
    const out = await e.translate('Hello, how are you?', 'en', ['es', 'fr', 'pt-BR'], signal());
    expect(out).toEqual({ es: 'Hola, ¿cómo estás?', fr: 'Bonjour, comment ça va ?', 'pt-BR': 'Olá, tudo bem?' });
    expect(e.requests).toBe(3);
    const posts = server.requests.filter((r) => r.path === '/translate');
    expect(posts).toHaveLength(3);
    for (const r of posts) {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.query.toString()).toBe('');
    }
    expect(posts.map((r) => JSON.parse(r.body)).sort((a, b) => String(a.target).localeCompare(String(b.target)))).toEqual([
      { q: 'Hello, how are you?', source: 'en', target: 'es', format: 'text', api_key: KEY },
      { q: 'Hello, how are you?', source: 'en', target: 'fr', format: 'text', api_key: KEY },
      { q: 'Hello, how are you?', source: 'en', target: 'pb', format: 'text', api_key: KEY },
    ]);
  });

  it('sends no api_key when it has none (a server that needs none)', async () => {
    const server = await start();
    const e = await loaded(server);
    expect(await e.translate('Hello, how are you?', 'en', ['de'], signal())).toEqual({ de: 'Hallo, wie geht es dir?' });
    expect(JSON.parse(server.requests.at(-1)!.body)).not.toHaveProperty('api_key');
  });

  it('sends the requests for several targets at once, not one after the other', async () => {
    const server = await start();
    const e = await loaded(server);
    server.hang = true;
    const ac = new AbortController();
    const p = e.translate('Hello, how are you?', 'en', ['es', 'fr', 'de'], ac.signal).catch((err: unknown) => err);
    await expect.poll(() => server.requests.filter((r) => r.path === '/translate').length).toBe(3);
    ac.abort();
    expect(await p).toBeInstanceOf(EngineError);
  });

  it('refuses a pair it does not cover without asking the server (permanent)', async () => {
    const server = await start();
    const e = await loaded(server);
    const err = await failure(e.translate('Hallo', 'de', ['es'], signal()));
    expect(err.permanent).toBe(true);
    expect(e.requests).toBe(0);
  });
});

describe('LibreTranslate: errors', () => {
  it('a wrong key is 403 Invalid API key: permanent, and the key is nowhere in the error', async () => {
    const server = await start({ apiKey: KEY });
    const wrong = 'lt-key-0000-wrong-1111-2222-333344445555';
    const e = await loaded(server, wrong);
    const err = await failure(e.translate('Hello, how are you?', 'en', ['es'], signal()));
    expect(err).toMatchObject({ status: 403, permanent: true, retryAfterMs: null });
    expect(err.message).toContain('Invalid API key');
    expect(`${err.message} ${err.stack}`).not.toContain(wrong);
    expect(e.url).not.toContain(wrong);
  });

  it('no key where the server needs one is its 400: permanent', async () => {
    const server = await start({ apiKey: KEY });
    const e = await loaded(server);
    const err = await failure(e.translate('Hello, how are you?', 'en', ['es'], signal()));
    expect(err).toMatchObject({ status: 400, permanent: true });
    expect(err.message).toContain('get an API key');
  });

  it('429 Slowdown with Retry-After: not permanent, retryAfterMs from the header', async () => {
    const server = await start();
    const e = await loaded(server);
    server.fail = { status: 429, retryAfter: '30' };
    const err = await failure(e.translate('Hello, how are you?', 'en', ['es'], signal()));
    expect(err).toMatchObject({ status: 429, permanent: false, retryAfterMs: 30_000 });
    expect(err.message).toContain('Slowdown');
  });

  it('500: not permanent', async () => {
    const server = await start();
    const e = await loaded(server);
    server.fail = { status: 500 };
    expect(await failure(e.translate('Hello, how are you?', 'en', ['es'], signal()))).toMatchObject({ status: 500, permanent: false, retryAfterMs: null });
  });

  it('a body that is not its JSON (a proxy’s page) is not permanent, on /translate and on /languages', async () => {
    const server = await start();
    const e = await loaded(server);
    server.garble = true;
    expect(await failure(e.translate('Hello, how are you?', 'en', ['es'], signal()))).toMatchObject({ status: null, permanent: false });
    expect(await failure(e.load(signal()))).toMatchObject({ status: null, permanent: false });
  });

  it('a server that is not there is not permanent', async () => {
    const server = await start();
    const e = await loaded(server);
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    expect(await failure(e.translate('Hello, how are you?', 'en', ['es'], signal()))).toMatchObject({ status: null, permanent: false });
    expect(await failure(e.load(signal()))).toMatchObject({ status: null, permanent: false });
  });

  it('a server that never answers: the aborted signal rejects translate and load promptly', async () => {
    const server = await start();
    const e = await loaded(server);
    server.hang = true;
    const t0 = Date.now();
    const err = await failure(e.translate('Hello, how are you?', 'en', ['es'], AbortSignal.timeout(200)));
    expect(err.permanent).toBe(false);
    expect(err.message).toContain('no answer in time');
    await failure(e.load(AbortSignal.timeout(200)));
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});
