import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { DateTime } from 'luxon';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { roomPageHtml, roomProblemHtml, type RoomView } from '../../src/rooms/pages/view.ts';

// The room page speaks one language: its join link's (the language the
// person hears, else speaks), else the browser's, else English, from the
// heading to the last button, with <html lang> saying which; a meeting not
// yet started says when in that language, date included, also once the
// page's script has written the date in the reader's zone. The audio
// controls are in it too, and so is what the page's scripts write (data-msgs);
// a Portuguese page joined in Chromium is test/rooms/room-coverage.test.ts.

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

/** Words only the English page has. */
const ENGLISH = [
  'Your name', 'I speak', 'I hear', '>Join<', 'Leave', 'Say something', 'In the room', 'Live now', 'Join again', 'Show the newest', 'This meeting',
  'Keep this page open', 'Room not found', 'starts at', 'This room', 'Microphone', 'Hold to talk', 'Read aloud', 'Speak and hear aloud',
  'No one has spoken yet', 'You speak', 'not translated', 'What works',
];

/** The page without its scripts' addresses. */
function visible(html: string): string {
  return html.replace(/<script[^>]*><\/script>/g, '');
}

function view(o: Partial<RoomView['room']> & { prefill?: RoomView['prefill']; accept?: string }): RoomView {
  return {
    room: { id: 'room_x', title: 'Planung', status: 'live', visibility: 'public', starts_at: null, langs: ['de', 'pt'], ...o },
    token: null,
    prefill: o.prefill ?? {},
    ...(o.accept ? { accept: o.accept } : {}),
  };
}

function noEnglish(html: string) {
  for (const w of ENGLISH) expect(visible(html), w).not.toContain(w);
}

describe('room page language (markup)', () => {
  const starts = new Date('2026-12-01T14:00:00Z');

  it('a join link that hears Portuguese: the whole page in Portuguese', () => {
    const live = roomPageHtml(view({ prefill: { name: 'Ana', speak: 'pt', hear: 'pt-BR' } }));
    expect(live).toContain('<html lang="pt-BR">');
    for (const w of ['Ao vivo.', '>O seu nome<', '>Eu falo<', '>Eu ouço<', '>Entrar<', '>Sair<', '>Diga algo<', '>Enviar<', '>Na sala<', '>Entrar de novo<', 'Mostrar o que foi dito no idioma original']) expect(live).toContain(w);
    // The audio controls, and what the scripts write (the "You speak … and hear …" line among it).
    for (const w of ['>Microfone<', '>Segure para falar<', '>Ler em voz alta o que os outros dizem, no meu idioma<', 'aria-label="Falar e ouvir em voz alta"', 'data-empty="Ninguém falou ainda."', 'Você fala {speak} e ouve {hear}.']) expect(live).toContain(w);
    noEnglish(live);
    const scheduled = roomPageHtml(view({ status: 'scheduled', starts_at: starts, prefill: { hear: 'pt-BR' } }));
    expect(scheduled).toContain('Início da reunião: <time id="starts" datetime="2026-12-01T14:00:00.000Z">terça-feira, 1 de dezembro de 2026 às 14:00 UTC</time>.');
    expect(scheduled).toContain('Deixe esta página aberta');
    expect(scheduled).toContain('data-date-locale="pt-BR"');
    noEnglish(scheduled);
    for (const [status, text] of [['ended', 'Esta sala foi encerrada.'], ['canceled', 'Esta reunião foi cancelada.']] as const) {
      const html = roomPageHtml(view({ status, title: '', prefill: { hear: 'pt' } }));
      expect(html).toContain('<h1>Sala</h1>');
      expect(html).toContain(text);
      noEnglish(html);
    }
  });

  it('German from the link that speaks it; French and Spanish from the browser; the link before the browser', () => {
    const de = roomPageHtml(view({ status: 'scheduled', starts_at: starts, prefill: { speak: 'de' }, accept: 'fr-FR,fr;q=0.9' }));
    expect(de).toContain('<html lang="de">');
    expect(de).toContain('Die Besprechung beginnt am <time id="starts" datetime="2026-12-01T14:00:00.000Z">Dienstag, 1. Dezember 2026 um 14:00 UTC</time>.');
    noEnglish(de);
    const fr = roomPageHtml(view({ accept: 'ja-JP,fr;q=0.8,en;q=0.5' }));
    expect(fr).toContain('<html lang="fr">');
    for (const w of ['>Votre nom<', '>Je parle<', '>J’entends<', '>Rejoindre<', '>Quitter<', '>Dans la salle<']) expect(fr).toContain(w);
    noEnglish(fr);
    const es = roomProblemHtml('private', 'es-MX,es;q=0.9');
    expect(es).toContain('<html lang="es-MX">');
    expect(es).toContain('<h1>Esta sala es privada</h1>');
    noEnglish(es);
  });

  it('a language the pages are not written in falls back to English', () => {
    const ja = roomPageHtml(view({ status: 'scheduled', starts_at: starts, prefill: { hear: 'ja' }, accept: 'ja-JP' }));
    expect(ja).toContain('<html lang="en">');
    expect(ja).toContain('This meeting starts at <time id="starts" datetime="2026-12-01T14:00:00.000Z">Tuesday, 1 December 2026 at 14:00 UTC</time>.');
    expect(roomProblemHtml('not_found')).toContain('<h1>Room not found</h1>');
  });
});

describe('room page language (browser)', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a Portuguese join link: the start of the meeting, in the reader\'s zone, in Portuguese like its sentence, whatever the browser\'s language', async () => {
    const k = await t.key({ rpm: 100_000 });
    const startsAt = DateTime.utc().plus({ days: 3 }).set({ second: 0, millisecond: 0 });
    const m = await (await t.request('POST', '/v1/meetings', {
      key: k.secret, headers: idem(), body: { title: 'Planejamento', starts_at: startsAt.toISO(), visibility: 'private', langs: ['pt', 'en'] },
    })).json();
    const link = await (await t.request('POST', `/v1/rooms/${m.id}/join-links`, { key: k.secret, body: { name: 'Ana', speak: 'pt', hear: 'pt' } })).json();
    // An English browser in São Paulo opens the Portuguese link.
    const ctx = await browser.newContext({ locale: 'en-US', timezoneId: 'America/Sao_Paulo' });
    const errors: string[] = [];
    const p = await ctx.newPage();
    p.on('pageerror', (e) => { errors.push(String(e)); });
    expect((await p.goto(link.url, { waitUntil: 'load' }))?.status()).toBe(200);
    expect(await p.locator('html').getAttribute('lang')).toBe('pt');
    const starts = p.locator('#starts');
    await until('the start in São Paulo time', async () => !(await starts.textContent())!.includes('UTC'), 5000);
    const sentence = (await p.locator('[data-state="scheduled"]').textContent())!;
    const wall = startsAt.setZone('America/Sao_Paulo').setLocale('pt');
    expect(sentence.startsWith('Início da reunião: ')).toBe(true);
    expect(sentence).toContain(wall.toFormat('cccc'));
    expect(sentence).toContain(`${wall.toFormat('d')} de ${wall.toFormat('LLLL')}`);
    expect(sentence).toContain(wall.toFormat('HH:mm'));
    for (const w of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday', 'AM', 'PM', 'starts at']) expect(sentence).not.toContain(w);
    expect(await p.locator('main').textContent()).toContain('Deixe esta página aberta');
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
