import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { DateTime } from 'luxon';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../../src/cli/admin.ts';

// The booking pages and the booking's mails speak one language: the booking
// page the browser's, the manage page and the guest's mails the guest's
// `locale`, from the heading to the last line, dates included; a language
// the pages are not written in falls back to English.

const HOST_TZ = 'America/New_York';

let t: TestApp;
let browser: Browser;
let host: { page: string; slug: string; url: string };

/** Words only the English pages and mails have. */
const ENGLISH_PAGE = ['Pick a time', 'Your time zone', 'Previous week', 'Next week', 'Loading free times', 'Your details', 'About you', 'Your name', 'Languages', 'Language you speak', 'Language you hear', '>Book<', 'You are booked', 'Meeting link', 'Download the calendar file', 'Reschedule', 'Cancel booking', 'Status:', 'Confirmed', 'Duration', '>Host<', '>Guest<', 'minutes</', 'Host:'];
const ENGLISH_MAIL = ['invites you', 'When:', 'Your time:', 'In UTC:', 'Join:', 'Each participant', 'Invitation:', 'minutes'];
const ENGLISH_DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday', 'January', 'February', 'March', 'April', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function noEnglish(text: string, words: string[]) {
  for (const w of [...words, ...ENGLISH_DAYS]) expect(text, w).not.toContain(w);
}

/** The text a page shows and says: its markup without the script's texts (data-msgs) and the time zones' names (America/Juneau). */
function shown(html: string): string {
  return html.replace(/ data-msgs="[^"]*"/, '').replace(/<select id="tz"[\s\S]*?<\/select>/, '');
}

async function freeSlot(i = 0): Promise<string> {
  const res = await t.request('GET', `/book/${host.page}/${host.slug}/slots`);
  return (await res.json()).slots[i];
}

async function book(o: { locale: string; tz: string; email: string; slot: number }) {
  const res = await t.request('POST', `/book/${host.page}/${host.slug}`, {
    body: { start: await freeSlot(o.slot), name: 'Joana Silva', email: o.email, speak: 'pt', hear: 'pt', tz: o.tz, locale: o.locale },
  });
  expect(res.status).toBe(201);
  return res.json() as Promise<{ start: string; manage_url: string }>;
}

async function mailsTo(to: string) {
  const { rows } = await t.pool.query(`SELECT subject, text FROM mail_outbox WHERE lower(to_addr) = lower($1) ORDER BY id`, [to]);
  return rows as Array<{ subject: string; text: string }>;
}

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchChromium();
  const { orgId } = await t.key();
  await t.pool.query(`UPDATE organizations SET owner_email = 'owner-lang@host.example' WHERE id = $1`, [orgId]);
  const et = await createEventType(t.pool, t.config.publicBaseUrl, { org: orgId, page: 'lang', slug: 'intro', title: 'Conversa inicial', tz: HOST_TZ, hours: 'mon-sun 00:00-24:00', duration: 30 });
  host = { page: 'lang', slug: 'intro', url: et.url };
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('booking page language', () => {
  it('a Portuguese browser (pt-PT): the page, its slots, the form and the confirmation in Portuguese, dates too', async () => {
    const ctx = await browser.newContext({ locale: 'pt-PT', timezoneId: 'Europe/Lisbon' });
    const p = await ctx.newPage();
    expect((await p.goto(host.url, { waitUntil: 'load' }))?.status()).toBe(200);
    expect(await p.locator('html').getAttribute('lang')).toBe('pt-PT');
    await p.locator('button.slot').first().waitFor();
    expect(await p.locator('#slots-status').textContent()).toMatch(/^\d+ horários? livres? nesta semana, no fuso Europe\/Lisbon\.$/);
    expect(await p.locator('.meta').textContent()).toBe('30 minutos · Anfitrião: Test org');
    const day = (await p.locator('fieldset.day legend').first().textContent())!;
    const date = await p.locator('fieldset.day').first().getAttribute('data-date');
    expect(day).toBe(DateTime.fromISO(date!).setLocale('pt-PT').toLocaleString({ weekday: 'long', day: 'numeric', month: 'long' }));
    await p.locator('button.slot').first().click();
    expect(await p.locator('#chosen').textContent()).toMatch(/^O seu horário: .+ de .+ \(Europe\/Lisbon\)$/);
    await p.getByLabel('O seu nome').fill('Joana');
    await p.getByLabel('E-mail').fill('joana-pt@example.pt');
    expect(await p.getByLabel('Idioma em que você fala').inputValue()).toBe('pt');
    await p.getByRole('button', { name: 'Agendar', exact: true }).click();
    await p.getByRole('heading', { name: 'Agendamento feito' }).waitFor();
    const main = (await p.locator('main').textContent())!;
    expect(main).toContain('Enviamos por e-mail um convite com o link da reunião.');
    expect(main).toContain('Remarcar ou cancelar este agendamento');
    noEnglish(shown(await p.content()), ENGLISH_PAGE);
    // The guest's locale is the browser's: the invitation is in Portuguese too.
    const [mail] = await mailsTo('joana-pt@example.pt');
    expect(mail!.subject).toMatch(/^Convite: Conversa inicial: Joana – .+-feira|^Convite: Conversa inicial: Joana – (sábado|domingo)/);
    expect(mail!.text).toContain('convida você para uma reunião com tradução em tempo real.');
    noEnglish(mail!.subject + mail!.text, ENGLISH_MAIL);
    await ctx.close();
  });

  it('a German browser: the page in German; a Japanese one: in English (the fallback)', async () => {
    const de = await (await fetch(host.url, { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } })).text();
    expect(de).toContain('<html lang="de-DE">');
    for (const w of ['Wählen Sie einen Termin', 'Ihre Zeitzone', 'Ihre Angaben', 'Sprache, die Sie sprechen', '>Buchen<', 'Ihr Termin ist gebucht', '30 Minuten', 'Gastgeber: Test org', 'Deutsch</option>', 'Portugiesisch (Português)']) expect(de).toContain(w);
    noEnglish(shown(de), ENGLISH_PAGE);
    expect(de).toContain('Freie Termine werden geladen');
    const ja = await (await fetch(host.url, { headers: { 'accept-language': 'ja-JP,ja;q=0.9' } })).text();
    expect(ja).toContain('<html lang="en">');
    expect(ja).toContain('Pick a time');
  });
});

describe('manage page and mails language', () => {
  it("the manage page and the mails follow the guest's locale: pt-BR and French", async () => {
    const cases = [
      { locale: 'pt-BR', email: 'joana-br@example.br', tz: 'America/Sao_Paulo', words: ['Situação:', 'Confirmado', 'O seu horário (America/Sao_Paulo)', 'Horário do anfitrião (America/New_York)', 'Duração', '30 minutos', 'Remarcar', 'Cancelar agendamento', 'Baixar o arquivo de calendário (.ics)'], mail: ['convida você para uma reunião', 'Quando: ', 'No seu horário: ', 'Entrar: ', 'Cada participante fala e ouve'] },
      { locale: 'fr', email: 'jeanne@example.fr', tz: 'Europe/Paris', words: ['État :', 'Confirmée', 'Votre heure (Europe/Paris)', 'Heure de l’hôte (America/New_York)', 'Durée', '30 minutes', 'Déplacer', 'Annuler la réservation', 'Télécharger le fichier de calendrier (.ics)'], mail: ['vous invite à une réunion', 'Quand : ', 'Votre heure : ', 'Rejoindre : ', 'Chaque participant parle'] },
    ];
    let slot = 3;
    for (const c of cases) {
      const b = await book({ locale: c.locale, tz: c.tz, email: c.email, slot: slot++ });
      const html = await (await fetch(b.manage_url, { headers: { 'accept-language': 'en-US' } })).text();
      expect(html).toContain(`<html lang="${c.locale}">`);
      for (const w of c.words) expect(html, w).toContain(w);
      // The guest's time, in the guest's language.
      const start = DateTime.fromISO(b.start, { zone: c.tz }).setLocale(c.locale);
      expect(html).toContain(start.toLocaleString({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' }));
      noEnglish(shown(html).replace('30 minutes', ''), ENGLISH_PAGE.filter((w) => w !== 'minutes</'));
      const [mail] = await mailsTo(c.email);
      for (const w of c.mail) expect(mail!.text, w).toContain(w);
      expect(mail!.text).toContain(start.toLocaleString({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' }));
      noEnglish(mail!.subject + mail!.text, ENGLISH_MAIL.filter((w) => !(c.locale === 'fr' && w === 'minutes')));
    }
  });

  it('a guest locale the pages are not written in: the manage page and the mail in English', async () => {
    const b = await book({ locale: 'ja-JP', tz: 'Asia/Tokyo', email: 'kenji-lang@example.jp', slot: 6 });
    const html = await (await fetch(b.manage_url)).text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('Status: <strong>Confirmed</strong>');
    const [mail] = await mailsTo('kenji-lang@example.jp');
    expect(mail!.subject).toMatch(/^Invitation: /);
    expect(mail!.text).toContain('Each participant speaks and hears their own language.');
  });
});
