import { DateTime } from 'luxon';
import { PAGE_LANGUAGES } from '../bookings/pages.ts';
import { esc, layout } from '../http/pages.ts';
import { acceptedLocale, ENGLISH, localeOf, type Locale } from '../i18n/lang.ts';
import { ROOM, type RoomTexts } from '../i18n/room.ts';

// The room page's markup, stylesheet and script (no I/O; the routes are in
// page.ts, participants.ts and stream.ts). A room's `url` or a join link opens
// it: for a live room, the join screen (name and languages, a join link's
// prefill filled in) and the room itself, hidden until the person joins; for a
// scheduled one, when it starts (the script reopens the page once it is live);
// for one that is over, just that. Everything from the room or the link is
// escaped (esc) here and set with textContent by the script; the page loads
// its one stylesheet and script from this server, under the pages' CSP.
//
// The page is in the language of its join link (the language the person
// hears, else speaks) or else of the browser's Accept-Language (`accept`),
// when the page texts are written in it (i18n/room.ts: en, pt, es, de, fr),
// else in English; <html lang> says which, and the script writes a
// meeting's start in that language too.

export type RoomView = {
  room: { id: string; title: string; status: 'scheduled' | 'live' | 'ended' | 'canceled'; visibility: 'private' | 'public'; starts_at: Date | null; langs: string[] };
  /** The join link's token (null: the plain url). */
  token: string | null;
  /** The join link's prefill. */
  prefill: { name?: string; speak?: string; hear?: string };
  /** The request's Accept-Language, if the route gives it. */
  accept?: string | string[];
};

/** The page's language: the join link's, else the browser's, else English. */
export function roomLocale(v: Pick<RoomView, 'prefill' | 'accept'>): Locale {
  return localeOf(v.prefill.hear) ?? localeOf(v.prefill.speak) ?? acceptedLocale(v.accept) ?? ENGLISH;
}

/** The room pages' layout: their stylesheet and script. */
function roomPage(l: Locale, title: string, main: string, mainAttrs = ''): string {
  return layout(title, main, { css: '/r/assets/room.css', js: '/r/assets/room.js', mainAttrs, lang: l.tag });
}

function titleOf(v: RoomView, t: RoomTexts): string {
  return v.room.title.trim() ? v.room.title : t.room;
}

/** The languages of a select, in their own names; `selected` is among them even when the list does not have it. */
function languageOptions(selected: string): string {
  const known = PAGE_LANGUAGES.some(([code]) => code === selected);
  const extra = known || !selected ? '' : `<option value="${esc(selected)}" selected>${esc(selected)}</option>`;
  return extra + PAGE_LANGUAGES.map(([code, , native]) =>
    `<option value="${code}" lang="${code}"${code === selected ? ' selected' : ''}>${esc(native)}</option>`).join('');
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
  const langs = v.room.langs;
  const speak = v.prefill.speak || langs[0] || 'en';
  const hear = v.prefill.hear || langs[1] || langs[0] || 'en';
  const h = esc(title);
  const join =
    '<section id="join" aria-labelledby="join-h">' +
    `<h1 id="join-h">${h}</h1>` +
    `<p class="meta">${esc(t.liveNow)}</p>` +
    `<noscript><p class="notice">${esc(t.needsScript)}</p></noscript>` +
    '<form id="join-form">' +
    field('name', esc(t.yourName), `<input id="name" name="name" type="text" required maxlength="80" autocomplete="name" value="${esc(v.prefill.name ?? '')}" aria-describedby="name-error">`) +
    field('speak', esc(t.iSpeak), `<select id="speak" name="speak" aria-describedby="speak-error">${languageOptions(speak)}</select>`) +
    field('hear', esc(t.iHear), `<select id="hear" name="hear" aria-describedby="hear-error">${languageOptions(hear)}</select>`) +
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
    `<ol id="phrases" role="log" aria-live="polite" aria-relevant="additions" aria-label="${esc(t.conversation)}" tabindex="0"></ol>` +
    `<p class="latest"><button type="button" id="to-latest" hidden>${esc(t.newest)}</button></p>` +
    `<form id="say-form" class="say"><label for="say-text">${esc(t.saySomething)}</label>` +
    '<div class="say-row"><input id="say-text" name="text" type="text" maxlength="1000" autocomplete="off" aria-describedby="say-error">' +
    `<button type="submit" id="say-submit" class="primary">${esc(t.send)}</button></div>` +
    '<p id="say-error" class="error" role="alert"></p></form>' +
    '<section class="audio" aria-label="Speak and hear aloud">' +
    '<div class="mic-row">' +
    '<button type="button" id="mic" aria-pressed="false">Microphone</button>' +
    '<button type="button" id="ptt" aria-pressed="false">Hold to talk</button>' +
    '<button type="button" id="mute" aria-pressed="false" hidden>Mute</button>' +
    '<meter id="mic-level" min="0" max="1" value="0" aria-label="Microphone level"></meter>' +
    '</div>' +
    '<p id="mic-status" class="hint" role="status"></p>' +
    '<p id="partial" class="partial" aria-live="polite"></p>' +
    '<p class="check"><input type="checkbox" id="read-aloud"><label for="read-aloud">Read aloud what the others say, in my language</label>' +
    '<button type="button" id="read-pause" hidden>Pause</button></p>' +
    '<p id="read-status" class="hint" role="status"></p>' +
    '<p class="hint">The microphone is used only while it is on. What you say is turned into text; the audio itself is not kept.</p>' +
    '</section>' +
    '</div>' +
    `<section class="people" aria-labelledby="people-h"><h2 id="people-h">${esc(t.inTheRoom)}</h2><ul id="participants"></ul></section>` +
    '</div></section>';
  const over =
    '<section id="over" class="over" hidden tabindex="-1" aria-labelledby="over-h">' +
    `<h1>${h}</h1><h2 id="over-h"></h2><p id="over-text"></p>` +
    `<p><button type="button" id="rejoin" class="primary">${esc(t.joinAgain)}</button></p></section>`;
  return join + room + over + '<script src="/r/assets/room-audio.js" defer></script>';
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
      return roomPage(l, title, livePage(v, title, t), ` data-mode="room" data-room="${id}" data-token="${esc(v.token ?? '')}"`);
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

// The room page's own styles, after the pages' stylesheet (PAGE_STYLE) and on
// its colours: the conversation and, from 60rem up, the participants beside it.
export const ROOM_STYLE = `
main[data-mode="room"] { max-width: 72rem; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; border: 0; }
.room-head { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; justify-content: space-between; }
.room-head h1 { flex: 1 1 12rem; }
.conn { color: var(--muted); margin: 0; }
.conn:empty { display: none; }
.check { display: flex; gap: .5rem; align-items: flex-start; }
.check input { width: 1.5rem; min-height: 1.5rem; flex: none; margin-top: .2rem; }
.check label { font-weight: 400; margin: 0; }
.room-grid { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 1.5rem; }
@media (min-width: 60rem) { .room-grid { grid-template-columns: minmax(0, 1fr) 18rem; align-items: start; } .people h2 { margin-top: .5rem; } }
#phrases { list-style: none; margin: .5rem 0 0; padding: 0 .75rem; height: 55vh; min-height: 14rem; overflow-y: auto; overscroll-behavior: contain; border: 1px solid var(--border); border-radius: .5rem; }
#phrases:empty::before { content: "No one has spoken yet."; display: block; padding: .5rem 0; color: var(--muted); }
#phrases > li { padding: .5rem 0; border-bottom: 1px solid var(--border); }
#phrases > li:last-child { border-bottom: 0; }
.phrase p { margin: 0; overflow-wrap: anywhere; white-space: pre-wrap; }
.who { font-weight: 600; overflow-wrap: anywhere; }
.phrase.own .who { color: var(--accent); }
.phrase .original { display: none; margin-top: .25rem; padding-left: .5rem; border-left: 3px solid var(--border); color: var(--muted); }
#phrases.show-originals .original { display: block; }
.phrase.system .text { font-style: italic; color: var(--muted); }
.ai-badge { display: inline-block; margin-left: .375rem; padding: 0 .375rem; border: 1px solid currentColor; border-radius: .25rem; color: var(--accent); font-size: .75rem; font-weight: 700; line-height: 1.5; vertical-align: .1em; }
.latest { margin: .25rem 0 0; text-align: center; }
.say { margin-top: .75rem; }
.say-row { display: flex; gap: .5rem; }
.say-row input { flex: 1 1 auto; min-width: 0; }
.say-row button { flex: none; }
#participants { list-style: none; margin: 0; padding: 0; }
#participants > li { padding: .375rem .5rem; border-left: 4px solid transparent; overflow-wrap: anywhere; }
#participants > li.speaking { border-left-color: var(--ok); background: var(--soft); }
#participants .name { font-weight: 600; }
#participants .langs { display: block; color: var(--muted); font-size: .875rem; }
.speaking-label { display: none; margin-left: .375rem; color: var(--ok); font-size: .875rem; font-weight: 600; }
li.speaking .speaking-label { display: inline-block; }
.speaking-label::before { content: ""; display: inline-block; width: .625rem; height: .625rem; margin-right: .25rem; border-radius: 50%; background: var(--ok); animation: room-pulse 1.2s ease-in-out infinite; }
@keyframes room-pulse { 50% { opacity: .3; } }
.audio { margin-top: .75rem; }
.mic-row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.mic-row button[aria-pressed="true"] { background: var(--accent); color: var(--accent-fg); }
#mic-level { flex: 1 1 6rem; min-width: 6rem; height: 1rem; }
.partial { font-style: italic; color: var(--muted); min-height: 1.5em; }
#read-pause { margin-left: .5rem; }
#room.over-now #say-form, #room.over-now .audio, #room.over-now #leave { display: none; }
.over { border: 2px solid var(--border); border-radius: .5rem; padding: .25rem 1rem .75rem; }
@media (prefers-reduced-motion: reduce) { .speaking-label::before { animation: none; } #phrases { scroll-behavior: auto; } }
`;

// The room page's script (no dependencies). Scheduled: the start in the
// person's own zone, and the page reopened once the meeting is live. Live:
// join (POST participants), the conversation and the participants from the
// room's event stream (EventSource, which reconnects by itself), say, leave
// (also when the tab closes). The participant's id and secret are kept in
// sessionStorage, so a reload of the tab rejoins without the form. Written
// without template literals: it lives in one here.
export const ROOM_SCRIPT = String.raw`(function () {
  'use strict';
  var app = document.getElementById('app');
  if (!app || !app.dataset.mode) return;
  var cfg = app.dataset;
  var LOCALE = (navigator.languages && navigator.languages[0]) || navigator.language || 'en';
  try { new Intl.DateTimeFormat(LOCALE); } catch (e) { LOCALE = 'en'; }
  var KEY = 'tolk-room:' + (cfg.room || '');
  var MAX_PHRASES = 500;

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) if (attrs[k] !== undefined && attrs[k] !== null && attrs[k] !== '') e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function load() { try { return JSON.parse(sessionStorage.getItem(KEY) || 'null'); } catch (e) { return null; } }
  function save(v) {
    try { if (v) sessionStorage.setItem(KEY, JSON.stringify(v)); else sessionStorage.removeItem(KEY); } catch (e) { /* private mode: kept in memory only */ }
  }
  function json(res) {
    return res.text().then(function (t) {
      var body = null;
      try { body = t ? JSON.parse(t) : null; } catch (e) { body = null; }
      return { ok: res.ok, status: res.status, body: body || {} };
    });
  }
  function clean(m) { return String(m).replace(/^[A-Za-z_][A-Za-z0-9_.]*: /, ''); }
  function problem(r) {
    if (r.status === 429 || r.status >= 500) return 'The room is busy right now. Please try again in a moment.';
    var m = r.body.error || r.body.message;
    return m ? clean(m) : 'Something went wrong (' + r.status + '). Please try again.';
  }
  var OFFLINE = 'Could not reach the server. Check your connection and try again.';

  // A scheduled meeting: its start in the person's zone, in the page's
  // language (the browser's own variant of it, else the page's), so the
  // sentence and its date read as one; once it has passed, the page is asked
  // for every 15 s and reopened when the meeting is live.
  function scheduledPage() {
    var t = $('starts');
    var starts = t ? Date.parse(t.getAttribute('datetime')) : NaN;
    var pageLang = String(document.documentElement.lang || 'en').toLowerCase().split('-')[0];
    var dateLocale = String(LOCALE).toLowerCase().split('-')[0] === pageLang ? LOCALE : (cfg.dateLocale || pageLang);
    if (t && !isNaN(starts)) {
      try {
        t.textContent = new Intl.DateTimeFormat(dateLocale, { weekday: 'long', day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(new Date(starts));
      } catch (e) { /* the UTC text stays */ }
    }
    var asking = false;
    setInterval(function () {
      if (asking || (!isNaN(starts) && Date.now() < starts)) return;
      asking = true;
      fetch(location.href, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'text/html' } }).then(function (res) {
        return res.text().then(function (html) {
          asking = false;
          if (res.status < 500 && res.status !== 429 && html.indexOf('data-state="scheduled"') < 0) location.reload();
        });
      }, function () { asking = false; });
    }, 15000);
  }

  function roomPage() {
    var base = '/r/' + encodeURIComponent(cfg.room);
    var join = $('join'), room = $('room'), over = $('over'), list = $('phrases'), people = $('participants');
    var conn = $('conn-status'), joinError = $('join-error'), submit = $('join-submit'), say = $('say-text'), sayError = $('say-error');
    var toLatest = $('to-latest'), leave = $('leave');
    var FIELDS = ['name', 'speak', 'hear'];
    var me = null, es = null, resumed = false, joining = false, sending = false, seen = {}, speakingUntil = {};

    function post(path, body, keepalive) {
      return fetch(base + path, {
        method: 'POST', credentials: 'same-origin', keepalive: !!keepalive,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body)
      }).then(json);
    }
    function langName(code) {
      var opts = $('speak').options;
      for (var i = 0; i < opts.length; i++) if (opts[i].value === code) return opts[i].textContent;
      return code;
    }
    function choose(id, code) {
      var s = $(id);
      if (!code) return;
      for (var i = 0; i < s.options.length; i++) if (s.options[i].value === code) { s.value = code; return; }
      s.insertBefore(el('option', { value: code }, code), s.firstChild);
      s.value = code;
    }
    function clearErrors() {
      joinError.textContent = '';
      FIELDS.forEach(function (f) { $(f).removeAttribute('aria-invalid'); $(f + '-error').textContent = ''; });
    }
    // The participant is no longer in the room: keep the name and languages for the form, not the secret.
    function forget() {
      window.tolkRoom = null;
      document.dispatchEvent(new CustomEvent('tolk:left'));
      var s = load() || {};
      save(s.name || s.speak_lang ? { name: s.name, speak_lang: s.speak_lang, hear_lang: s.hear_lang } : null);
      me = null;
    }
    function stop() {
      if (es) es.close();
      es = null;
      conn.textContent = '';
    }

    function showJoin(message) {
      var s = load();
      if (s) {
        if (s.name) $('name').value = s.name;
        choose('speak', s.speak_lang);
        choose('hear', s.hear_lang);
      }
      room.hidden = true;
      over.hidden = true;
      join.hidden = false;
      clearErrors();
      joinError.textContent = message || '';
      $('name').focus();
    }
    function finish(kind) {
      stop();
      join.hidden = true;
      // The conversation stays readable above the notice when there was one on the page (the room ended,
      // or the person left); only what would speak in it goes.
      var had = !room.hidden && list.children.length > 0;
      room.hidden = !had;
      if (had) {
        room.classList.add('over-now');
        Array.prototype.forEach.call(room.querySelectorAll('#say-form input, #say-form button, .audio button, .audio input'), function (c) { c.disabled = true; });
        room.parentNode.insertBefore(over, room);
      }
      over.hidden = false;
      $('over-h').textContent = kind === 'left' ? 'You left' : kind === 'canceled' ? 'Meeting canceled' : 'Room ended';
      $('over-text').textContent = kind === 'left' ? 'You left the room.' : kind === 'canceled' ? 'This meeting was canceled.' : 'This room has ended.';
      $('rejoin').hidden = kind !== 'left';
      over.focus();
    }
    function enter(m, focus) {
      room.classList.remove('over-now');
      Array.prototype.forEach.call(room.querySelectorAll('#say-form input, #say-form button, .audio button, .audio input'), function (c) { c.disabled = false; });
      me = { id: m.id, secret: m.secret, name: m.name, speak_lang: m.speak_lang, hear_lang: m.hear_lang };
      save(me);
      // The audio controls (room-audio.js) learn who is here.
      window.tolkRoom = { me: me };
      document.dispatchEvent(new CustomEvent('tolk:joined', { detail: window.tolkRoom }));
      $('me').textContent = 'You speak ' + langName(m.speak_lang) + (m.hear_lang ? ' and hear ' + langName(m.hear_lang) : '') + '.';
      people.textContent = '';
      join.hidden = true;
      over.hidden = true;
      room.hidden = false;
      connect();
      if (focus) $('room-h').focus();
    }

    // The room's events.
    function connect() {
      stop();
      conn.textContent = 'Connecting…';
      var src = es = new EventSource(base + '/stream?participant=' + encodeURIComponent(me.id) + '&secret=' + encodeURIComponent(me.secret));
      function on(name, fn) {
        src.addEventListener(name, function (e) {
          if (src !== es) return;
          conn.textContent = '';
          var d = null;
          try { d = JSON.parse(e.data); } catch (x) { return; }
          if (d) fn(d);
        });
      }
      src.onopen = function () { if (src === es) conn.textContent = ''; };
      // A stream the server refused is closed for good (readyState 2). Browsers also close it
      // as the page unloads (a reload): acted on a moment later, which an unloading page never sees.
      src.onerror = function () {
        if (src !== es) return;
        if (src.readyState !== 2) { conn.textContent = 'Reconnecting…'; return; }
        setTimeout(function () {
          if (src !== es) return;
          stop();
          forget();
          showJoin('You are no longer in the room. Join again to continue.');
        }, 300);
      };
      on('phrase', function (d) { resumed = false; addPhrase(d); });
      on('participants', function (d) { resumed = false; roster = d.participants || []; showPeople(roster); });
      on('joined', function (d) { roster = roster.filter(function (p) { return p.id !== d.participant.id; }).concat([d.participant]); showPeople(roster); });
      on('left', function (d) { roster = roster.filter(function (p) { return p.id !== d.id; }); showPeople(roster); });
      on('ended', function (d) { save(null); me = null; document.dispatchEvent(new CustomEvent('tolk:left')); finish(d.status === 'canceled' ? 'canceled' : 'ended'); });
      on('gone', function () {
        stop();
        forget();
        if (resumed) showJoin('You are no longer in the room. Join again to continue.');
        else finish('left');
      });
    }

    function atBottom() { return list.scrollHeight - list.scrollTop - list.clientHeight < 48; }
    function addPhrase(p) {
      if (p.seq === undefined || seen[p.seq]) return;
      seen[p.seq] = true;
      var stick = atBottom();
      var system = p.kind === 'announcement' || p.kind === 'disclosure';
      var li = el('li', { 'class': 'phrase' + (system ? ' system' : '') + (p.own ? ' own' : '') + (p.ai ? ' ai' : ''), 'data-seq': String(p.seq) });
      if (!system) {
        var head = el('p', { 'class': 'head' });
        head.appendChild(el('span', { 'class': 'who' }, p.own ? 'You' : (p.speaker || 'Someone')));
        if (p.ai) head.appendChild(el('span', { 'class': 'ai-badge', title: 'AI agent' }, 'AI'));
        li.appendChild(head);
      }
      // Not translated (no engine covers the pair, or none answered): shown as said, in its own language, and said so.
      li.appendChild(el('p', { 'class': 'text', lang: p.untranslated ? p.src_lang : p.lang }, p.text || ''));
      if (p.untranslated && !p.own) li.appendChild(el('p', { 'class': 'hint untranslated' }, 'Not translated: ' + langName(p.src_lang) + ' as it was said'));
      if (p.original && p.original !== p.text) li.appendChild(el('p', { 'class': 'original', lang: p.src_lang }, p.original));
      list.appendChild(li);
      document.dispatchEvent(new CustomEvent('tolk:phrase', { detail: p }));
      while (list.children.length > MAX_PHRASES) list.removeChild(list.firstElementChild);
      if (stick) list.scrollTop = list.scrollHeight;
      else toLatest.hidden = false;
      var ms = Number(p.duration_ms) || 0;
      if (p.participant_id && ms > 0) {
        speakingUntil[p.participant_id] = Math.max(speakingUntil[p.participant_id] || 0, Date.now() + ms);
        markSpeaking();
        setTimeout(markSpeaking, ms + 50);
      }
    }
    list.addEventListener('scroll', function () { if (atBottom()) toLatest.hidden = true; });
    toLatest.addEventListener('click', function () {
      list.scrollTop = list.scrollHeight;
      toLatest.hidden = true;
      list.focus();
    });
    var originals = $('show-originals');
    function showOriginals() { list.classList.toggle('show-originals', originals.checked); }
    originals.addEventListener('change', showOriginals);
    showOriginals();

    var roster = [];
    function showPeople(all) {
      people.textContent = '';
      all.forEach(function (p) {
        var you = !!(me && p.id === me.id);
        var li = el('li', { 'data-id': p.id, 'class': you ? 'you' : '' });
        li.appendChild(el('span', { 'class': 'name' }, p.name || ''));
        if (you) li.appendChild(document.createTextNode(' (you)'));
        if (p.ai) li.appendChild(el('span', { 'class': 'ai-badge', title: 'AI agent' }, 'AI'));
        li.appendChild(el('span', { 'class': 'speaking-label', 'aria-hidden': 'true' }, 'speaking'));
        li.appendChild(el('span', { 'class': 'visually-hidden speaking-now' }, ''));
        li.appendChild(el('span', { 'class': 'langs' }, 'speaks ' + p.speak_lang + (p.hear_lang ? ' · hears ' + p.hear_lang : '')));
        people.appendChild(li);
      });
      markSpeaking();
    }
    function markSpeaking() {
      var t = Date.now();
      Array.prototype.forEach.call(people.children, function (li) {
        var on = (speakingUntil[li.getAttribute('data-id')] || 0) > t;
        li.classList.toggle('speaking', on);
        var now = li.querySelector('.speaking-now');
        if (now && now.textContent !== (on ? ' — speaking now' : '')) now.textContent = on ? ' — speaking now' : '';
      });
    }

    $('join-form').addEventListener('submit', function (e) {
      e.preventDefault();
      if (joining) return;
      clearErrors();
      var body = { name: $('name').value, speak: $('speak').value, hear: $('hear').value };
      if (cfg.token) body.t = cfg.token;
      joining = true;
      submit.disabled = true;
      submit.textContent = 'Joining…';
      function done() { joining = false; submit.disabled = false; submit.textContent = 'Join'; }
      post('/participants', body).then(function (r) {
        done();
        if (r.ok) { resumed = false; enter(r.body, true); return; }
        var f = r.body.field;
        if (f && FIELDS.indexOf(f) >= 0) {
          $(f).setAttribute('aria-invalid', 'true');
          $(f + '-error').textContent = clean(r.body.error || r.body.message || 'Invalid');
          joinError.textContent = 'Please check the form.';
          $(f).focus();
          return;
        }
        joinError.textContent = problem(r);
      }, function () { done(); joinError.textContent = OFFLINE; });
    });

    $('say-form').addEventListener('submit', function (e) {
      e.preventDefault();
      if (!me || sending) return;
      var text = say.value;
      if (!text.trim()) { say.focus(); return; }
      sending = true;
      sayError.textContent = '';
      post('/say', { participant: me.id, secret: me.secret, text: text }).then(function (r) {
        sending = false;
        if (r.ok) { say.value = ''; say.removeAttribute('aria-invalid'); } else { say.setAttribute('aria-invalid', 'true'); sayError.textContent = problem(r); }
        say.focus();
      }, function () { sending = false; sayError.textContent = OFFLINE; say.focus(); });
    });

    leave.addEventListener('click', function () {
      if (!me) return;
      var body = { participant: me.id, secret: me.secret };
      stop();
      forget();
      leave.disabled = true;
      function done() { leave.disabled = false; finish('left'); }
      post('/leave', body, true).then(done, done);
    });
    $('rejoin').addEventListener('click', function () { showJoin(''); });

    // Closing the tab leaves the room; a reload comes back within moments and stays (the server
    // lets the person go only when their page has not reconnected a few seconds later).
    window.addEventListener('pagehide', function () {
      if (!me || !navigator.sendBeacon) return;
      navigator.sendBeacon(base + '/leave', new Blob([JSON.stringify({ participant: me.id, secret: me.secret, unloading: true })], { type: 'application/json' }));
    });
    window.addEventListener('pageshow', function (e) { if (e.persisted && me) { resumed = true; connect(); } });

    var saved = load();
    if (saved && saved.id && saved.secret) { resumed = true; enter(saved, false); }
  }

  if (cfg.mode === 'scheduled') scheduledPage();
  else if (cfg.mode === 'room') roomPage();
  else if (cfg.mode === 'over') save(null);
})();
`;
