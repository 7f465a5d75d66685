// The callee talking over the agent (barge-in), decided frame by frame in
// the media plane's thread, before the tick's frame goes out:
//
// - At the first frame that is loud (the energy rule, decided here at once)
//   or that the detector calls voiced (Silero, in its own thread, answers a
//   frame late at best and later on a busy machine; not Hearing's onset,
//   which waits minVoiceMs), while the head of what is queued may be talked
//   over, the stream's outgoing speech pauses: no frame leaves, the queue
//   stays as it is. Pausing costs nothing if the sound turns out to be
//   nothing, and it is what keeps the agent's speech stopping within a few
//   ticks of the callee's onset (the jitter buffer's 60 ms included), inside
//   the 250 ms a person notices, however late the detector answers.
// - A voice that stops within INTERRUPT_MS (a backchannel, "mhm", a cough)
//   is over once RESUME_QUIET_MS of quiet follows it: the speech resumes
//   where it paused, and nothing is reported.
// - A voice that lasts INTERRUPT_MS (from its first voiced frame to its
//   last, short gaps between syllables included), the detector having called
//   some of it speech, interrupts: the plane drops the rest of the utterance
//   and every queued one that may be talked over, and reports each
//   `interrupted` with what of it was sent. Loud for UNCONFIRMED_MS without
//   the detector ever calling it speech is noise on the line: the speech
//   resumes, and loudness alone pauses nothing more until a quiet frame.
// - What may not be talked over (the AI disclosure) is never paused.
//
// Echo. The detector hears only the peer's RTP, but a far end may send our
// own audio back: a loopback or a test peer echoing our packets byte for
// byte, or a phone without echo cancellation, whose echo comes back quieter
// (a network must return it at least 6 dB down, ITU-T G.168). Neither must
// stop the agent: a frame that is one of the frames we sent in the last
// second is our echo, whatever its level; and a voiced frame counts only when
// it is louder than ECHO_RATIO of the loudest frame we sent within the echo's
// delay (ECHO_WINDOW_MS), so a person talking at a normal level over the
// agent is heard and our speech coming back attenuated is not. A far end
// that returns our speech at full level but altered (transcoded, delayed
// beyond the window) is not told apart: it may pause the agent.

export type Barge = 'none' | 'pause' | 'resume' | 'interrupt';

const FRAME_MS = 20;
/** Speech this long is the callee taking the turn, not a backchannel. */
export const INTERRUPT_MS = 300;
/** Loud this long with no frame the detector calls speech: noise, the agent resumes. */
const UNCONFIRMED_MS = 800;
/** Quiet this long after a short voice ends it: the agent resumes. */
export const RESUME_QUIET_MS = 160;
/** How long after we sent a frame its echo may still come back. */
const ECHO_WINDOW_MS = 500;
/** A voiced frame quieter than this share of our recent loudest is taken for its echo (20 dB down). */
const ECHO_RATIO = 0.1;
/** How many of our frames are remembered to recognize them coming back as they were (1 s). */
const EXACT_FRAMES = 50;

export class BargeIn {
  /** The stream's outgoing speech is paused: nothing is sent until resume or interrupt. */
  paused = false;
  private spanMs = 0;
  private quietMs = 0;
  /** The detector called a frame of the voice under way speech. */
  private confirmed = false;
  /** Loudness alone was noise: it pauses nothing until a quiet frame. */
  private deaf = false;
  /** Our frames' RMS, one per tick (0: nothing sent), the last ECHO_WINDOW_MS. */
  private readonly levels: number[] = [];
  private sentLevel = 0;
  /** Hashes of our last frames as sent (G.711 bytes), to tell them coming back. */
  private readonly hashes: number[] = [];
  private readonly known = new Map<number, number>();

  /** A frame we sent this tick: its G.711 bytes and the RMS of its audio. */
  sent(frame: Uint8Array, rms: number): void {
    this.sentLevel = Math.max(this.sentLevel, rms);
    const h = hash(frame);
    this.hashes.push(h);
    this.known.set(h, (this.known.get(h) ?? 0) + 1);
    if (this.hashes.length > EXACT_FRAMES) {
      const old = this.hashes.shift()!;
      const n = this.known.get(old)! - 1;
      if (n === 0) this.known.delete(old);
      else this.known.set(old, n);
    }
  }

  /** Whether a payload the peer sent is one of our own recent frames, as we sent it. */
  isOwnEcho(payload: Uint8Array): boolean {
    return this.known.has(hash(payload));
  }

  /**
   * A tick's frame heard: whether the detector called it speech (`speech`), whether it is loud
   * (the energy rule, `loud`), its RMS, whether it is our own frame echoed, and whether the head
   * of the queue may be talked over (false: nothing queued, or what may not be). What the plane
   * does with the stream's speech now.
   */
  hear(f: { speech: boolean; loud: boolean; rms: number; echoed: boolean; interruptible: boolean }): Barge {
    this.levels.push(this.sentLevel);
    this.sentLevel = 0;
    if (this.levels.length > ECHO_WINDOW_MS / FRAME_MS) this.levels.shift();
    const ours = f.echoed || f.rms <= ECHO_RATIO * Math.max(0, ...this.levels);
    if (!f.loud) this.deaf = false;
    const speech = f.speech && !ours;
    const voice = speech || (f.loud && !ours && !this.deaf);
    if (!this.paused) {
      if (!voice || !f.interruptible) return 'none';
      this.paused = true;
      this.spanMs = FRAME_MS;
      this.quietMs = 0;
      this.confirmed = speech;
      return 'pause';
    }
    // What was paused is no longer at the head (the stream was emptied): nothing to hold back.
    if (!f.interruptible) return this.release('resume');
    if (speech) this.confirmed = true;
    if (voice) {
      this.spanMs += this.quietMs + FRAME_MS;
      this.quietMs = 0;
      if (this.spanMs >= INTERRUPT_MS && this.confirmed) return this.release('interrupt');
      if (this.spanMs >= UNCONFIRMED_MS && !this.confirmed) {
        this.deaf = true;
        return this.release('resume');
      }
      return 'none';
    }
    this.quietMs += FRAME_MS;
    return this.quietMs >= RESUME_QUIET_MS ? this.release('resume') : 'none';
  }

  private release(b: 'resume' | 'interrupt'): Barge {
    this.paused = false;
    this.spanMs = 0;
    this.quietMs = 0;
    return b;
  }
}

/** FNV-1a of a frame's bytes. */
function hash(b: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h >>> 0;
}
