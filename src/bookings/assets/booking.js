// The booking and manage pages' script (no dependencies): the slot picker in
// the guest's time zone, the booking form, and the manage page's buttons. Its
// texts come from the page (data-msgs), in the page's language.
// @ts-check
(function () {
  'use strict';
  var app = document.getElementById('app');
  if (!app || !app.dataset.mode) return;
  var cfg = app.dataset;
  var LOCALE = (navigator.languages && navigator.languages[0]) || navigator.language || 'en';
  try { new Intl.DateTimeFormat(LOCALE); } catch (e) { LOCALE = 'en'; }
  // The page's texts, and its dates in its language: the browser's own variant of it, else the page's.
  var M = {};
  try { M = JSON.parse(cfg.msgs || '{}'); } catch (e) { M = {}; }
  function say(key, values) {
    return String(M[key] || key).replace(/\{(\w+)\}/g, function (all, k) { return values && k in values ? String(values[k]) : all; });
  }
  var pageLang = String(document.documentElement.lang || 'en').toLowerCase().split('-')[0];
  var DATES = String(LOCALE).toLowerCase().split('-')[0] === pageLang ? LOCALE : (cfg.dateLocale || pageLang);
  try { new Intl.DateTimeFormat(DATES); } catch (e) { DATES = 'en-GB'; }
  var DAY = 86400000;
  var fmts = {};

  function fmt(tz, opts) {
    var key = tz + '|' + JSON.stringify(opts);
    if (!fmts[key]) {
      var o = { timeZone: tz };
      for (var k in opts) o[k] = opts[k];
      fmts[key] = new Intl.DateTimeFormat(DATES, o);
    }
    return fmts[key];
  }
  function ymdIn(ms, tz) {
    var key = 'ymd|' + tz;
    if (!fmts[key]) fmts[key] = new Intl.DateTimeFormat('en-US', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', calendar: 'gregory', numberingSystem: 'latn' });
    var p = {};
    fmts[key].formatToParts(new Date(ms)).forEach(function (x) { p[x.type] = x.value; });
    return p.year + '-' + p.month + '-' + p.day;
  }
  function addDays(ymd, n) { return new Date(Date.parse(ymd + 'T00:00:00Z') + n * DAY).toISOString().slice(0, 10); }
  function dayLabel(ymd, opts) { return fmt('UTC', opts).format(new Date(Date.parse(ymd + 'T00:00:00Z'))); }
  function timeLabel(iso, tz) { return fmt(tz, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso)); }
  function fullLabel(iso, tz) {
    return fmt(tz, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(new Date(iso)) + ' (' + tz + ')';
  }
  function validZone(tz) { try { new Intl.DateTimeFormat('en', { timeZone: tz }); return true; } catch (e) { return false; } }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  /** The element with this id: the page's markup has each one the script uses. @param {string} id @returns {any} */
  function $(id) { return document.getElementById(id); }
  function getJson(res) {
    return res.text().then(function (t) {
      var body = null;
      try { body = t ? JSON.parse(t) : null; } catch (e) { body = null; }
      return { ok: res.ok, status: res.status, body: body || {} };
    });
  }
  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify(body || {})
    }).then(getJson);
  }
  var TAKEN = say('taken');
  function problemText(r) {
    if (r.body && r.body.code === 'slot_taken') return TAKEN;
    // A limit says what there were too many of and when to come back.
    if (r.status === 429 && r.body && r.body.code === 'rate_limited' && r.body.error) return r.body.error;
    if (r.status === 429 || r.status >= 500) return say('busy');
    return (r.body && (r.body.error || r.body.message)) || say('problem', { status: r.status });
  }

  // The slot picker: time zone select, week navigation, days of slot buttons.
  function Picker(opts) {
    var tzSel = $('tz'), prev = $('prev-week'), next = $('next-week'), label = $('week-label');
    var status = $('slots-status'), error = $('slots-error'), days = $('days');
    var browserTz = 'UTC';
    try { browserTz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'; } catch (e) { browserTz = 'UTC'; }
    if (!validZone(browserTz)) browserTz = 'UTC';
    var zones = [];
    try { zones = Intl.supportedValuesOf('timeZone').slice(); } catch (e) { zones = []; }
    [browserTz, cfg.hostTz, 'UTC'].forEach(function (z) { if (z && zones.indexOf(z) < 0) zones.push(z); });
    zones.sort();
    tzSel.textContent = '';
    zones.forEach(function (z) {
      var o = el('option', { value: z }, z.replace(/_/g, ' '));
      if (z === browserTz) o.selected = true;
      tzSel.appendChild(o);
    });
    var tz = browserTz, week = 0, seq = 0, selected = null, shown = [];

    function load() {
      var start = addDays(ymdIn(Date.now(), tz), week * 7), end = addDays(start, 6);
      // Dates of the host around the guest's week: a guest's date is within two days of the host's.
      var url = cfg.slots + '?from=' + addDays(start, -2) + '&to=' + addDays(end, 2);
      var mine = ++seq;
      prev.disabled = week === 0;
      // The booking window: no week after the one its last day is in.
      next.disabled = !!cfg.windowEnd && addDays(end, 1) > ymdIn(Date.parse(cfg.windowEnd) - 1, tz);
      label.textContent = dayLabel(start, { day: 'numeric', month: 'short' }) + ' – ' + dayLabel(end, { day: 'numeric', month: 'short', year: 'numeric' });
      status.textContent = say('loading');
      error.textContent = '';
      days.setAttribute('aria-busy', 'true');
      fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' }).then(getJson).then(function (r) {
        if (mine !== seq) return;
        days.removeAttribute('aria-busy');
        if (!r.ok) { status.textContent = ''; error.textContent = say('loadError', { problem: problemText(r) }); return; }
        render(r.body.slots || [], start, end);
      }, function () {
        if (mine !== seq) return;
        days.removeAttribute('aria-busy');
        status.textContent = '';
        error.textContent = say('loadOffline');
      });
    }

    function render(slots, start, end) {
      var byDay = {};
      shown = [];
      slots.forEach(function (iso) {
        var d = ymdIn(Date.parse(iso), tz);
        if (d < start || d > end) return;
        (byDay[d] = byDay[d] || []).push(iso);
        shown.push(iso);
      });
      days.textContent = '';
      for (var d = start; d <= end; d = addDays(d, 1)) {
        if (!byDay[d]) continue;
        var fs = el('fieldset', { 'class': 'day', 'data-date': d });
        fs.appendChild(el('legend', {}, dayLabel(d, { weekday: 'long', day: 'numeric', month: 'long' })));
        var grid = el('div', { 'class': 'times' });
        byDay[d].forEach(function (iso) {
          var b = el('button', { type: 'button', 'class': 'slot', 'data-start': iso, 'aria-pressed': iso === selected ? 'true' : 'false' });
          b.appendChild(el('time', { datetime: iso }, timeLabel(iso, tz)));
          grid.appendChild(b);
        });
        fs.appendChild(grid);
        days.appendChild(fs);
      }
      status.textContent = shown.length
        ? say(shown.length === 1 ? 'freeOne' : 'freeMany', { n: shown.length, tz: tz.replace(/_/g, ' ') })
        : next.disabled ? say('noneLast') : say('noneNext');
    }

    days.addEventListener('click', function (e) {
      var target = /** @type {Element} */ (e.target);
      var b = target.closest ? target.closest('button.slot') : null;
      if (!b) return;
      selected = b.getAttribute('data-start');
      Array.prototype.forEach.call(days.querySelectorAll('button.slot'), function (x) {
        x.setAttribute('aria-pressed', x === b ? 'true' : 'false');
      });
      opts.onPick(selected);
    });
    prev.addEventListener('click', function () { if (week > 0) { week--; load(); } });
    next.addEventListener('click', function () { week++; load(); });
    tzSel.addEventListener('change', function () {
      if (!validZone(tzSel.value)) return;
      tz = tzSel.value;
      load();
      if (opts.onZone) opts.onZone(tz);
    });
    load();
    return {
      tz: function () { return tz; },
      selected: function () { return selected; },
      clear: function () { selected = null; },
      refresh: load
    };
  }

  function bookPage() {
    var form = $('book-form'), chosen = $('chosen'), submit = $('book-submit'), formError = $('form-error');
    var fields = ['name', 'email', 'speak', 'hear'];
    var lang = String(LOCALE).toLowerCase().split('-')[0];
    ['speak', 'hear'].forEach(function (id) {
      var s = $(id);
      for (var i = 0; i < s.options.length; i++) if (s.options[i].value === lang) s.value = lang;
    });
    var locale = /^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$/.test(LOCALE) && LOCALE.length <= 8 ? LOCALE : (/^[a-z]{2,3}$/.test(lang) ? lang : 'en');
    function showChosen() {
      var iso = picker.selected();
      chosen.textContent = iso ? say('yourTime', { time: fullLabel(iso, picker.tz()) }) : say('noTime');
    }
    function clearErrors() {
      formError.textContent = '';
      fields.forEach(function (f) { $(f).removeAttribute('aria-invalid'); $(f + '-error').textContent = ''; });
    }
    var picker = Picker({
      onPick: function () { form.hidden = false; clearErrors(); showChosen(); $('name').focus(); },
      onZone: showChosen
    });
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      clearErrors();
      var start = picker.selected();
      if (!start) { formError.textContent = say('pickFirst'); return; }
      submit.disabled = true;
      submit.textContent = say('booking');
      post(cfg.post, {
        start: start, name: $('name').value, email: $('email').value, speak: $('speak').value, hear: $('hear').value,
        tz: picker.tz(), locale: locale
      }).then(function (r) {
        submit.disabled = false;
        submit.textContent = say('book');
        if (r.ok) return done(r.body);
        if (r.body.code === 'slot_taken' || (r.body.field === 'start')) {
          formError.textContent = r.body.code === 'slot_taken' ? TAKEN : say('noLongerFree');
          picker.clear();
          showChosen();
          picker.refresh();
          return;
        }
        var f = r.body.field;
        if (f && fields.indexOf(f) >= 0) {
          $(f).setAttribute('aria-invalid', 'true');
          $(f + '-error').textContent = String(r.body.error || r.body.message || say('invalid')).replace(/^[A-Za-z_.]+: /, '');
          formError.textContent = say('checkForm');
          $(f).focus();
          return;
        }
        formError.textContent = problemText(r);
      }, function () {
        submit.disabled = false;
        submit.textContent = say('book');
        formError.textContent = say('offline');
      });
    });
    function done(b) {
      $('booking').hidden = true;
      $('done-guest').textContent = fullLabel(b.start, picker.tz());
      $('done-host').textContent = fullLabel(b.start, b.host_tz || cfg.hostTz);
      var room = $('done-room');
      room.textContent = b.room_url || '';
      room.href = b.room_url || '#';
      $('done-manage').href = b.manage_url || '#';
      $('done-ics').href = b.ics_url || '#';
      var d = $('done');
      d.hidden = false;
      d.focus();
    }
  }

  function managePage() {
    var err = $('manage-error'), picker = null;
    var rs = $('reschedule'), confirm = $('cancel-confirm'), move = $('move-confirm'), moveChosen = $('move-chosen');
    function busy(on) {
      Array.prototype.forEach.call(app.querySelectorAll('button'), function (b) {
        if (on) {
          b.setAttribute('data-was', b.disabled ? '1' : '');
          b.disabled = true;
        } else {
          b.disabled = b.getAttribute('data-was') === '1';
        }
      });
    }
    function showMove() {
      var iso = picker && picker.selected();
      moveChosen.textContent = iso ? say('newTime', { time: fullLabel(iso, picker.tz()) }) : say('pickNew');
      move.disabled = !iso;
    }
    $('reschedule-open').addEventListener('click', function () {
      confirm.hidden = true;
      rs.hidden = false;
      if (!picker) picker = Picker({ onPick: function () { showMove(); move.focus(); }, onZone: showMove });
      $('tz').focus();
    });
    $('move-close').addEventListener('click', function () { rs.hidden = true; $('reschedule-open').focus(); });
    move.addEventListener('click', function () {
      var start = picker && picker.selected();
      if (!start) return;
      err.textContent = '';
      busy(true);
      post(cfg.reschedule, { start: start }).then(function (r) {
        if (r.ok) { location.replace(cfg.self + '?done=rescheduled'); return; }
        busy(false);
        if (r.body.code === 'slot_taken' || r.body.field === 'start') {
          err.textContent = r.body.code === 'slot_taken' ? TAKEN : say('noLongerFree');
          picker.clear();
          showMove();
          picker.refresh();
          return;
        }
        err.textContent = problemText(r);
      }, function () { busy(false); err.textContent = say('offline'); });
    });
    $('cancel-open').addEventListener('click', function () {
      rs.hidden = true;
      confirm.hidden = false;
      $('cancel-yes').focus();
    });
    $('cancel-no').addEventListener('click', function () { confirm.hidden = true; $('cancel-open').focus(); });
    $('cancel-yes').addEventListener('click', function () {
      err.textContent = '';
      busy(true);
      post(cfg.cancel, {}).then(function (r) {
        if (r.ok) { location.replace(cfg.self + '?done=canceled'); return; }
        busy(false);
        err.textContent = problemText(r);
      }, function () { busy(false); err.textContent = say('offline'); });
    });
  }

  if (cfg.mode === 'book') bookPage();
  else if (cfg.mode === 'manage') managePage();
})();
