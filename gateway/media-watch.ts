import type { MediaPlane } from './media/plane.ts';

// The media timeout of answered dialogs (SignalingOptions.mediaTimeoutSeconds,
// TOLK_MEDIA_TIMEOUT_SECONDS): a dialog whose far end has sent no RTP and no
// RTCP for that long is silent, and its adapter hangs it up and reports
// `media_timeout` (operator.md). Shared by the signaling adapters: the
// embedded stack (sip-stack.ts) and drachtio.ts each watch their answered
// dialogs with it.
//
// What the far end sent is the plane's `heardAt` (gateway/media/plane.ts),
// which RTP and RTCP both move: a dialog on hold (the far end sendonly or
// inactive) sends no RTP but keeps its RTCP, so it times out only once its
// RTCP stops too (RFC 3264 8.4; operator.md says RTP *and* RTCP). Silence is
// counted from the moment a dialog is watched (its answer) at the earliest:
// the stream opened before the INVITE went, and the ringing is not silence.

export type MediaWatch = {
  /** Starts watching the stream of `key` (an answered dialog), from now. */
  watch(key: string): void;
  /** Stops watching it (hung up, ended); a check under way does not report it. */
  unwatch(key: string): void;
  /** Stops every watch and the timer. */
  stop(): void;
};

export type MediaWatchOptions = {
  plane: Pick<MediaPlane, 'stats'>;
  timeoutSeconds: number;
  /** A watched dialog went silent for the timeout: it is no longer watched. Errors it throws are logged. */
  onSilent: (key: string, quietMs: number) => void;
  log?: { error: (o: object, m: string) => void };
};

export function watchMedia(o: MediaWatchOptions): MediaWatch {
  const limitMs = o.timeoutSeconds * 1000;
  // Checked four times per timeout (once a second at most): a silent dialog is hung up within a quarter of it late.
  const everyMs = Math.min(1000, limitMs / 4);
  const watched = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> | undefined;

  async function check(): Promise<void> {
    for (const [key, since] of [...watched]) {
      let stats: Awaited<ReturnType<MediaWatchOptions['plane']['stats']>>;
      try {
        stats = await o.plane.stats(key);
      } catch (err) {
        o.log?.error({ key, err: String(err) }, 'media watch: no stats from the media plane');
        continue;
      }
      // Unwatched while we asked, or its stream closed: nothing to say.
      if (!stats || watched.get(key) !== since) continue;
      const quietMs = Date.now() - Math.max(stats.heardAt ?? stats.openedAt, since);
      if (quietMs < limitMs) continue;
      unwatch(key);
      try {
        o.onSilent(key, quietMs);
      } catch (err) {
        o.log?.error({ key, err: String(err) }, 'media watch: onSilent threw');
      }
    }
  }

  function unwatch(key: string): void {
    watched.delete(key);
    if (watched.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  return {
    watch(key) {
      watched.set(key, Date.now());
      if (timer) return;
      timer = setInterval(() => {
        checking ??= check().finally(() => { checking = undefined; });
      }, everyMs);
      timer.unref();
    },
    unwatch,
    stop() {
      watched.clear();
      clearInterval(timer);
      timer = undefined;
    },
  };
}
