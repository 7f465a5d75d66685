import { holds, offer as sdpOffer, PLACEHOLDER_MEDIA_PORT, streamAfter, type Negotiated, type SdpSide } from './media/sdp.ts';
import type { MediaPlane } from './media/plane.ts';
import type { MediaWatch } from './media-watch.ts';

// One dialog's media, as every signaling adapter keeps it: its RTP stream on
// the media plane (opened before the INVITE, so that our offer names its
// port), our SDP session and its versions (RFC 3264 8: one up each body we
// send), where the far end's stream is (kept through a hold), and the watch
// of its silence from the answer on. The embedded stack (sip-dialog.ts) and
// drachtio.ts each hold one per dialog and tell it what the far end's SDP
// says; the SIP around it is theirs. Without a media plane our SDP names the
// discard port and nothing flows.

export type DialogMediaOptions = {
  key: string;
  /** The address our SDP names (the media plane's host). */
  host: string;
  plane: MediaPlane | undefined;
  /** The media timeout's watch, when the adapter has one. */
  watch: MediaWatch | undefined;
  log: { warn: (o: object, m: string) => void };
};

export class DialogMedia {
  /** Where and how the far end's stream sends, from its last SDP (kept through a hold); undefined before the answer. */
  remote: Negotiated | undefined;
  private readonly o: DialogMediaOptions;
  /** Our stream's port on the plane; undefined without a plane, or once closed. */
  private port: number | undefined;
  /** The stream is being (or was) connected to the far end; chained, so each connect follows the last. */
  private connecting: Promise<void> | undefined;
  private readonly sessionId = String(Date.now());
  private version = 1;

  constructor(o: DialogMediaOptions) {
    this.o = o;
  }

  /** Opens the dialog's stream on the plane, before our offer is written; nothing to wait for without a plane. */
  open(): Promise<void> | undefined {
    const plane = this.o.plane;
    if (!plane) return undefined;
    return plane.open(this.o.key, { hear: true }).then(({ port }) => { this.port = port; });
  }

  /** Our offer in the INVITE: the first version of our session. */
  offer(): string {
    return sdpOffer({ host: this.o.host, port: this.port ?? PLACEHOLDER_MEDIA_PORT, sessionId: this.sessionId, version: 1 });
  }

  /** Our side of the next SDP we send in the dialog (an answer, or our offer again), its version one up. */
  next(): SdpSide {
    return { host: this.o.host, port: this.port ?? PLACEHOLDER_MEDIA_PORT, sessionId: this.sessionId, version: ++this.version };
  }

  /**
   * The answer to our INVITE: the stream sends to it, and from now on the
   * far end's silence is watched (ringing is not silence). Answers whether
   * it holds the call already (sendonly or inactive).
   */
  answered(remote: Negotiated): boolean {
    this.remote = remote;
    if (this.port !== undefined) {
      this.connect(remote);
      this.o.watch?.watch(this.o.key);
    }
    return holds(remote);
  }

  /**
   * The far end's new SDP in the dialog (its offer, or the answer in an
   * ACK): on hold the stream keeps its destination and only learns the
   * direction, so that the plane sends nothing while the far end does not
   * receive. Answers whether it holds the call now.
   */
  update(n: Negotiated): boolean {
    const next = streamAfter(this.remote, n);
    if (next) {
      this.remote = next;
      this.connect(next);
    }
    return holds(n);
  }

  /** Whether audio can be played: a stream connected (or being connected) to the far end. */
  get playable(): boolean {
    return this.port !== undefined && this.connecting !== undefined;
  }

  /** Speaks on the stream once it is connected; rejects when there is none. */
  async play(utterance: string, pcm: Int16Array, o: { more?: boolean; interruptible?: boolean } = {}): Promise<{ queuedMs: number }> {
    const plane = this.o.plane;
    if (!this.playable || !plane) throw new Error(`play: dialog ${this.o.key} has no media`);
    await this.connecting;
    return plane.play(this.o.key, utterance, pcm, o);
  }

  /** The stream closed (once), its silence no longer watched. */
  close(): void {
    const plane = this.o.plane;
    if (this.port === undefined || !plane) return;
    this.port = undefined;
    this.o.watch?.unwatch(this.o.key);
    plane.close(this.o.key).catch((err) => this.o.log.warn({ key: this.o.key, err: String(err) }, 'media: close failed'));
  }

  /** (Re)connects the stream, after any connect still under way. */
  private connect(remote: Negotiated): void {
    const plane = this.o.plane;
    if (this.port === undefined || !plane) return;
    const before = this.connecting?.catch(() => {}) ?? Promise.resolve();
    const connecting = before.then(() => plane.connect(this.o.key, remote));
    this.connecting = connecting;
    connecting.catch((err) => this.o.log.warn({ key: this.o.key, err: String(err) }, 'media: connect failed'));
  }
}
