import type Srf from 'drachtio-srf';
import type { DialogEvent, PlaceRequest, SipSignaling, SignalingOptions } from './signaling.ts';
import { watchMedia, type MediaWatch } from './media-watch.ts';
import { ALLOW } from './session-timer.ts';
import { DialogMedia } from './dialog-media.ts';
import { CLOSE_WAIT_MS, reportEvent, settleWithin } from './dialog-driver.ts';
import { DrachtioCall, type CallOwner, type DrachtioLog } from './drachtio-call.ts';
import { connectDrachtio } from './drachtio-connect.ts';

// The gateway's signaling on drachtio-server (a SIP server our process drives
// over TCP, drachtio-srf): the SipSignaling interface of signaling.ts, so the
// gateway picks it by configuration (DRACHTIO_HOST) instead of the embedded
// stack. drachtio-server does the SIP transactions (retransmissions, ACKs,
// CANCEL matching, CSeq order in the dialog); this adapter places each call
// with srf.createUAC, and drives its dialog through the same machine as the
// embedded stack's (machines/dialog.ts, by dialog-driver.ts): what drachtio-srf
// tells us becomes the machine's events (cbProvisional a PROVISIONAL, the
// dialog createUAC resolves with a FINAL_2XX, its rejection a FINAL_ERROR,
// the dialog's 'destroy' a REMOTE_BYE, the answer to our Dialog.destroy a
// BYE_ANSWERED), our timers its NO_RESPONSE, RING_TIMEOUT and CANCEL_GUARD,
// and what it decides is done with srf calls (a CANCEL of the INVITE kept
// from cbRequest, a BYE by Dialog.destroy). So the dialog's rules (when a
// CANCEL may go, what is reported and that the end is reported once, a 2xx
// crossing our CANCEL, an answer without usable media) are written once for
// both adapters.
//
// Media is ours, as with the embedded stack (dialog-media.ts): the offer
// names the call's RTP port on the media plane, the answer's SDP connects it,
// and the far end's silence is watched (media-watch.ts). Mid-call, the
// callee's re-INVITE and UPDATE are answered by session-timer.ts's
// answerSession (Dialog 'modify' and 'update'; the ACK that answers our
// offer comes as 'ack'). Outside our dialogs, drachtio-server hands us
// INVITEs (refused 403) and OPTIONS (200), as the embedded stack answers them.
//
// drachtio-server itself has no npm or Debian package: the adapter's tests
// run against one only when DRACHTIO_HOST names it (README, Testing).

// By concern: drachtio-connect.ts connects (and answers outside our
// dialogs), drachtio-call.ts is one call's INVITE and dialog, this file the
// SipSignaling over them.

export { drachtioAddress } from './drachtio-connect.ts';

export type DrachtioOptions = SignalingOptions & {
  drachtio: { host: string; port: number; secret: string; connectTimeoutMs?: number };
  /** The address our SDP offers media on (the media plane's host). */
  mediaHost: string;
};

/** Connects to drachtio-server and returns the signaling over it. */
export async function createDrachtioSignaling(opts: DrachtioOptions): Promise<SipSignaling> {
  const log: DrachtioLog = opts.log ?? { info() {}, warn() {}, error() {} };
  const { srf, address } = await connectDrachtio(opts.drachtio, log);
  return new DrachtioSignaling(opts, log, srf, address);
}

/** The SipSignaling on one drachtio-server connection: its calls by key, and those it still answers for. */
class DrachtioSignaling implements SipSignaling, CallOwner {
  readonly address: string;
  readonly log: DrachtioLog;
  private readonly opts: DrachtioOptions;
  private readonly srf: Srf;
  private readonly calls = new Map<string, DrachtioCall>();
  /** Every call we still answer for: the active ones, and those whose CANCEL or BYE waits for its answer. */
  private readonly open = new Set<DrachtioCall>();
  private closing: Promise<void> | undefined;
  private readonly mediaWatch: MediaWatch | undefined;

  constructor(opts: DrachtioOptions, log: DrachtioLog, srf: Srf, address: string) {
    this.opts = opts;
    this.log = log;
    this.srf = srf;
    this.address = address;
    // With a media plane and a media timeout: an answered call whose far end
    // goes silent gets our BYE and is reported media_timeout (the machine's MEDIA_SILENT).
    this.mediaWatch = opts.media && opts.mediaTimeoutSeconds !== undefined ? watchMedia({
      plane: opts.media,
      timeoutSeconds: opts.mediaTimeoutSeconds,
      log,
      onSilent: (key, quietMs) => {
        const c = this.calls.get(key);
        if (!c) return;
        log.warn({ key, quietMs }, 'drachtio: no RTP or RTCP from the far end: BYE');
        void c.drive({ type: 'MEDIA_SILENT' });
      },
    }) : undefined;
  }

  // --- What the calls ask of us (CallOwner) ---

  report(key: string, event: DialogEvent): void {
    reportEvent(this.log, 'drachtio', this.opts.onEvent, key, event);
  }

  released(c: DrachtioCall): void {
    if (this.calls.get(c.key) === c) this.calls.delete(c.key);
  }

  settled(c: DrachtioCall): void {
    this.open.delete(c);
  }

  // --- SipSignaling ---

  async place(req: PlaceRequest): Promise<void> {
    // Trunks (digest answers, outbound proxy, P-Asserted-Identity) are the embedded stack's for now.
    if (req.trunk) throw new Error('place: calls through a trunk need the embedded SIP stack (unset DRACHTIO_HOST)');
    if (this.closing) throw new Error('place: the drachtio signaling is closed');
    if (this.calls.has(req.key)) throw new Error(`drachtio: dialog ${req.key} is already placed`);
    const media = new DialogMedia({ key: req.key, host: this.opts.mediaHost, plane: this.opts.media, watch: this.mediaWatch, log: this.log });
    const c = new DrachtioCall(req.key, media, this);
    this.calls.set(req.key, c);
    this.open.add(c);
    // With a media plane, the offer names this call's own RTP port.
    const opening = c.media.open();
    if (opening) await opening;
    const headers: Record<string, string> = { From: `<sip:${req.from}@${this.address}>`, Allow: ALLOW, ...req.headers };
    await c.send(this.srf, req.target, headers, {
      noResponseMs: (this.opts.noResponseSeconds ?? 32) * 1000,
      ringMs: this.opts.ringTimeoutSeconds * 1000,
    });
  }

  /** Our BYE (answered) or CANCEL (not yet): the machine decides, and reports nothing for it but a CANCEL's outcome. */
  async hangup(key: string): Promise<void> {
    const c = this.calls.get(key);
    if (c) await c.drive({ type: 'HANGUP' });
  }

  active(): string[] {
    return [...this.calls.keys()];
  }

  hasMedia(key: string): boolean {
    return this.calls.get(key)?.media.playable ?? false;
  }

  async play(key: string, utterance: string, pcm: Int16Array, o: { more?: boolean; interruptible?: boolean } = {}): Promise<{ queuedMs: number }> {
    const c = this.calls.get(key);
    if (!c) throw new Error(`play: dialog ${key} has no media`);
    return c.media.play(utterance, pcm, o);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.mediaWatch?.stop();
      // Nothing is reported for what close() ends: the answered get a BYE, the ringing a CANCEL.
      for (const c of [...this.open]) void c.drive({ type: 'CLOSE' });
      await settleWithin(() => this.open, (c) => c.settled(), CLOSE_WAIT_MS);
      for (const c of this.open) c.drop();
      this.open.clear();
      this.calls.clear();
      this.srf.disconnect();
    })();
    return this.closing;
  }
}
