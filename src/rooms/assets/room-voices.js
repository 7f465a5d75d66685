// The room's live voices (beside room-audio.js, which asks for the microphone):
// where the service has a media server (GET /r/{id}/audio-info says `voices`),
// the page links to it through the service (a WebSocket, /r/{id}/voices: the
// page never talks to the media server itself) and
//
// - hears every other person's own voice as they speak, one audio track each,
//   on one RTCPeerConnection the service offers (again whenever someone starts
//   or stops speaking); never its own;
// - sends the microphone, when room-audio.js turns it on, as an Opus track on
//   a second RTCPeerConnection (sendonly): the service reads it for captions
//   from there, so nothing else is uploaded. Muting disables the track (the
//   others hear silence at once); turning the microphone off unpublishes it;
// - hears the interpretation channel of its "I hear" language on a third
//   RTCPeerConnection: the others' phrases said in another language,
//   translated and spoken, and what agents, announcements and the AI
//   disclosure say. While it speaks, the original voices are lowered by 12 dB
//   (a quarter of their level, as interpreters' booths do), measured on the
//   channel's own audio; the balance slider sets voices against interpretation.
//
// Where there is no media server, or it goes away, the page says why under the
// controls and keeps the captions (and "read aloud"); a link that dropped is
// made again after a pause. Other scripts use it through window.tolkVoices.
// @ts-check
(function () {
  'use strict';
  var app = document.getElementById('app');
  if (!app || app.dataset.mode !== 'room') return;
  var base = '/r/' + encodeURIComponent(app.dataset.room || '');
  /** A text of the page's language, its {placeholders} filled (room.js's). @type {(key: string, values?: Record<string, any>) => string} */
  var msg = /** @type {any} */ (window).tolkText;
  var status = document.getElementById('voices-status');
  var box = document.getElementById('voices');
  if (!status || !box) return;

  var me = null, ws = null, ice = [], sub = null, pub = null, track = null, retry = null, pinger = null;
  /** The interpretation channel: its connection, what it plays, and the meter that ducks the voices. */
  var interp = null, interpEl = null, meter = null, duckUntil = 0;
  /** The original voices while the interpretation speaks: -12 dB. */
  var DUCK = 0.25;
  var balanceRow = document.getElementById('balance-row'), balance = /** @type {HTMLInputElement | null} */ (document.getElementById('balance'));
  /** The voices heard now: the subscription's audio tracks, by mid, with whose they are. */
  var heard = {};
  /** Called with each caption message of the microphone (partial, final, error), set by room-audio.js. */
  var onMic = null;

  function say(text) { if (status.textContent !== text) status.textContent = text; }
  function send(m) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(m)); }

  /** Resolves once the connection's candidates are all in its description (the service does not trickle), or after 3 s. */
  function gathered(pc) {
    return new Promise(function (resolve) {
      if (pc.iceGatheringState === 'complete') return resolve(undefined);
      var t = setTimeout(resolve, 3000);
      pc.addEventListener('icegatheringstatechange', function () {
        if (pc.iceGatheringState === 'complete') { clearTimeout(t); resolve(undefined); }
      });
    });
  }

  function link() {
    if (!me || ws) return;
    var proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    var sock = ws = new WebSocket(proto + '//' + location.host + base + '/voices?participant=' + encodeURIComponent(me.id) + '&secret=' + encodeURIComponent(me.secret));
    say(msg('voicesLinking'));
    sock.onmessage = function (e) {
      if (sock !== ws || typeof e.data !== 'string') return;
      var m = null;
      try { m = JSON.parse(e.data); } catch (x) { return; }
      if (m.type === 'ready') {
        ice = m.ice_servers || [];
        api.live = true;
        say(msg('voicesLive'));
        if (track) publish(track);
      } else if (m.type === 'offer') answer(m);
      else if (m.type === 'published') { if (pub) pub.setRemoteDescription({ type: 'answer', sdp: m.sdp }).catch(function () {}); }
      else if (m.type === 'partial' || m.type === 'final' || m.type === 'error') { if (onMic) onMic(m); }
    };
    pinger = setInterval(function () { send({ type: 'ping' }); }, 20000);
    sock.onclose = function (e) {
      if (sock !== ws) return;
      ws = null;
      clearInterval(pinger);
      api.live = false;
      closeAll();
      if (!me || e.code === 4009 || e.code === 4001) return;
      // The media server went away (4010), or the link did: said, and tried again.
      say(msg('voicesGone', { reason: e.reason || e.code }));
      retry = setTimeout(function () { retry = null; link(); }, 3000);
    };
  }

  /** How loud each plays: the balance, and the ducking while the interpretation speaks. */
  function mix() {
    var b = balance ? Number(balance.value) : 50;
    var voicesGain = Math.min(1, (100 - b) / 50) * (Date.now() < duckUntil ? DUCK : 1);
    Object.keys(heard).forEach(function (mid) { heard[mid].el.volume = voicesGain; });
    if (interpEl) interpEl.volume = Math.min(1, b / 50);
  }
  if (balance) balance.addEventListener('input', mix);

  /** The interpretation channel's offer: answered, played, and metered (the voices duck while it speaks). */
  function interpretation(m) {
    if (!interp) {
      interp = new RTCPeerConnection({ iceServers: ice });
      interp.ontrack = function (e) {
        interpEl = document.createElement('audio');
        interpEl.autoplay = true;
        interpEl.srcObject = new MediaStream([e.track]);
        box.appendChild(interpEl);
        if (balanceRow) balanceRow.hidden = false;
        try {
          var ctx = new AudioContext();
          var an = ctx.createAnalyser();
          ctx.createMediaStreamSource(interpEl.srcObject).connect(an);
          var buf = new Float32Array(an.fftSize);
          meter = { ctx: ctx, timer: setInterval(function () {
            an.getFloatTimeDomainData(buf);
            var sum = 0;
            for (var i = 0; i < buf.length; i++) sum += buf[i] * buf[i];
            // Speaking (and 400 ms after, so the voices do not pump between its words).
            if (Math.sqrt(sum / buf.length) > 0.003) duckUntil = Date.now() + 400;
            mix();
          }, 50) };
        } catch (x) { meter = null; }
        mix();
      };
    }
    reply(interp, m, 'interpretation');
  }

  /** The service's offer on `pc` answered (its candidates in it); an offer that cannot be taken gets an empty answer. */
  function reply(pc, m, channel) {
    pc.setRemoteDescription({ type: 'offer', sdp: m.sdp })
      .then(function () { return pc.createAnswer(); })
      .then(function (a) { return pc.setLocalDescription(a); })
      .then(function () { return gathered(pc); })
      .then(function () {
        if (channel === 'voices') label(m.voices);
        send({ type: 'answer', channel: channel, sdp: pc.localDescription.sdp });
      })
      .catch(function () { send({ type: 'answer', channel: channel, sdp: '' }); });
  }

  /** The service's offer of the others' voices: answered, each audio track played. */
  function answer(m) {
    if (m.channel === 'interpretation') return interpretation(m);
    if (!sub) {
      sub = new RTCPeerConnection({ iceServers: ice });
      sub.ontrack = function (e) {
        var mid = e.transceiver && e.transceiver.mid;
        var el = document.createElement('audio');
        el.autoplay = true;
        el.srcObject = new MediaStream([e.track]);
        box.appendChild(el);
        heard[mid] = { mid: mid, participant_id: null, stream: el.srcObject, el: el };
        e.track.addEventListener('ended', function () { el.remove(); });
        label(m.voices);
        mix();
      };
    }
    reply(sub, m, 'voices');
  }

  /** Whose each track is (the offer says it by mid); tracks no longer offered stop. */
  function label(voices) {
    var now = {};
    (voices || []).forEach(function (v) { now[v.mid] = v.participant_id; });
    Object.keys(heard).forEach(function (mid) {
      if (mid in now) heard[mid].participant_id = now[mid];
      else { heard[mid].el.remove(); delete heard[mid]; }
    });
  }

  function publish(t) {
    track = t;
    if (!api.live || pub) return;
    var pc = pub = new RTCPeerConnection({ iceServers: ice });
    pc.addTransceiver(t, { direction: 'sendonly' });
    pc.createOffer()
      .then(function (o) { return pc.setLocalDescription(o); })
      .then(function () { return gathered(pc); })
      .then(function () { if (pub === pc) send({ type: 'publish', sdp: pc.localDescription.sdp }); });
  }

  function unpublish() {
    track = null;
    if (pub) { pub.close(); pub = null; send({ type: 'unpublish' }); }
  }

  function closeAll() {
    if (pub) pub.close();
    if (sub) sub.close();
    if (interp) interp.close();
    if (meter) { clearInterval(meter.timer); meter.ctx.close(); }
    if (interpEl) interpEl.remove();
    if (balanceRow) balanceRow.hidden = true;
    pub = null; sub = null; interp = null; interpEl = null; meter = null; duckUntil = 0;
    Object.keys(heard).forEach(function (mid) { heard[mid].el.remove(); });
    heard = {};
  }

  var api = {
    live: false,
    publish: publish,
    unpublish: unpublish,
    /** The phrase under way ends (muted, push-to-talk released). */
    end: function () { send({ type: 'end' }); },
    /** @param {(m: any) => void} fn */
    onMic: function (fn) { onMic = fn; },
    /** The voices heard now: [{mid, participant_id, stream}]. */
    voices: function () { return Object.keys(heard).map(function (mid) { return heard[mid]; }); },
    /** The interpretation channel's stream (null until it is linked). */
    interpretation: function () { return interpEl ? interpEl.srcObject : null; },
    /** Whether the original voices are lowered now (the interpretation speaks), and how loud each plays. */
    ducked: function () { return Date.now() < duckUntil; },
    volumes: function () { return { voices: Object.keys(heard).map(function (mid) { return heard[mid].el.volume; }), interpretation: interpEl ? interpEl.volume : null }; },
  };
  /** @type {any} */ (window).tolkVoices = api;

  document.addEventListener('tolk:audio-info', function (/** @type {CustomEvent} */ e) {
    var info = e.detail;
    if (!me) return;
    if (info && info.voices && info.voices.available) link();
    else say(msg('voicesOff', { reason: (info && info.voices && info.voices.reason) || '' }));
  });
  document.addEventListener('tolk:joined', function (/** @type {CustomEvent} */ e) { me = e.detail.me; });
  document.addEventListener('tolk:left', function () {
    me = null;
    if (retry) clearTimeout(retry);
    var sock = ws;
    ws = null;
    if (sock) sock.close(1000);
    api.live = false;
    closeAll();
    say('');
  });
  var room = /** @type {any} */ (window).tolkRoom;
  if (room && room.me) me = room.me;
})();
