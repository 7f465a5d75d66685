import { EventEmitter } from 'node:events';
import type { WebSocket, RawData } from 'ws';
import type { Services } from '../services.ts';
import type { JanusHandle, JanusSession, Jsep, PluginEvent } from '../media/janus-client.ts';
import { ForwardedVoice } from '../media/forwarded-voice.ts';
import type { JanusServer, MediaServers } from '../media/servers.ts';
import { AudioSocket, CLOSE, type MicSocket } from './audio.ts';
import type { Interpreters } from './interpretation.ts';
import type { ParticipantRow } from './participants.ts';

// A person's voice in a room, live (GET /r/{id}/voices, a WebSocket of the room
// page; TOLK_MEDIA_SERVER, media/servers.ts). The page never talks to Janus: it
// sends its SDP here, and this process speaks to the room's Janus for it, so
// Janus's API stays behind the service and a media session needs the person's
// join secret (checked before the upgrade).
//
// - Everyone is a VideoRoom participant of the room (joined as a publisher,
//   named by their participant id), so Janus tells us who publishes and who
//   stops; a subscriber handle receives every other person's voice, one audio
//   track each, on one PeerConnection: never their own (neither this page's nor
//   another tab's of the same person). Someone who starts or stops speaking
//   changes the subscription: Janus makes a new offer, the page answers.
// - The microphone: the page publishes an Opus track (`publish`), and stops
//   (`unpublish`: the others stop hearing it at once). Janus forwards it to us
//   (rtp_forward, media/forwarded-voice.ts), and what we hear of it is read as
//   the page's PCM was (rooms/audio.ts AudioSocket: voice activity, the
//   recognizer, partials and finals, the audio budget): the browser uploads
//   nothing else.
// - When Janus goes away the socket closes with 4010 and the reason; the page
//   says so and links again (captions and typing go on meanwhile).
//
// Client messages (JSON): {type: publish, sdp} (an offer, audio sendonly),
// {type: unpublish}, {type: answer, sdp} (to our offer), {type: end} (the phrase
// under way ends: push-to-talk released, muted), {type: ping}.
// Server messages: {type: ready, ice_servers}, {type: published, sdp},
// {type: offer, sdp, voices: [{mid, participant_id}]}, and the microphone's
// {type: partial|final|error}, as /r/{id}/audio's.

export const VOICES_CLOSE = { gone: 4010 } as const;

type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void };

/** A feed of the room: Janus's publisher id, and whose voice it is. */
type Feed = { id: string; participant: string; mid: string | undefined };

/** What the AudioSocket reads: the forwarded voice's PCM, its captions sent on to the page. */
class ForwardedMic extends EventEmitter implements MicSocket {
  readyState = 1;
  readonly OPEN = 1;
  private readonly toPage: (text: string) => void;

  constructor(toPage: (text: string) => void) {
    super();
    this.toPage = toPage;
  }

  send(text: string): void {
    if (this.readyState === 1) this.toPage(text);
  }

  close(): void {
    if (this.readyState !== 1) return;
    this.readyState = 3;
    this.emit('close');
  }

  pcm(b: Buffer): void {
    if (this.readyState === 1) this.emit('message', b, true);
  }

  end(): void {
    if (this.readyState === 1) this.emit('message', Buffer.from('{"type":"end"}'), false);
  }
}

/** What a page may send on its voices link in one second (its own sends a few a minute). */
const MESSAGES_PER_SECOND = 10;

export class VoiceLink {
  private readonly s: Services;
  private readonly media: MediaServers;
  private readonly ws: WebSocket;
  private readonly roomId: string;
  private readonly p: ParticipantRow;
  private readonly log: Log;
  private server: JanusServer | null = null;
  private session: JanusSession | null = null;
  private pub: JanusHandle | null = null;
  private sub: JanusHandle | null = null;
  /** Our own feed id (Janus's, once joined). */
  private own: string | null = null;
  /** Every other publisher of the room now. */
  private readonly feeds = new Map<string, Feed>();
  /** What the subscription carries (feed ids), once the page has answered. */
  private subscribed = new Set<string>();
  /** Our offer waits for the page's answer (per channel); a change meanwhile waits for it. */
  private readonly awaiting = new Map<'voices' | 'interpretation', (sdp: string) => void>();
  private readonly interpreters: Interpreters;
  /** The interpretation channel this page hears: its Streaming handle, and its release. */
  private channel: { handle: JanusHandle; release: () => void } | null = null;
  private work: Promise<void> = Promise.resolve();
  private forward: { voice: ForwardedVoice; streamId: number | undefined; mic: ForwardedMic; socket: AudioSocket } | null = null;
  private closed = false;

  constructor(s: Services & { media: MediaServers }, interpreters: Interpreters, ws: WebSocket, roomId: string, p: ParticipantRow, log: Log, publishers: number) {
    this.s = s;
    this.interpreters = interpreters;
    this.media = s.media;
    this.ws = ws;
    this.roomId = roomId;
    this.p = p;
    this.log = log;
    ws.on('message', (d, isBinary) => this.onMessage(d, isBinary));
    ws.on('close', () => void this.dispose());
    ws.on('error', () => void this.dispose());
    void this.start(publishers).catch((err: Error) => this.gone(`the media server cannot take this room: ${err.message}`));
  }

  private send(m: object): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(m));
  }

  private readonly onServerGone = () => this.gone('the media server went away: voices are off until it is back');

  private async start(publishers: number): Promise<void> {
    const server = await this.media.roomServer(this.roomId, publishers);
    if (this.closed) return;
    this.server = server;
    this.media.retain(this.roomId);
    server.conn.once('closed', this.onServerGone);
    this.session = await server.conn.createSession();
    if (this.closed) return void this.session.destroy();
    this.pub = await this.session.attach('janus.plugin.videoroom');
    this.pub.on('event', (e: PluginEvent) => this.onRoomEvent(e.data));
    const joined = await this.pub.message({ request: 'join', ptype: 'publisher', room: this.roomId, display: this.p.id });
    this.own = String(joined.data.id);
    this.onRoomEvent(joined.data);
    this.send({ type: 'ready', ice_servers: this.media.iceServers });
    // Without its interpretation the voices still go on (the page says why).
    await this.hearInterpretation().catch((err: Error) => {
      this.log.warn({ err: err.message, participant: this.p.id }, 'no interpretation channel for a page');
      this.send({ type: 'error', code: 'no_interpretation', message: `no interpretation in ${this.p.hear_lang}: ${err.message}` });
    });
  }

  /** The interpretation channel of the person's "I hear" language: watched, offered to the page. */
  private async hearInterpretation(): Promise<void> {
    const listener = await this.interpreters.of(this.roomId, this.log).listen(this.p.hear_lang);
    if (this.closed || !this.session) return listener.release();
    const handle = await this.session.attach('janus.plugin.streaming');
    this.channel = { handle, release: listener.release };
    const offer = await handle.message({ request: 'watch', id: listener.id });
    if (!offer.jsep) throw new Error('the media server offered no interpretation channel');
    const answer = await new Promise<string>((resolve) => {
      this.awaiting.set('interpretation', resolve);
      this.send({ type: 'offer', channel: 'interpretation', sdp: offer.jsep!.sdp, lang: this.p.hear_lang });
    });
    if (this.closed || !answer) return;
    await handle.message({ request: 'start' }, { type: 'answer', sdp: answer });
  }

  /** Who publishes and who stopped (the join's answer, and Janus's events on our publisher handle). */
  private onRoomEvent(d: Record<string, unknown>): void {
    // The room was destroyed at Janus (by its operator, or ours after its last page left): the page
    // is told the voices stopped and links again, which makes the room anew.
    if (d.videoroom === 'destroyed') {
      this.media.forget(this.roomId);
      return this.gone('the room\'s voices were ended on the media server');
    }
    let changed = false;
    for (const pub of (d.publishers as Array<{ id: unknown; display?: string; streams?: Array<{ type: string; mid: string; disabled?: boolean }> }> | undefined) ?? []) {
      const id = String(pub.id);
      if (id === this.own || pub.display === this.p.id) continue;
      const audio = pub.streams?.find((st) => st.type === 'audio' && !st.disabled);
      if (!audio) continue;
      this.feeds.set(id, { id, participant: pub.display ?? '', mid: audio.mid });
      changed = true;
    }
    for (const key of ['unpublished', 'leaving'] as const) {
      const v = d[key];
      if (v === undefined || v === 'ok') continue;
      if (this.feeds.delete(String(v))) changed = true;
    }
    if (changed) this.resubscribe();
  }

  /**
   * The subscription follows the feeds: one negotiation at a time. A new publisher is added by us
   * (update/subscribe); one gone is dropped by Janus itself (autoupdate), which offers anew.
   */
  private resubscribe(): void {
    this.work = this.work.then(async () => {
      if (this.closed || !this.session) return;
      for (const id of [...this.subscribed]) if (!this.feeds.has(id)) this.subscribed.delete(id);
      const add = [...this.feeds.keys()].filter((id) => !this.subscribed.has(id));
      if (add.length === 0) return;
      const streams = add.map((feed) => ({ feed: Number.isNaN(Number(feed)) ? feed : Number(feed) }));
      let offer: PluginEvent;
      if (!this.sub) {
        this.sub = await this.session.attach('janus.plugin.videoroom');
        // Janus's own offers (a publisher gone, autoupdate): answered as ours are.
        this.sub.on('event', (e: PluginEvent) => { if (e.jsep) this.work = this.work.then(() => this.negotiate(e)); });
        offer = await this.sub.message({ request: 'join', ptype: 'subscriber', room: this.roomId, streams });
      } else {
        offer = await this.sub.message({ request: 'update', subscribe: streams });
      }
      for (const id of add) this.subscribed.add(id);
      if (offer.jsep) await this.negotiate(offer);
    }).catch((err: Error) => {
      if (!this.closed) this.log.warn({ err: err.message, participant: this.p.id }, 'a room\'s voices could not be renegotiated');
    });
  }

  /** Janus's offer to the page, its answer back to Janus. */
  private async negotiate(offer: PluginEvent): Promise<void> {
    if (this.closed || !this.sub || !offer.jsep) return;
    const streams = (offer.data.streams as Array<{ mid: string; feed_display?: string; type: string; active?: boolean }> | undefined) ?? [];
    const voices = streams.filter((st) => st.type === 'audio' && st.active !== false).map((st) => ({ mid: st.mid, participant_id: st.feed_display ?? null }));
    const answer = await new Promise<string>((resolve) => {
      this.awaiting.set('voices', resolve);
      this.send({ type: 'offer', channel: 'voices', sdp: offer.jsep!.sdp, voices });
    });
    if (this.closed || !answer) return;
    await this.sub.message({ request: 'start' }, { type: 'answer', sdp: answer }).catch((err: Error) => {
      this.log.warn({ err: err.message, participant: this.p.id }, 'the page\'s answer for the room\'s voices was refused');
    });
  }

  /** Messages taken in the current second (MESSAGES_PER_SECOND). */
  private window = { start: 0, n: 0 };

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    // Each publish or unpublish is work at Janus: a page sends a few a minute; a flood ends the link.
    const t = Date.now();
    if (t - this.window.start >= 1000) this.window = { start: t, n: 0 };
    if (++this.window.n > MESSAGES_PER_SECOND) return this.fail(CLOSE.policy, 'rate_limited', `more than ${MESSAGES_PER_SECOND} messages in a second`);
    if (isBinary) return this.fail(CLOSE.unsupported, 'bad_message', 'this socket carries JSON text only: the voice goes over WebRTC');
    let m: { type?: unknown; sdp?: unknown; channel?: unknown } | null = null;
    try {
      m = JSON.parse(String(data)) as { type?: unknown; sdp?: unknown; channel?: unknown };
    } catch {
      m = null;
    }
    const type = m && typeof m === 'object' ? m.type : undefined;
    const sdp = m && typeof m.sdp === 'string' && m.sdp.length <= 20_000 ? m.sdp : null;
    if (type === 'ping') return this.send({ type: 'pong' });
    if (type === 'end') return this.forward?.mic.end();
    if (type === 'answer' && sdp) {
      const channel = m?.channel === 'interpretation' ? 'interpretation' : 'voices';
      const a = this.awaiting.get(channel);
      this.awaiting.delete(channel);
      return a?.(sdp);
    }
    if (type === 'publish' && sdp) return void this.publish(sdp);
    if (type === 'unpublish') return void this.unpublish();
    this.fail(CLOSE.unsupported, 'bad_message', 'messages are {"type":"publish"|"answer","sdp":...}, {"type":"unpublish"}, {"type":"end"} or {"type":"ping"}');
  }

  private async publish(offer: string): Promise<void> {
    try {
      if (!this.pub || !this.server) throw new Error('not linked to the media server yet');
      if (!this.s.recognizer?.hears(this.p.speak_lang)) {
        // Heard by the others all the same; no captions of it (the page says so).
        this.send({ type: 'error', code: 'no_recognizer', message: `No speech recognizer on this service hears ${this.p.speak_lang}: the others hear you, without captions` });
      }
      const r = await this.pub.message({ request: 'configure', audio: true, video: false, data: false }, { type: 'offer', sdp: offer } satisfies Jsep);
      if (!r.jsep) throw new Error('the media server gave no answer');
      this.send({ type: 'published', sdp: r.jsep.sdp });
      if (this.s.recognizer?.hears(this.p.speak_lang)) await this.listen(r.data);
    } catch (err) {
      this.send({ type: 'error', code: 'not_published', message: `your voice could not be sent: ${(err as Error).message}` });
    }
  }

  /** Our own voice, forwarded to this process and read as the page's PCM is. */
  private async listen(configured: Record<string, unknown>): Promise<void> {
    await this.stopListening();
    const server = this.server!;
    const mid = ((configured.streams as Array<{ type: string; mid: string }> | undefined) ?? []).find((st) => st.type === 'audio')?.mid ?? '0';
    const mic = new ForwardedMic((text) => { if (this.ws.readyState === this.ws.OPEN) this.ws.send(text); });
    const voice = await ForwardedVoice.open(server.conn.localAddress, (pcm) => mic.pcm(pcm));
    const socket = new AudioSocket(this.s, mic, this.roomId, this.p, this.log);
    this.forward = { voice, streamId: undefined, mic, socket };
    const r = await this.media.adminRequest(server, {
      request: 'rtp_forward', room: this.roomId, publisher_id: Number.isNaN(Number(this.own)) ? this.own : Number(this.own),
      host: server.conn.localAddress, host_family: server.conn.localAddress.includes(':') ? 'ipv6' : 'ipv4',
      streams: [{ mid, port: voice.port }],
    });
    const st = (r.forwarders as Array<{ stream_id?: number }> | undefined)?.[0];
    if (this.forward?.voice === voice) this.forward.streamId = st?.stream_id;
  }

  private async stopListening(): Promise<void> {
    const f = this.forward;
    this.forward = null;
    if (!f) return;
    // The phrase under way is read and published (as a page's socket closing).
    f.mic.close();
    f.voice.close();
    if (f.streamId !== undefined && this.server && !this.server.conn.closed) {
      await this.media.adminRequest(this.server, { request: 'stop_rtp_forward', room: this.roomId, publisher_id: Number.isNaN(Number(this.own)) ? this.own : Number(this.own), stream_id: f.streamId }).catch(() => {});
    }
  }

  private async unpublish(): Promise<void> {
    await this.stopListening();
    await this.pub?.message({ request: 'unpublish' }).catch(() => {});
  }

  /** The person left or was removed: nobody hears them from now on. */
  drop(code: number, reason: string): void {
    this.forward?.socket.drop(code, 'left', reason);
    this.fail(code, 'left', reason);
  }

  private gone(reason: string): void {
    if (this.closed) return;
    this.fail(VOICES_CLOSE.gone, 'media_gone', reason);
  }

  private fail(code: number, error: string, message: string): void {
    this.send({ type: 'error', code: error, message });
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(code, message.slice(0, 120));
    void this.dispose();
  }

  /** Everything this page had on Janus goes (its session: publisher, subscription, forwarder). */
  async dispose(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const a of this.awaiting.values()) a('');
    this.awaiting.clear();
    this.channel?.release();
    if (this.server) {
      this.server.conn.off('closed', this.onServerGone);
      this.media.release(this.roomId);
    }
    await this.stopListening();
    await this.session?.destroy();
  }

  /** Settled once the phrase under way (if any) is published. */
  settled(): Promise<void> {
    return this.forward?.socket.settled() ?? Promise.resolve();
  }
}
