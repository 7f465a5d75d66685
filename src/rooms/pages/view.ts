import { DateTime } from 'luxon';
import { assetUrl } from '../../http/assets.ts';
import { esc, layout, PAGE_LANGUAGES } from '../../http/pages.ts';
import { acceptedLocale, ENGLISH, localeOf, type Locale } from '../../i18n/lang.ts';
import { ROOM, type RoomTexts } from '../../i18n/room.ts';
import { pageLanguages } from '../join-links.ts';

// The room page's markup (no I/O; its routes are the other files here, its
// script and styles assets/room.js, room-audio.js and room.css). A room's `url` or a join link opens
// it: for a live room, the join screen (name and languages, a join link's
// prefill filled in) and the room itself, hidden until the person joins; for a
// scheduled one, when it starts (the script reopens the page once it is live);
// for one that is over, just that. Everything from the room or the link is
// escaped (esc) here and set with textContent by the script; the page loads
// its stylesheets and scripts from this server, under the pages' CSP.
//
// The page is in the language of its join link (the language the person
// hears, else speaks) or else of the browser's Accept-Language (`accept`),
// when the page texts are written in it (i18n/room.ts: en, pt, es, de, fr),
// else in English; <html lang> says which, and the script writes a
// meeting's start in that language too, and its other texts (data-msgs):
// the audio controls, the "You speak … and hear …" line, and what works for
// the languages chosen (the list under them, from GET /r/{id}/audio-info).
//
// The language menus mark the languages nothing would be translated in for
// this room (`untranslated`, engines/coverage.ts): marked, not left out, as
// a person may still join in them (typing, and reading what is said as it
// was said), and a page must never refuse the language a join link names.

export type RoomView = {
  room: { id: string; title: string; status: 'scheduled' | 'live' | 'ended' | 'canceled'; visibility: 'private' | 'public'; starts_at: Date | null; langs: string[] };
  /** The join link's token (null: the plain url). */
  token: string | null;
  /** The join link's prefill. */
  prefill: { name?: string; speak?: string; hear?: string };
  /** The request's Accept-Language, if the route gives it. */
  accept?: string | string[];
  /** Languages of the menus nothing would be translated into (`hear`) or from (`speak`) in this room. */
  untranslated?: { speak: ReadonlySet<string>; hear: ReadonlySet<string> };
};

/** The page's language: the join link's, else the browser's, else English. */
export function roomLocale(v: Pick<RoomView, 'prefill' | 'accept'>): Locale {
  return localeOf(v.prefill.hear) ?? localeOf(v.prefill.speak) ?? acceptedLocale(v.accept) ?? ENGLISH;
}

/** The room pages' layout: their stylesheet and script (and the audio's, on a live room's page). */
function roomPage(l: Locale, title: string, main: string, mainAttrs = '', audio = false): string {
  return layout(title, main, { styles: ['room.css'], scripts: audio ? ['room.js', 'room-voices.js', 'room-audio.js'] : ['room.js'], mainAttrs, lang: l.tag });
}

function titleOf(v: RoomView, t: RoomTexts): string {
  return v.room.title.trim() ? v.room.title : t.room;
}

/**
 * The languages of a select, in their own names, those of `marked` followed by `mark` (in the
 * page's language); `selected` is among them even when the list does not have it.
 */
function languageOptions(selected: string, marked: ReadonlySet<string> = new Set(), mark = ''): string {
  const known = PAGE_LANGUAGES.some(([code]) => code === selected);
  const after = (code: string) => (marked.has(code) ? ` — ${esc(mark)}` : '');
  const extra = known || !selected ? '' : `<option value="${esc(selected)}" selected>${esc(selected)}${after(selected)}</option>`;
  return extra + PAGE_LANGUAGES.map(([code, , native]) =>
    `<option value="${code}" lang="${code}"${code === selected ? ' selected' : ''}>${esc(native)}${after(code)}</option>`).join('');
}

/** "Tuesday 10 March 2026 at 14:00 UTC", in the page's language: the script shows it in the person's own zone. */
function utcText(d: Date, l: Locale): string {
  return DateTime.fromJSDate(d, { zone: 'UTC' }).setLocale(l.intl)
    .toLocaleString({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
}

function field(id: string, label: string, control: string): string {
  return `<p class="field"><label for="${id}">${label}</label>${control}<span id="${id}-error" class="field-error"></span></p>`;
}

function livePage(v: RoomView, title: string, t: RoomTexts): string {
  const { speak, hear } = pageLanguages(v.prefill, v.room.langs);
  const marks = v.untranslated;
  const h = esc(title);
  const a = t.audio;
  const m = t.script;
  const join =
    '<section id="join" aria-labelledby="join-h">' +
    `<h1 id="join-h">${h}</h1>` +
    `<p class="meta">${esc(t.liveNow)}</p>` +
    `<noscript><p class="notice">${esc(t.needsScript)}</p></noscript>` +
    '<form id="join-form">' +
    field('name', esc(t.yourName), `<input id="name" name="name" type="text" required maxlength="80" autocomplete="name" value="${esc(v.prefill.name ?? '')}" aria-describedby="name-error">`) +
    field('speak', esc(t.iSpeak), `<select id="speak" name="speak" aria-describedby="speak-error">${languageOptions(speak, marks?.speak, t.notTranslated)}</select>`) +
    field('hear', esc(t.iHear), `<select id="hear" name="hear" aria-describedby="hear-error">${languageOptions(hear, marks?.hear, t.notTranslated)}</select>`) +
    // What works for the languages chosen, filled by the script as soon as the page opens and at each choice.
    `<ul id="coverage" class="coverage" aria-live="polite" aria-label="${esc(t.whatWorks)}"></ul>` +
    '<p id="join-error" class="error" role="alert"></p>' +
    `<p><button type="submit" id="join-submit" class="primary">${esc(t.join)}</button></p>` +
    '</form></section>';
  const room =
    '<section id="room" hidden aria-labelledby="room-h">' +
    `<div class="room-head"><h1 id="room-h" tabindex="-1">${h}</h1><button type="button" id="leave" class="danger">${esc(t.leave)}</button></div>` +
    '<p id="me" class="meta"></p>' +
    '<p id="conn-status" class="conn" role="status" aria-live="polite"></p>' +
    '<div class="room-grid"><div class="talk">' +
    `<p class="check"><input type="checkbox" id="show-originals"><label for="show-originals">${esc(t.showOriginals)}</label></p>` +
    `<ol id="phrases" role="log" aria-live="polite" aria-relevant="additions" aria-label="${esc(t.conversation)}" data-empty="${esc(t.noPhrases)}" tabindex="0"></ol>` +
    `<p class="latest"><button type="button" id="to-latest" hidden>${esc(t.newest)}</button></p>` +
    `<form id="say-form" class="say"><label for="say-text">${esc(t.saySomething)}</label>` +
    '<div class="say-row"><input id="say-text" name="text" type="text" maxlength="1000" autocomplete="off" aria-describedby="say-error">' +
    `<button type="submit" id="say-submit" class="primary">${esc(t.send)}</button></div>` +
    '<p id="say-error" class="error" role="alert"></p></form>' +
    `<section class="audio" aria-label="${esc(a.section)}">` +
    '<div class="mic-row">' +
    `<button type="button" id="mic" aria-pressed="false">${esc(m.microphone)}</button>` +
    `<button type="button" id="ptt" aria-pressed="false">${esc(a.holdToTalk)}</button>` +
    `<button type="button" id="mute" aria-pressed="false" hidden>${esc(m.mute)}</button>` +
    `<meter id="mic-level" min="0" max="1" value="0" aria-label="${esc(a.micLevel)}"></meter>` +
    '</div>' +
    '<p id="mic-status" class="hint" role="status"></p>' +
    '<p id="partial" class="partial" aria-live="polite"></p>' +
    '<p id="voices-status" class="hint" role="status"></p><div id="voices" hidden></div>' +
    `<p class="balance" id="balance-row" hidden><label for="balance">${esc(a.balance)}</label> <input type="range" id="balance" min="0" max="100" value="50"></p>` +
    `<p class="check"><input type="checkbox" id="read-aloud"><label for="read-aloud">${esc(a.readAloud)}</label>` +
    `<button type="button" id="read-pause" hidden>${esc(m.pause)}</button></p>` +
    '<p id="read-status" class="hint" role="status"></p>' +
    `<p class="hint">${esc(a.privacy)}</p>` +
    '</section>' +
    '</div>' +
    `<section class="people" aria-labelledby="people-h"><h2 id="people-h">${esc(t.inTheRoom)}</h2><ul id="participants"></ul></section>` +
    '</div></section>';
  const over =
    '<section id="over" class="over" hidden tabindex="-1" aria-labelledby="over-h">' +
    `<h1>${h}</h1><h2 id="over-h"></h2><p id="over-text"></p>` +
    `<p><button type="button" id="rejoin" class="primary">${esc(t.joinAgain)}</button></p></section>`;
  return join + room + over;
}

/** The page's HTML for a room in any state (no I/O). */
export function roomPageHtml(v: RoomView): string {
  const l = roomLocale(v);
  const t = ROOM[l.lang];
  const title = titleOf(v, t);
  const head = `<h1>${esc(title)}</h1>`;
  const id = esc(v.room.id);
  switch (v.room.status) {
    case 'ended':
      return roomPage(l, title, `${head}<p data-state="ended">${esc(t.ended)}</p>`, ` data-mode="over" data-room="${id}"`);
    case 'canceled':
      return roomPage(l, title, `${head}<p data-state="canceled">${esc(t.canceled)}</p>`, ` data-mode="over" data-room="${id}"`);
    case 'scheduled': {
      const at = v.room.starts_at && !Number.isNaN(v.room.starts_at.getTime()) ? v.room.starts_at : null;
      const when = at
        ? `<p data-state="scheduled">${esc(t.startsBefore)}<time id="starts" datetime="${at.toISOString()}">${esc(utcText(at, l))}</time>${esc(t.startsAfter)}</p>`
        : `<p data-state="scheduled">${esc(t.notStarted)}</p>`;
      return roomPage(l, title, `${head}${when}<p class="hint">${esc(t.keepOpen)}</p>`,
        ` data-mode="scheduled" data-room="${id}" data-date-locale="${esc(l.intl)}"`);
    }
    case 'live':
      return roomPage(l, title, livePage(v, title, t),
        ` data-mode="room" data-room="${id}" data-token="${esc(v.token ?? '')}" data-worklet="${assetUrl('mic-worklet.js')}"` +
        ` data-msgs="${esc(JSON.stringify(t.script))}"`, true);
  }
}

/**
 * Pages that are not a room: `not_found` (404: no such room), `bad_link` (403: the join link is altered or expired), `private` (403: a private room opened without a join link);
 * in the browser's language when the route gives its Accept-Language.
 */
export function roomProblemHtml(kind: 'not_found' | 'bad_link' | 'private', accept?: string | string[]): string {
  const l = acceptedLocale(accept) ?? ENGLISH;
  const [heading, text] = ROOM[l.lang].problems[kind];
  return roomPage(l, heading, `<h1>${esc(heading)}</h1><p data-state="${kind}">${esc(text)}</p>`);
}
