// The consent page's script (no dependencies): the code, the recording
// (MediaRecorder, in the first container the browser offers of WebM, Ogg
// and MP4), its upload, and the wait for the voice. The secret of step 2 is
// kept in sessionStorage, so a reload does not ask for a new code.
// @ts-check
(function () {
  'use strict';
  var app = document.getElementById('app');
  if (!app || app.dataset.mode !== 'consent') return;
  var base = app.dataset.base;
  var minMs = Number(app.dataset.minMs), maxMs = Number(app.dataset.maxMs);
  var store = 'tolk-consent:' + base;
  // The page's texts in its language, and that language for the errors of its requests.
  var M = {};
  try { M = JSON.parse(app.dataset.msgs || '{}'); } catch (e) { M = {}; }
  var LANG = document.documentElement.lang || 'en';
  function say(key, values) {
    return String(M[key] || key).replace(/\{(\w+)\}/g, function (all, k) { return values && k in values ? String(values[k]) : all; });
  }
  /** The element with this id: the page's markup has each one the script uses. @param {string} id @returns {any} */
  function $(id) { return document.getElementById(id); }
  function json(res) {
    return res.text().then(function (t) {
      var body = null;
      try { body = t ? JSON.parse(t) : null; } catch (e) { body = null; }
      return { ok: res.ok, status: res.status, body: body };
    });
  }
  function post(path, body) {
    return fetch(base + path, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-language': LANG },
      body: JSON.stringify(body || {}) }).then(json);
  }
  function problem(r) { return (r.body && (r.body.error || r.body.message)) || say('problem', { status: r.status }); }
  function clean(m) { return String(m).replace(/^[a-z_]+: /, ''); }

  function sendCode() {
    $('code-status').textContent = say('sending');
    post('/code').then(function (r) {
      if (!r.ok) { $('code-status').textContent = clean(problem(r)); return; }
      $('code-status').textContent = say('sent', { to: r.body.sent_to, minutes: Math.round(r.body.expires_in / 60) });
      $('send-code').hidden = true;
      $('code-form').hidden = false;
      $('code').focus();
    }, function () { $('code-status').textContent = say('offline'); });
  }
  $('send-code').addEventListener('click', sendCode);
  $('resend').addEventListener('click', sendCode);

  $('code-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var code = $('code').value.replace(/\s+/g, '');
    $('code-error').textContent = '';
    $('code').removeAttribute('aria-invalid');
    post('/verify', { code: code }).then(function (r) {
      if (!r.ok) { $('code').setAttribute('aria-invalid', 'true'); $('code-error').textContent = clean(problem(r)); $('code').focus(); return; }
      try { sessionStorage.setItem(store, JSON.stringify(r.body)); } catch (x) { /* private mode: kept in memory only */ }
      showRecord(r.body);
    }, function () { $('code-error').textContent = say('unreachable'); });
  });

  var verified = null;
  function showRecord(v) {
    verified = v;
    $('step-email').hidden = true;
    $('step-record').hidden = false;
    var s = $('sentence');
    s.textContent = v.sentence;
    s.setAttribute('lang', v.sentence_lang);
    $('record').focus();
  }

  var recorder = null, chunks = [], blob = null, started = 0, tick = null, stream = null;
  function pickType() {
    var types = ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4'];
    if (typeof MediaRecorder === 'undefined') return null;
    for (var i = 0; i < types.length; i++) if (MediaRecorder.isTypeSupported(types[i])) return types[i];
    return '';
  }
  function stopTracks() { if (stream) stream.getTracks().forEach(function (t) { t.stop(); }); stream = null; }
  function updateSubmit() { $('submit').disabled = !(blob && $('agree').checked); }
  $('agree').addEventListener('change', updateSubmit);

  $('record').addEventListener('click', function () {
    var type = pickType();
    $('record-error').textContent = '';
    if (type === null || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      $('record-error').textContent = say('noRecorder');
      return;
    }
    $('mic-status').textContent = say('askingMic');
    navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: false } }).then(function (s) {
      stream = s;
      chunks = [];
      blob = null;
      updateSubmit();
      $('playback').hidden = true;
      recorder = type ? new MediaRecorder(s, { mimeType: type }) : new MediaRecorder(s);
      recorder.ondataavailable = function (e) { if (e.data && e.data.size) chunks.push(e.data); };
      recorder.onstop = function () {
        clearInterval(tick);
        stopTracks();
        var elapsed = Date.now() - started;
        blob = new Blob(chunks, { type: recorder.mimeType || type || 'audio/webm' });
        $('record').textContent = say('recordAgain');
        $('record').classList.remove('recording');
        $('record').disabled = false;
        $('stop').disabled = true;
        if (elapsed < minMs) {
          blob = null;
          $('mic-status').textContent = '';
          $('record-error').textContent = say('tooShort', { seconds: (elapsed / 1000).toLocaleString(LANG, { minimumFractionDigits: 1, maximumFractionDigits: 1 }), min: minMs / 1000 });
        } else {
          $('mic-status').textContent = say('recorded', { seconds: (elapsed / 1000).toLocaleString(LANG, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
          $('playback').src = URL.createObjectURL(blob);
          $('playback').hidden = false;
        }
        updateSubmit();
      };
      recorder.start(250);
      started = Date.now();
      $('record').disabled = true;
      $('record').classList.add('recording');
      $('stop').disabled = false;
      $('stop').focus();
      $('mic-status').textContent = say('recording');
      tick = setInterval(function () {
        var ms = Date.now() - started;
        $('elapsed').textContent = say('seconds', { n: (ms / 1000).toFixed(0) });
        if (ms >= maxMs) recorder.stop();
      }, 250);
    }, function () {
      $('mic-status').textContent = '';
      $('record-error').textContent = say('micDenied');
    });
  });
  $('stop').addEventListener('click', function () { if (recorder && recorder.state === 'recording') recorder.stop(); });

  $('submit').addEventListener('click', function () {
    if (!blob || !verified) return;
    $('submit').disabled = true;
    $('record-error').textContent = '';
    $('mic-status').textContent = say('uploading');
    fetch(base + '/recording', { method: 'POST', credentials: 'same-origin',
      headers: { 'content-type': blob.type.split(';')[0] || 'audio/webm', 'x-consent-secret': verified.secret, accept: 'application/json', 'accept-language': LANG }, body: blob })
      .then(json).then(function (r) {
        if (!r.ok) {
          $('mic-status').textContent = '';
          $('record-error').textContent = clean(problem(r));
          if (r.status === 401) { try { sessionStorage.removeItem(store); } catch (x) {} $('step-record').hidden = true; $('step-email').hidden = false; $('send-code').hidden = false; $('code-form').hidden = true; }
          updateSubmit();
          return;
        }
        try { sessionStorage.removeItem(store); } catch (x) {}
        $('step-record').hidden = true;
        $('step-done').hidden = false;
        $('step-done').focus();
        $('done-status').textContent = say('thanks');
        wait(0);
      }, function () { $('mic-status').textContent = ''; $('record-error').textContent = say('unreachable'); updateSubmit(); });
  });

  function wait(n) {
    fetch(base + '/status', { headers: { accept: 'application/json', 'accept-language': LANG }, credentials: 'same-origin' }).then(json).then(function (r) {
      var st = r.body && r.body.status;
      if (st === 'ready') { $('done-status').textContent = say('ready'); return; }
      if (st === 'failed') { $('done-status').textContent = say('failed'); return; }
      if (st === 'revoked') { $('done-status').textContent = say('revoked'); return; }
      if (n < 60) setTimeout(function () { wait(n + 1); }, 1000);
      else $('done-status').textContent = say('stillPreparing');
    }, function () { if (n < 60) setTimeout(function () { wait(n + 1); }, 2000); });
  }

  try {
    var saved = JSON.parse(sessionStorage.getItem(store) || 'null');
    if (saved && saved.secret) showRecord(saved);
  } catch (x) { /* nothing saved */ }
})();
