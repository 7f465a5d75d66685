import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';

// The consent flow speaks the voice's language, from the page's heading to
// its last button, its script's texts, its errors and every mail, dates
// included; a language the pages are not written in falls back to English.
// (The page in Chromium for a pt-BR voice, clicked through: consent-page.test.ts.)

let t: TestApp;
const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

/** Words only the English page or mails have. */
const ENGLISH = ['Consent to copy', 'What you are asked', 'Who asks', 'Why', 'Name of the voice', 'Language<', 'This link works until', 'Confirm your e-mail', 'Send me a code', 'Code from the e-mail',
  'Send a new code', 'Read this sentence', 'Record', '>Stop<', 'I agree', 'Give my consent', 'Thank you', 'synthetic copy', 'Nothing happens', 'Hello', 'Your code', 'minutes', 'withdraw', 'If you', 'The link works'];
const ENGLISH_DATES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday', 'January', 'February', 'March', 'April', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function noEnglish(text: string) {
  for (const w of [...ENGLISH, ...ENGLISH_DATES]) expect(text, w).not.toContain(w);
}

async function ask(language: string, person: string) {
  const k = await t.key({ rpm: 100_000 });
  await t.pool.query(`UPDATE organizations SET name = 'Vozes Lda' WHERE id = $1`, [k.orgId]);
  const email = `p-${crypto.randomUUID().slice(0, 8)}@example.org`;
  const res = await t.request('POST', '/v1/voices', {
    key: k.secret, headers: idem(), body: { name: 'Narradora', language, person: { name: person, email }, purpose: 'Audiolivros' },
  });
  expect(res.status).toBe(202);
  const v = await res.json();
  return { id: v.id as string, url: v.consent_url as string, path: new URL(v.consent_url).pathname, email, secret: k.secret };
}

async function mailsTo(to: string) {
  const { rows } = await t.pool.query(`SELECT subject, text FROM mail_outbox WHERE lower(to_addr) = lower($1) ORDER BY id`, [to]);
  return rows as Array<{ subject: string; text: string }>;
}

beforeAll(async () => { t = await startTestApp({ workers: true }); });
afterAll(async () => { await t?.close(); });

describe('consent flow language', () => {
  it('pt-BR: the page, its script texts, its errors and every mail in Portuguese', async () => {
    const a = await ask('pt-BR', 'Ana Souza');
    // The browser's own language does not matter: the voice's does.
    const html = await (await fetch(a.url, { headers: { 'accept-language': 'en-US' } })).text();
    expect(html).toContain('<html lang="pt-BR">');
    for (const w of ['<h1>Autorização para copiar a sua voz</h1>', 'Vozes Lda pede a Ana Souza autorização', 'O que lhe pedem', 'Quem pede', 'Nome da voz', 'português (Brasil) (pt-BR)', 'Este link vale até',
      '1. Confirme o seu endereço de e-mail', '>Enviar código<', 'Código recebido por e-mail', '>Confirmar<', '>Enviar outro código<', '2. Leia esta frase em voz alta', '>Gravar<', '>Parar<',
      'Autorizo Vozes Lda a criar e usar uma cópia sintética da minha voz', '>Dar a minha autorização<', '3. Obrigado']) expect(html, w).toContain(w);
    noEnglish(html.replace(/ data-msgs="[^"]*"/, ''));
    // The script's texts come with the page, in Portuguese.
    const msgs = JSON.parse(/ data-msgs="([^"]*)"/.exec(html)![1]!.replace(/&#(\d+);/g, (_m, c) => String.fromCharCode(Number(c))));
    expect(msgs.sent).toBe('Enviamos um código para {to}. Ele vale por {minutes} minutos.');
    noEnglish(Object.values(msgs).join('\n').replace(/\{\w+\}/g, ''));
    // Dates: the link's end, in Portuguese.
    expect(html).toMatch(/Este link vale até<\/dt><dd>(domingo|segunda-feira|terça-feira|quarta-feira|quinta-feira|sexta-feira|sábado), \d{1,2} de (janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro) de \d{4} às \d{2}:\d{2} UTC<\/dd>/);

    // The errors of the page's requests, in the page's language.
    const code = await fetch(`${t.url}${a.path}/code`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-language': 'pt-BR' }, body: '{}' });
    expect(code.status).toBe(200);
    const again = await fetch(`${t.url}${a.path}/code`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-language': 'pt-BR' }, body: '{}' });
    expect(again.status).toBe(429);
    expect(((await again.json()) as { error: string }).error).toMatch(/^code: um código acabou de ser enviado; espere \d+ s antes de pedir outro$/);
    const wrong = await fetch(`${t.url}${a.path}/verify`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-language': 'pt-BR' }, body: JSON.stringify({ code: '12ab' }) });
    expect(await wrong.json()).toMatchObject({ field: 'code', error: 'code: digite os 6 dígitos do código que enviamos por e-mail' });
    const upload = await fetch(`${t.url}${a.path}/recording`, { method: 'POST', headers: { 'content-type': 'audio/webm', 'accept-language': 'pt-BR' }, body: Buffer.from('x') });
    expect(((await upload.json()) as { error: string }).error).toBe('code: confirme primeiro o seu endereço de e-mail com um código (ou de novo: a confirmação expirou)');

    // The mails: the request, the code, the receipt, the withdrawal.
    await t.request('POST', `/v1/test-helpers/voices/${a.id}/complete-consent`, { key: a.secret });
    await until('the receipt', async () => (await mailsTo(a.email)).length >= 3 || null, 5000);
    expect((await t.request('DELETE', `/v1/voices/${a.id}`, { key: a.secret })).status).toBe(200);
    const mails = await until('the withdrawal mail', async () => { const m = await mailsTo(a.email); return m.length >= 4 ? m : null; }, 5000);
    expect(mails.map((m) => m.subject.replace(/\d{6}/, 'NNNNNN'))).toEqual([
      'Vozes Lda pede a sua autorização para copiar a sua voz',
      'O seu código: NNNNNN',
      'Você autorizou Vozes Lda a copiar a sua voz',
      'A cópia da sua voz para Vozes Lda foi retirada',
    ]);
    expect(mails[0]!.text).toMatch(/^Olá, Ana Souza,\n/);
    expect(mails[0]!.text).toContain('O motivo, nas palavras deles: Audiolivros');
    expect(mails[0]!.text).toMatch(/O link vale até (domingo|segunda-feira|terça-feira|quarta-feira|quinta-feira|sexta-feira|sábado), \d{1,2} de (janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro) de \d{4} às \d{2}:\d{2} UTC\./);
    expect(mails[2]!.text).toContain('"Eu, Ana Souza, autorizo Vozes Lda a criar');
    expect(mails[3]!.text).toContain('Vozes Lda retirou a voz "Narradora"');
    // The English sentence words may be quoted in a receipt only for voices read in English; these are not.
    for (const m of mails) noEnglish(m.subject + '\n' + m.text);
  });

  it('de: the page and the request mail in German; an unknown link in the browser\'s language', async () => {
    const a = await ask('de-AT', 'Lena Huber');
    const html = await (await fetch(a.url)).text();
    expect(html).toContain('<html lang="de-AT">');
    for (const w of ['<h1>Einwilligung zur Kopie Ihrer Stimme</h1>', 'Worum Sie gebeten werden', 'Wer fragt', '1. Bestätigen Sie Ihre E-Mail-Adresse', '>Code senden<', '>Aufnehmen<', '>Stopp<', '>Einwilligung geben<', 'Deutsch (de-AT)</dd>']) expect(html, w).toContain(w);
    noEnglish(html.replace(/ data-msgs="[^"]*"/, ''));
    const [request] = await mailsTo(a.email);
    expect(request!.subject).toBe('Vozes Lda bittet um Ihre Einwilligung, Ihre Stimme zu kopieren');
    expect(request!.text).toMatch(/^Hallo Lena Huber,\n/);
    expect(request!.text).toMatch(/Der Link gilt bis [A-Z][a-z]+, \d{1,2}\. [A-ZÄa-zä]+ \d{4} um \d{2}:\d{2} UTC\./);
    noEnglish(request!.subject + request!.text);
    const unknown = await fetch(`${t.url}/consent/${'z'.repeat(32)}`, { headers: { 'accept-language': 'es-ES,es;q=0.9' } });
    expect(unknown.status).toBe(404);
    const body = await unknown.text();
    expect(body).toContain('<html lang="es-ES">');
    expect(body).toContain('<h1>Enlace no encontrado</h1>');
  });

  it('a language the pages are not written in (ja): the page and mails in English, the sentence in English', async () => {
    const a = await ask('ja', 'Yui');
    const html = await (await fetch(a.url, { headers: { 'accept-language': 'ja-JP' } })).text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<h1>Consent to copy your voice</h1>');
    expect(html).toContain('>Send me a code<');
    const [request] = await mailsTo(a.email);
    expect(request!.subject).toBe('Vozes Lda asks for your consent to copy your voice');
    expect(request!.text).toMatch(/^Hello Yui,\n/);
  });
});
