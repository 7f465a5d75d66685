// The room page's script (no dependencies). Scheduled: the start in the
// person's own zone, and the page reopened once the meeting is live. Live:
// join (POST participants), the conversation and the participants from the
// room's event stream (EventSource, which reconnects by itself), say, leave
// (also when the tab closes). The participant's id and secret are kept in
// sessionStorage, so a reload of the tab rejoins without the form. The join
// screen says at once what works for the languages chosen (GET
// /r/{id}/audio-info), for those preselected and at each choice. Its texts
// come from the page (data-msgs), in the page's language; language names are
// written in that language too (Intl.DisplayNames).
// @ts-check
(function () {
  'use strict';
  var app = document.getElementById('app');
  if (!app || !app.dataset.mode) return;
  var cfg = app.dataset;
  var LOCALE = (navigator.languages && navigator.languages[0]) || navigator.language || 'en';
  try { new Intl.DateTimeFormat(LOCALE); } catch (e) { LOCALE = 'en'; }
  var KEY = 'tolk-room:' + (cfg.room || '');
  var MAX_PHRASES = 500;
  var PAGE_LANG = document.documentElement.lang || 'en';
  var M = {};
  try { M = JSON.parse(cfg.msgs || '{}'); } catch (e) { M = {}; }
  /** A text of the page's language, its {placeholders} filled. @param {string} key @param {Record<string, any>} [values] */
  function msg(key, values) {
    return String(M[key] || key).replace(/\{(\w+)\}/g, function (all, k) { return values && k in values ? String(values[k]) : all; });
  }
  // The page's audio scripts (room-audio.js, room-voices.js, loaded after this one) write their texts with it.
  /** @type {any} */ (window).tolkText = msg;
  var names = null;
  try { names = new Intl.DisplayNames([PAGE_LANG], { type: 'language' }); } catch (e) { names = null; }
  /** A language's name in the page's language ("Portuguese" on an English page, "inglês" on a Portuguese one); the code when unknown. */
  function langName(code) {
    try { var n = names && code ? names.of(code) : ''; if (n && n !== code) return n; } catch (e) { /* not a language code */ }
    return code;
  }

  /** The element with this id: the page's markup has each one the script uses. @param {string} id @returns {any} */
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
    if (r.status === 429 || r.status >= 500) return msg('busy');
    var m = r.body.error || r.body.message;
    return m ? clean(m) : msg('problem', { status: r.status });
  }
  var OFFLINE = msg('offline');

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
    // Heard as it happens: who is talking now (speech events), and another's phrase so far by its segment id (partial events).
    var talking = {}, live = {};
    /** How long a phrase so far stays once its speaker stopped with no phrase coming to replace it (nothing was recognized). */
    var LIVE_KEEP_MS = 20000;

    function post(path, body, keepalive) {
      return fetch(base + path, {
        method: 'POST', credentials: 'same-origin', keepalive: !!keepalive,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body)
      }).then(json);
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
    // What works for the languages chosen (GET /r/{id}/audio-info, engines/coverage.ts): asked for
    // those preselected and at each choice, before the person joins rather than after they try.
    // Only the answer to the latest question is shown (an earlier one may arrive after it).
    var coverage = $('coverage'), asked = 0;
    function item(kind, ok, text) {
      coverage.appendChild(el('li', { 'class': ok ? 'ok' : 'no', 'data-kind': kind }, text));
    }
    function showCoverage(c) {
      coverage.textContent = '';
      if (!c || !c.microphone || !c.read_aloud) { item('unknown', false, msg('covUnknown')); return; }
      item('microphone', c.microphone.available, c.microphone.available ? msg('covMic', { engine: c.microphone.engine }) : msg('covNoMic', { lang: langName(c.speak) }));
      item('read-aloud', c.read_aloud.available, c.read_aloud.available ? msg('covVoice', { engine: c.read_aloud.engine }) : msg('covNoVoice', { lang: langName(c.hear) }));
      // Into the language heard (what the person reads), then from the one spoken (what the others read); a pair once.
      var shown = {};
      (c.into_hear || []).concat(c.from_speak || []).forEach(function (r) {
        var k = r.from + '>' + r.to;
        if (shown[k]) return;
        shown[k] = true;
        var v = { from: langName(r.from), to: langName(r.to), via: r.via ? langName(r.via) : '', engine: r.engine || '' };
        item('translation', r.translated, msg(!r.translated ? 'covRouteNo' : r.via ? 'covRouteVia' : 'covRoute', v));
      });
      // Test mode: the robots' phrasebook lines are translated whatever the engines cover.
      if (c.livemode === false) item('test', true, msg('covTest'));
    }
    function askCoverage() {
      var speak = $('speak').value, hear = $('hear').value;
      if (!speak || !hear) return;
      var n = ++asked;
      var q = '?speak=' + encodeURIComponent(speak) + '&hear=' + encodeURIComponent(hear) + (cfg.token ? '&t=' + encodeURIComponent(cfg.token) : '');
      fetch(base + '/audio-info' + q, { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (c) { if (n === asked) showCoverage(c); }, function () { if (n === asked) showCoverage(null); });
    }
    $('speak').addEventListener('change', askCoverage);
    $('hear').addEventListener('change', askCoverage);

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
      askCoverage();
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
      $('over-h').textContent = msg(kind === 'left' ? 'leftHeading' : kind === 'canceled' ? 'canceledHeading' : 'endedHeading');
      $('over-text').textContent = msg(kind === 'left' ? 'left' : kind === 'canceled' ? 'canceled' : 'ended');
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
      $('me').textContent = m.hear_lang ? msg('me', { speak: langName(m.speak_lang), hear: langName(m.hear_lang) }) : msg('meSpeak', { speak: langName(m.speak_lang) });
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
      conn.textContent = msg('connecting');
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
        if (src.readyState !== 2) { conn.textContent = msg('reconnecting'); return; }
        setTimeout(function () {
          if (src !== es) return;
          stop();
          forget();
          showJoin(msg('noLonger'));
        }, 300);
      };
      on('phrase', function (d) { resumed = false; addPhrase(d); });
      on('partial', function (d) { addPartial(d); });
      on('speech', function (d) {
        if (!d.participant_id) return;
        talking[d.participant_id] = d.state === 'started';
        if (d.state !== 'started') {
          var who = d.participant_id;
          setTimeout(function () {
            Object.keys(live).forEach(function (k) { if (live[k].who === who && !talking[who]) { live[k].li.remove(); delete live[k]; } });
          }, LIVE_KEEP_MS);
        }
        markSpeaking();
      });
      on('participants', function (d) { resumed = false; roster = d.participants || []; showPeople(roster); });
      on('joined', function (d) { roster = roster.filter(function (p) { return p.id !== d.participant.id; }).concat([d.participant]); showPeople(roster); });
      on('left', function (d) { roster = roster.filter(function (p) { return p.id !== d.id; }); showPeople(roster); });
      on('ended', function (d) { save(null); me = null; document.dispatchEvent(new CustomEvent('tolk:left')); finish(d.status === 'canceled' ? 'canceled' : 'ended'); });
      on('gone', function () {
        stop();
        forget();
        if (resumed) showJoin(msg('noLonger'));
        else finish('left');
      });
    }

    function atBottom() { return list.scrollHeight - list.scrollTop - list.clientHeight < 48; }
    function addPhrase(p) {
      if (p.seq === undefined || seen[p.seq]) return;
      seen[p.seq] = true;
      var stick = atBottom();
      var system = p.kind === 'announcement' || p.kind === 'disclosure';
      var li = el('li', { 'class': 'phrase' + (system ? ' system' : '') + (p.own ? ' own' : '') + (p.ai ? ' ai' : ''), 'data-seq': String(p.seq), 'data-segment': p.segment_id || '' });
      if (!system) {
        var head = el('p', { 'class': 'head' });
        head.appendChild(el('span', { 'class': 'who' }, p.own ? msg('you') : (p.speaker || msg('someone'))));
        if (p.ai) head.appendChild(el('span', { 'class': 'ai-badge', title: msg('aiAgent') }, 'AI'));
        li.appendChild(head);
      }
      // Not translated (no engine covers the pair, or none answered): shown as said, in its own language, and said so.
      // The person's own phrase comes as they said it (the server sends it so), never translated back.
      li.appendChild(el('p', { 'class': 'text', lang: p.untranslated ? p.src_lang : p.lang }, p.text || ''));
      if (p.untranslated && !p.own) li.appendChild(el('p', { 'class': 'hint untranslated' }, msg('notTranslated', { lang: langName(p.src_lang) })));
      if (p.original && p.original !== p.text) li.appendChild(el('p', { 'class': 'original', lang: p.src_lang }, p.original));
      // Its partials were on the page: the phrase takes their place.
      var was = p.segment_id ? live[p.segment_id] : undefined;
      if (was) delete live[p.segment_id];
      if (was && was.li.parentNode === list) list.replaceChild(li, was.li); else list.appendChild(li);
      document.dispatchEvent(new CustomEvent('tolk:phrase', { detail: p }));
      while (list.children.length > MAX_PHRASES) list.removeChild(list.firstElementChild);
      if (stick) list.scrollTop = list.scrollHeight;
      else toLatest.hidden = false;
      // A phrase heard live was said already (its speech events told when); one typed is read for about its length.
      var ms = p.segment_id ? 0 : Number(p.duration_ms) || 0;
      if (p.participant_id && ms > 0) {
        speakingUntil[p.participant_id] = Math.max(speakingUntil[p.participant_id] || 0, Date.now() + ms);
        markSpeaking();
        setTimeout(markSpeaking, ms + 50);
      }
    }
    /** Another person's phrase so far, as it was heard (not translated yet): replaced by the next, then by the phrase itself. */
    function addPartial(p) {
      if (!p.segment_id || seen[p.seq] || (me && p.participant_id === me.id)) return;
      seen[p.seq] = true;
      var at = live[p.segment_id];
      if (at) { at.text.textContent = p.text || ''; return; }
      var stick = atBottom();
      var li = el('li', { 'class': 'phrase live', 'data-segment': p.segment_id, 'aria-busy': 'true' });
      var head = el('p', { 'class': 'head' });
      head.appendChild(el('span', { 'class': 'who' }, p.speaker || msg('someone')));
      li.appendChild(head);
      var text = el('p', { 'class': 'text', lang: p.src_lang }, p.text || '');
      li.appendChild(text);
      list.appendChild(li);
      live[p.segment_id] = { li: li, text: text, who: p.participant_id };
      if (stick) list.scrollTop = list.scrollHeight;
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
        if (you) li.appendChild(document.createTextNode(msg('youMark')));
        if (p.ai) li.appendChild(el('span', { 'class': 'ai-badge', title: msg('aiAgent') }, 'AI'));
        if (p.phone) li.appendChild(el('span', { 'class': 'phone-badge', title: msg('byPhone') }, '\u260E'));
        li.appendChild(el('span', { 'class': 'speaking-label', 'aria-hidden': 'true' }, msg('speaking')));
        li.appendChild(el('span', { 'class': 'visually-hidden speaking-now' }, ''));
        li.appendChild(el('span', { 'class': 'langs' }, msg('speaks', { lang: p.speak_lang }) + (p.hear_lang ? msg('hears', { lang: p.hear_lang }) : '')));
        people.appendChild(li);
      });
      markSpeaking();
    }
    function markSpeaking() {
      var t = Date.now();
      Array.prototype.forEach.call(people.children, function (li) {
        var id = li.getAttribute('data-id');
        var on = !!talking[id] || (speakingUntil[id] || 0) > t;
        li.classList.toggle('speaking', on);
        var now = li.querySelector('.speaking-now');
        var label = on ? msg('speakingNow') : '';
        if (now && now.textContent !== label) now.textContent = label;
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
      submit.textContent = msg('joining');
      function done() { joining = false; submit.disabled = false; submit.textContent = msg('join'); }
      post('/participants', body).then(function (r) {
        done();
        if (r.ok) { resumed = false; enter(r.body, true); return; }
        var f = r.body.field;
        if (f && FIELDS.indexOf(f) >= 0) {
          $(f).setAttribute('aria-invalid', 'true');
          $(f + '-error').textContent = clean(r.body.error || r.body.message || msg('invalid'));
          joinError.textContent = msg('checkForm');
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
    if (saved && saved.id && saved.secret) { resumed = true; enter(saved, false); } else askCoverage();
  }

  if (cfg.mode === 'scheduled') scheduledPage();
  else if (cfg.mode === 'room') roomPage();
  else if (cfg.mode === 'over') save(null);
})();
