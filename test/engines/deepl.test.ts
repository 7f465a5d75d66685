import { afterEach, describe, expect, it } from 'vitest';
import { DeepLEngine, deeplTarget } from '../../src/engines/deepl/translate.ts';
import { EngineError } from '../../src/engines/errors.ts';
import { DEEPL_TARGETS, startDeepL, type FakeServer } from '../helpers/fake-engines.ts';

// The DeepL adapter against a local server that answers as DeepL's API v2
// documents: https://developers.deepl.com/docs/api-reference/translate
// (POST /v2/translate, {text: [...], source_lang, target_lang} →
// {translations: [{detected_source_language, text}]}),
// https://developers.deepl.com/api-reference/languages (GET
// /v2/languages?type=source|target → [{language, name, supports_formality}]),
// https://developers.deepl.com/docs/getting-started/auth (the
// `DeepL-Auth-Key` header; api-free.deepl.com for keys ending in `:fx`) and
// https://developers.deepl.com/docs/best-practices/error-handling (429,
// 456 quota exceeded, 500).

const KEY = '8f2d6c1a-3b4e-4f5a-9c8d-7e6f5a4b3c2d:fx';
const servers: FakeServer[] = [];
const signal = () => AbortSignal.timeout(5000);

async function start(apiKey = KEY): Promise<FakeServer> {
  const s = await startDeepL({ apiKey });
  servers.push(s);
  return s;
}

async function loaded(server: FakeServer, apiKey = KEY): Promise<DeepLEngine> {
  const e = new DeepLEngine({ apiKey, url: server.url });
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

describe('DeepL: where it answers', () => {
  it('a free key (:fx) goes to api-free.deepl.com, any other to api.deepl.com, a given URL wins; the key is never in url', () => {
    expect(new DeepLEngine({ apiKey: 'abc:fx' }).url).toBe('https://api-free.deepl.com');
    expect(new DeepLEngine({ apiKey: 'abc' }).url).toBe('https://api.deepl.com');
    expect(new DeepLEngine({ apiKey: 'abc:fx', url: 'http://proxy.local:8080/' }).url).toBe('http://proxy.local:8080');
    expect(new DeepLEngine({ apiKey: KEY }).url).not.toContain(KEY);
  });
});

describe('DeepL: coverage from /v2/languages', () => {
  it('asks for source and target languages with its key, and covers what they list', async () => {
    const server = await start();
    const e = await loaded(server);
    expect(server.requests.map((r) => `${r.method} ${r.path}?${r.query}`).sort()).toEqual([
      'GET /v2/languages?type=source', 'GET /v2/languages?type=target',
    ]);
    for (const r of server.requests) expect(r.headers.authorization).toBe(`DeepL-Auth-Key ${KEY}`);
    expect(e.covers('en', 'de')).toBe(true);
    expect(e.covers('en', 'pt-BR')).toBe(true);
    expect(e.covers('pt-BR', 'en')).toBe(true);
    expect(e.covers('ja', 'zh-TW')).toBe(true);
    expect(e.covers('en', 'ko')).toBe(false);
    expect(e.covers('ko', 'en')).toBe(false);
    expect(e.covers('en-US', 'en-GB')).toBe(false);
    expect(e.pairs()).toEqual(expect.arrayContaining([['en', 'de'], ['de', 'en'], ['en', 'pt'], ['ja', 'zh']]));
    expect(e.requests).toBe(0);
  });

  it('a wrong key is refused by /v2/languages (403): load rejects, permanent, and it covers nothing', async () => {
    const server = await start();
    const wrong = '00000000-1111-2222-3333-444444444444:fx';
    const e = new DeepLEngine({ apiKey: wrong, url: server.url });
    const err = await failure(e.load(signal()));
    expect(err).toMatchObject({ status: 403, permanent: true });
    expect(`${err.message} ${err.stack}`).not.toContain(wrong);
    expect(e.covers('en', 'de')).toBe(false);
  });
});

describe('DeepL: language codes', () => {
  const targets = new Set(DEEPL_TARGETS.map((t) => t.language));
  it.each([
    ['en', 'EN-US'], ['en-US', 'EN-US'], ['en-GB', 'EN-GB'], ['en-AU', 'EN-GB'], ['en-CA', 'EN-US'],
    ['pt', 'PT-PT'], ['pt-PT', 'PT-PT'], ['pt-BR', 'PT-BR'],
    ['zh', 'ZH-HANS'], ['zh-CN', 'ZH-HANS'], ['zh-TW', 'ZH-HANT'], ['zh-Hant', 'ZH-HANT'],
    ['es', 'ES'], ['es-ES', 'ES'], ['es-MX', 'ES-419'], ['de', 'DE'], ['de-AT', 'DE'], ['ko', undefined],
  ])('%s → %s', (code, deepl) => {
    expect(deeplTarget(code, targets)).toBe(deepl);
  });

  it('without the varieties listed, falls back to what DeepL has (EN, ZH)', () => {
    expect(deeplTarget('en', new Set(['EN', 'DE']))).toBe('EN');
    expect(deeplTarget('zh-TW', new Set(['ZH']))).toBe('ZH');
    expect(deeplTarget('pt', new Set(['PT-BR']))).toBe('PT-BR');
  });
});

describe('DeepL: translation', () => {
  it('translates into each target, one POST /v2/translate per target language, with DeepL’s codes', async () => {
    const server = await start();
    const e = await loaded(server);
    const out = await e.translate('Hello, how are you?', 'en-US', ['de', 'pt-BR', 'pt', 'es-MX'], signal());
    expect(out).toEqual({
      de: 'Hallo, wie geht es dir?', 'pt-BR': 'Olá, tudo bem?', pt: 'Olá, como está?', 'es-MX': '[ES-419] Hello, how are you?',
    });
    expect(e.requests).toBe(4);
    const posts = server.requests.filter((r) => r.path === '/v2/translate');
    expect(posts).toHaveLength(4);
    for (const r of posts) {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.headers.authorization).toBe(`DeepL-Auth-Key ${KEY}`);
      expect(r.query.toString()).toBe('');
      expect(r.body).not.toContain(KEY);
    }
    expect(posts.map((r) => JSON.parse(r.body)).sort((a, b) => String(a.target_lang).localeCompare(String(b.target_lang)))).toEqual([
      { text: ['Hello, how are you?'], source_lang: 'EN', target_lang: 'DE' },
      { text: ['Hello, how are you?'], source_lang: 'EN', target_lang: 'ES-419' },
      { text: ['Hello, how are you?'], source_lang: 'EN', target_lang: 'PT-BR' },
      { text: ['Hello, how are you?'], source_lang: 'EN', target_lang: 'PT-PT' },
    ]);
  });

  it('English as a target is American unless asked otherwise', async () => {
    const server = await start();
    const e = await loaded(server);
    expect(await e.translate('Olá, tudo bem?', 'pt-BR', ['en', 'en-GB'], signal())).toEqual({
      en: '[EN-US] Olá, tudo bem?', 'en-GB': '[EN-GB] Olá, tudo bem?',
    });
    const sent = server.requests.filter((r) => r.path === '/v2/translate').map((r) => JSON.parse(r.body) as { source_lang: string });
    expect(sent.every((b) => b.source_lang === 'PT')).toBe(true);
  });

  it('refuses a pair it does not cover without asking DeepL (permanent)', async () => {
    const server = await start();
    const e = await loaded(server);
    expect(await failure(e.translate('Hello', 'en', ['ko'], signal()))).toMatchObject({ permanent: true });
    expect(e.requests).toBe(0);
  });
});

describe('DeepL: errors', () => {
  it('a key DeepL no longer takes (revoked after load): 403, permanent, and the key is nowhere in the error', async () => {
    const account = { apiKey: KEY };
    const server = await startDeepL(account);
    servers.push(server);
    const e = await loaded(server);
    account.apiKey = 'a-new-key';
    const err = await failure(e.translate('Hello, how are you?', 'en', ['de'], signal()));
    expect(err).toMatchObject({ status: 403, permanent: true, retryAfterMs: null });
    expect(`${err.message} ${err.stack}`).not.toContain(KEY);
  });

  it('456 quota exceeded: permanent (for this request: the chain goes to the next engine)', async () => {
    const server = await start();
    const e = await loaded(server);
    server.fail = { status: 456 };
    const err = await failure(e.translate('Hello, how are you?', 'en', ['de'], signal()));
    expect(err).toMatchObject({ status: 456, permanent: true });
    expect(err.message).toContain('Quota Exceeded');
  });

  it('429 too many requests with Retry-After: not permanent, retryAfterMs from the header', async () => {
    const server = await start();
    const e = await loaded(server);
    server.fail = { status: 429, retryAfter: '2' };
    expect(await failure(e.translate('Hello, how are you?', 'en', ['de'], signal()))).toMatchObject({ status: 429, permanent: false, retryAfterMs: 2000 });
  });

  it('500 and 503: not permanent', async () => {
    const server = await start();
    const e = await loaded(server);
    server.fail = { status: 500 };
    expect(await failure(e.translate('Hello, how are you?', 'en', ['de'], signal()))).toMatchObject({ status: 500, permanent: false });
    server.fail = { status: 503, retryAfter: '5' };
    expect(await failure(e.translate('Hello, how are you?', 'en', ['de'], signal()))).toMatchObject({ status: 503, permanent: false, retryAfterMs: 5000 });
  });

  it('a body that is not DeepL’s JSON is not permanent', async () => {
    const server = await start();
    const e = await loaded(server);
    server.garble = true;
    expect(await failure(e.translate('Hello, how are you?', 'en', ['de'], signal()))).toMatchObject({ status: null, permanent: false });
    expect(await failure(e.load(signal()))).toMatchObject({ status: null, permanent: false });
  });

  it('DeepL out of reach is not permanent', async () => {
    const server = await start();
    const e = await loaded(server);
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    expect(await failure(e.translate('Hello, how are you?', 'en', ['de'], signal()))).toMatchObject({ status: null, permanent: false });
  });

  it('DeepL never answering: the aborted signal rejects translate and load promptly', async () => {
    const server = await start();
    const e = await loaded(server);
    server.hang = true;
    const t0 = Date.now();
    const err = await failure(e.translate('Hello, how are you?', 'en', ['de', 'fr'], AbortSignal.timeout(200)));
    expect(err.permanent).toBe(false);
    await failure(e.load(AbortSignal.timeout(200)));
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});
