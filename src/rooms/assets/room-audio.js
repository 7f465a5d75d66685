// The room page's audio (beside room.js, which tells it when the person
// joins or leaves and each phrase that arrives, through document events):
//
// - Speak: the microphone, asked for only when the person presses a button.
//   "Microphone" keeps it open (open mic; "Mute" pauses it), "Hold to talk"
//   sends only while held (or while Space is held on it). Where the room has
//   live voices (room-voices.js), the microphone is a WebRTC track the others
//   hear, which the server also reads for captions; else audio goes to the
//   server over a WebSocket as 16 kHz 16-bit PCM (mic-worklet.js); the server
//   cuts it into phrases, reads each with a speech recognizer and puts it in
//   the room's log, where it comes back like a typed phrase. What it has read
//   so far of the phrase under way shows under the buttons, replaced by the
//   phrase once it is final.
// - Hear: "Read aloud" speaks every phrase of the others, from then on, in the
//   person's language (GET /r/{id}/speech), one after another, never two at
//   once, never their own; "Pause" holds it and "Resume" goes on.
// - Where the service has no recognizer for the person's language, or no voice
//   for the language they hear, the control says so and stays off; typing
//   works as always.
// Its texts come from the page (data-msgs), in the page's language, as
// room.js's do; so do the language names (Intl.DisplayNames).
// @ts-check
(function () {
  'use strict';
  var app = document.getElementById('app');
  if (!app || app.dataset.mode !== 'room') return;
  var base = '/r/' + encodeURIComponent(app.dataset.room || '');
  /** A text of the page's language, its {placeholders} filled (room.js's). @type {(key: string, values?: Record<string, any>) => string} */
  var msg = /** @type {any} */ (window).tolkText;
  var names = null;
  try { names = new Intl.DisplayNames([document.documentElement.lang || 'en'], { type: 'language' }); } catch (e) { names = null; }
  function langName(code) {
    try { var n = names && code ? names.of(code) : ''; if (n && n !== code) return n; } catch (e) { /* not a language code */ }
    return code;
  }

  /** The element with this id: the page's markup has each one the script uses. @param {string} id @returns {any} */
  function $(id) { return document.getElementById(id); }
  var micBtn = $('mic'), pttBtn = $('ptt'), muteBtn = $('mute'), level = $('mic-level'), micStatus = $('mic-status'), partial = $('partial');
  var readBox = $('read-aloud'), pauseBtn = $('read-pause'), readStatus = $('read-status');
  if (!micBtn || !readBox) return;

  var me = null;
  var info = null;
  // The microphone: its stream, the 16 kHz context and worklet, the socket.
  var media = null, ctx = null, node = null, ws = null, starting = null;
  var mode = null; // 'open' or 'ptt'
  var muted = false, holding = false;

  function qs() { return 'participant=' + encodeURIComponent(me.id) + '&secret=' + encodeURIComponent(me.secret); }
  function say(el, text) { if (el.textContent !== text) el.textContent = text; }

  // --- Who is here, and what the service can do for them ---

  function joined(d) {
    me = d.me;
    info = null;
    var t = app.dataset.token ? '&t=' + encodeURIComponent(app.dataset.token) : '';
    fetch(base + '/audio-info?speak=' + encodeURIComponent(me.speak_lang) + '&hear=' + encodeURIComponent(me.hear_lang) + t, { credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (i) { info = i; showInfo(); }, function () { showInfo(); })
      .then(function () { document.dispatchEvent(new CustomEvent('tolk:audio-info', { detail: info })); });
  }
  /** The room's live voices (room-voices.js), when linked: the microphone goes there, not over our socket. */
  function voices() {
    var v = /** @type {any} */ (window).tolkVoices;
    return v && v.live ? v : null;
  }
  function showInfo() {
    // Heard live by the others (voices), or read for captions (a recognizer): either is speaking.
    var canSpeak = !!(info && ((info.microphone && info.microphone.available) || (info.voices && info.voices.available)));
    var canHear = !!(info && info.read_aloud && info.read_aloud.available);
    micBtn.disabled = !canSpeak;
    pttBtn.disabled = !canSpeak;
    say(micStatus, info === null ? msg('micUnavailable')
      : info.microphone && info.microphone.available ? '' : msg('noRecognizer', { lang: langName(me.speak_lang) }));
    readBox.disabled = !canHear;
    say(readStatus, info === null ? '' : canHear ? '' : msg('noVoice', { lang: langName(me.hear_lang) }));
  }
  function left() {
    stopMic();
    stopReading();
    me = null;
  }

  // --- Speak ---

  function micMessage(e) {
    level.value = Math.min(1, (e.data.rms || 0) * 4);
    // Sent live: the track itself is on only while the person may be heard.
    var track = media && media.getAudioTracks()[0];
    if (track && voices()) track.enabled = !muted && (mode !== 'ptt' || holding);
    if (!ws || ws.readyState !== 1 || muted) return;
    if (mode === 'ptt' && !holding) return;
    ws.send(e.data.pcm);
  }
  /** What the service heard of the microphone: the phrase so far, its final, or why it stopped. */
  function micReply(m) {
    if (m.type === 'partial') say(partial, m.text + ' …');
    else if (m.type === 'final') say(partial, m.text ? '' : msg('notCaught'));
    else if (m.type === 'error') say(micStatus, m.message || msg('micStopped'));
  }
  var v0 = /** @type {any} */ (window).tolkVoices;
  if (v0) v0.onMic(micReply);
  /** The microphone to the service: live to the room's voices where linked, else as PCM over our socket. */
  function sendMic() {
    var v = voices();
    if (v && media) v.publish(media.getAudioTracks()[0]);
    else openSocket();
  }
  function openSocket() {
    var proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    var sock = ws = new WebSocket(proto + '//' + location.host + base + '/audio?' + qs());
    sock.binaryType = 'arraybuffer';
    sock.onmessage = function (e) {
      if (sock !== ws || typeof e.data !== 'string') return;
      var m = null;
      try { m = JSON.parse(e.data); } catch (x) { return; }
      micReply(m);
    };
    // A socket with nothing to say (muted, push-to-talk up) still says it is there: the server closes
    // one that sends no message for a minute (rooms/mic-watch.ts).
    var keepAlive = setInterval(function () {
      if (sock.readyState === 1) sock.send(JSON.stringify({ type: 'ping' }));
    }, 20000);
    sock.onclose = function (e) {
      clearInterval(keepAlive);
      if (sock !== ws) return;
      ws = null;
      if (mode && e.code !== 1000) {
        if (!micStatus.textContent) say(micStatus, msg('micStoppedWhy', { reason: e.reason || e.code }));
        stopMic(true);
      }
    };
  }
  function startMic(m) {
    if (!me || micBtn.disabled) return Promise.resolve(false);
    mode = m;
    say(micStatus, '');
    if (ctx) {
      if (!ws) sendMic();
      return Promise.resolve(true);
    }
    if (starting) return starting;
    say(micStatus, msg('askingMic'));
    starting = navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true } })
      .then(function (s) {
        media = s;
        try { ctx = new AudioContext({ sampleRate: 16000 }); } catch (x) { ctx = new AudioContext(); }
        // The worklet's address is the page's (its content's hash in it): a module of its own.
        return ctx.audioWorklet.addModule(app.dataset.worklet || '/r/assets/mic-worklet.js');
      })
      .then(function () {
        node = new AudioWorkletNode(ctx, 'tolk-mic');
        node.port.onmessage = micMessage;
        ctx.createMediaStreamSource(media).connect(node);
        say(micStatus, '');
        sendMic();
        starting = null;
        return true;
      }, function () {
        starting = null;
        stopMic(true);
        say(micStatus, msg('micDenied'));
        return false;
      });
    return starting;
  }
  function stopMic(keepStatus) {
    var v = voices();
    if (v) v.unpublish();
    if (ws) {
      var sock = ws;
      ws = null;
      try { sock.send(JSON.stringify({ type: 'end' })); } catch (x) { /* closing */ }
      sock.close(1000);
    }
    if (media) media.getTracks().forEach(function (t) { t.stop(); });
    if (ctx) ctx.close();
    media = null; ctx = null; node = null; mode = null; holding = false; muted = false;
    level.value = 0;
    micBtn.setAttribute('aria-pressed', 'false');
    micBtn.textContent = msg('microphone');
    muteBtn.hidden = true;
    muteBtn.setAttribute('aria-pressed', 'false');
    muteBtn.textContent = msg('mute');
    pttBtn.setAttribute('aria-pressed', 'false');
    if (!keepStatus) say(micStatus, '');
    say(partial, '');
  }

  micBtn.addEventListener('click', function () {
    if (mode === 'open') return stopMic();
    startMic('open').then(function (ok) {
      if (!ok) return;
      micBtn.setAttribute('aria-pressed', 'true');
      micBtn.textContent = msg('micOn');
      muteBtn.hidden = false;
    });
  });
  muteBtn.addEventListener('click', function () {
    muted = !muted;
    // The phrase under way ends where the person muted.
    if (muted && ws && ws.readyState === 1) ws.send(JSON.stringify({ type: 'end' }));
    var v = voices();
    if (v && muted) {
      media.getAudioTracks()[0].enabled = false;
      v.end();
    }
    muteBtn.setAttribute('aria-pressed', muted ? 'true' : 'false');
    muteBtn.textContent = msg(muted ? 'unmute' : 'mute');
  });
  function press(e) {
    if (e) e.preventDefault();
    if (holding || mode === 'open') return;
    holding = true;
    pttBtn.setAttribute('aria-pressed', 'true');
    startMic('ptt');
  }
  function release() {
    if (!holding) return;
    holding = false;
    pttBtn.setAttribute('aria-pressed', 'false');
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: 'end' }));
    var v = voices();
    if (v && media) {
      media.getAudioTracks()[0].enabled = false;
      v.end();
    }
  }
  pttBtn.addEventListener('pointerdown', press);
  pttBtn.addEventListener('pointerup', release);
  pttBtn.addEventListener('pointerleave', release);
  pttBtn.addEventListener('pointercancel', release);
  pttBtn.addEventListener('keydown', function (e) { if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) press(e); });
  pttBtn.addEventListener('keyup', function (e) { if (e.key === ' ' || e.key === 'Enter') release(); });

  // --- Hear ---

  var player = null, queue = [], playing = false, paused = false;
  function wanted(p) {
    return !p.own && p.kind !== 'announcement' && p.kind !== 'disclosure' && p.kind !== 'dtmf' && !!p.text;
  }
  function phrase(p) {
    if (!readBox.checked || !me || !wanted(p)) return;
    queue.push(p.seq);
    next();
  }
  function next() {
    if (playing || paused || !player || queue.length === 0) return;
    var seq = queue.shift();
    playing = true;
    fetch(base + '/speech?' + qs() + '&seq=' + encodeURIComponent(seq), { credentials: 'same-origin' })
      .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.arrayBuffer(); })
      .then(function (bytes) { return player.decodeAudioData(bytes); })
      .then(function (buffer) {
        if (!player) { playing = false; return; }
        var src = player.createBufferSource();
        src.buffer = buffer;
        src.connect(player.destination);
        src.onended = function () { playing = false; next(); };
        src.start();
      })
      .catch(function () { playing = false; next(); });
  }
  function stopReading() {
    queue = [];
    playing = false;
    paused = false;
    if (player) player.close();
    player = null;
    readBox.checked = false;
    pauseBtn.hidden = true;
  }
  readBox.addEventListener('change', function () {
    if (!readBox.checked) return stopReading();
    // Created on the person's click: browsers let a page play sound after one.
    player = new AudioContext();
    pauseBtn.hidden = false;
    pauseBtn.textContent = msg('pause');
  });
  pauseBtn.addEventListener('click', function () {
    if (!player) return;
    paused = !paused;
    pauseBtn.textContent = msg(paused ? 'resume' : 'pause');
    if (paused) player.suspend();
    else player.resume().then(next);
  });

  document.addEventListener('tolk:joined', function (/** @type {CustomEvent} */ e) { joined(e.detail); });
  document.addEventListener('tolk:left', left);
  document.addEventListener('tolk:phrase', function (/** @type {CustomEvent} */ e) { phrase(e.detail); });
  // room.js may have joined before this script ran (a reload rejoins at once).
  if (window.tolkRoom && window.tolkRoom.me) joined(window.tolkRoom);
})();
