import { prepared, withTx } from '../db/pool.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { takeQuotas } from '../http/quotas.ts';
import { LOG_SIGNALS, now, type Services } from '../services.ts';
import { startSynthesizers } from '../engines/speech/index.ts';
import type { SpeechSynthesizer } from '../engines/speech/synthesizer.ts';
import { encodeWav } from '../engines/speech/wav.ts';
import type { ParticipantRow } from './participants.ts';
import { FairQueue } from '../engines/speech/fair-queue.ts';

// "Read aloud" on the room page (GET /r/{id}/speech?seq=N): a phrase of the
// room as the person hears it, spoken in their "I hear" language by the
// first engine of TOLK_SPEECH_ENGINES that speaks it, as a WAV file the
// page plays in order. An agent's phrase is spoken in its session's voice
// when that is a ready cloned voice the engines can speak (Reactions.sessionVoice),
// a person's in their own ready clone when they joined through their invitation
// (phraseVoice); everyone else's in the engine's own voice. A phrase from before the person
// joined (404), their own (409), or one no engine can speak (501) is refused: the
// page says so instead of playing something else.
//
// Each phrase is synthesized once per language and voice, whoever asks: the
// result is stored with the room (room_speech, deleted with it) and read from
// there by every later request on any process; requests on one process for a
// phrase being synthesized wait on that one synthesis. What the engines are
// asked is fair between people (fair-queue.ts): one synthesis at a time per
// person, so another listener's phrase waits for at most one synthesis of
// each other person, and a person may have at most SYNTH_WAITING syntheses
// asked for at once (more get 429 with Retry-After: the page reads aloud one
// phrase after another). Reading what is stored costs no engine time, and is
// limited by readAloudPerParticipantMinute like every read.

/** Syntheses one person may wait for at once (one running, one waiting). */
const SYNTH_WAITING = 2;

/** One synthesizer per process for the pages, started at the first phrase read aloud. */
export class PageSpeech {
  private synth: SpeechSynthesizer | null = null;
  /** Syntheses under way on this process, by room, phrase, language and voice. */
  readonly inflight = new Map<string, Promise<{ pcm: Int16Array; ms: number }>>();
  readonly fair = new FairQueue({ maxWaiting: SYNTH_WAITING });
  /** Syntheses this process asked the engines for (tests, bench). */
  syntheses = 0;
  private readonly s: Services;
  /** Engines given (the gateway's, for phone lines): shared, not closed here. */
  private readonly given: SpeechSynthesizer | undefined;
  constructor(s: Services, engines?: SpeechSynthesizer) {
    this.s = s;
    this.given = engines;
  }

  get engines(): SpeechSynthesizer {
    if (this.given) return this.given;
    this.synth ??= startSynthesizers(this.s.config);
    return this.synth;
  }

  speaks(lang: string): boolean {
    return this.engines.speaks(lang);
  }

  async close(): Promise<void> {
    await this.synth?.close();
    this.synth = null;
  }
}

type SegmentRow = {
  seq: number; kind: string; text: string | null; src_lang: string; announced: string | null; created_at: Date;
  participant_id: string; session_id: string | null;
};

/** The WAV of phrase `seq` spoken in the participant's language. */
export async function readAloud(s: Services, speech: PageSpeech, roomId: string, p: ParticipantRow, seqText: string): Promise<{ wav: Buffer; ms: number; lang: string }> {
  if (!/^\d{1,15}$/.test(seqText)) throw invalid('seq', 'the number of a phrase of the room');
  const seq = Number(seqText);
  if (seq <= Number(p.from_seq)) throw notFound('phrase', seqText);
  const l = s.config.publicLimits;
  await withTx(s.pool, (tx) => takeQuotas(tx, [
    { bucket: `speech:participant:${p.id}`, limit: l.readAloudPerParticipantMinute, windowSeconds: 60, what: 'phrases read aloud to you in a minute' },
  ], now(s).getTime()));
  const { rows } = await s.pool.query<SegmentRow>(prepared(
    `SELECT seq, kind, text, src_lang, announced, created_at, participant_id, session_id FROM room_segments WHERE room_id = $1 AND seq = $2`,
    [roomId, seq],
  ));
  const seg = rows[0];
  // A digit, a partial, a say's progress or speech activity is no phrase to read aloud.
  if (!seg || seg.kind === 'dtmf' || (LOG_SIGNALS as readonly string[]).includes(seg.kind)) throw notFound('phrase', seqText);
  if (seg.participant_id === p.id) throw new ApiError('conflict', 'seq: this is your own phrase; it is not read aloud to you');
  const t = await s.reactions.phraseIn(s, roomId, p.livemode, seg, p.hear_lang);
  // Not translated (no engine covers the pair): read as it was said, in its own language, if an engine speaks that.
  const [text, lang] = t.untranslated || t.text === null ? [seg.text, seg.src_lang] : [t.text, p.hear_lang];
  if (!text) throw notFound('phrase', seqText);
  if (!speech.speaks(lang)) throw new ApiError('not_available_yet', `seq: no speech engine on this service speaks ${lang}`);
  const voice = await phraseVoice(s, seg);
  const spoken = await spokenOnce(s, speech, p.id, { roomId, seq, lang, voice: voice ?? '', text });
  return { wav: Buffer.from(encodeWav(spoken.pcm, 8000)), ms: spoken.ms, lang };
}

/**
 * The voice a phrase is spoken in: an agent's, its session's ready clone; a person's, their own
 * ready clone when they joined through their invitation (participants.ts); else the engine's own
 * (undefined). Checked each time: a voice withdrawn meanwhile is not used.
 */
export async function phraseVoice(s: Services, seg: { kind: string; participant_id: string | null; session_id: string | null }): Promise<string | undefined> {
  if (seg.session_id) return s.reactions.sessionVoice(s.pool, seg.session_id);
  if (seg.kind !== 'person' || !seg.participant_id) return undefined;
  const { rows } = await s.pool.query<{ voice_id: string | null; org_id: string; livemode: boolean }>(prepared(
    `SELECT voice_id, org_id, livemode FROM room_participants WHERE id = $1`, [seg.participant_id],
  ));
  const r = rows[0];
  return r?.voice_id ? s.reactions.spokenVoice(s.pool, { orgId: r.org_id, livemode: r.livemode }, r.voice_id) : undefined;
}

/**
 * The phrase's speech (8 kHz): stored, being synthesized on this process, or synthesized now (once)
 * and stored; `who` is whose turn of the engines it takes (fair-queue.ts).
 */
export async function spokenOnce(s: Services, speech: PageSpeech, who: string, k: { roomId: string; seq: number; lang: string; voice: string; text: string }): Promise<{ pcm: Int16Array; ms: number }> {
  const key = `${k.roomId}\u0000${k.seq}\u0000${k.lang}\u0000${k.voice}`;
  const under = speech.inflight.get(key);
  if (under) return under;
  const { rows } = await s.pool.query<{ pcm: Buffer; ms: number }>(prepared(
    `SELECT pcm, ms FROM room_speech WHERE room_id = $1 AND seq = $2 AND lang = $3 AND voice = $4`, [k.roomId, k.seq, k.lang, k.voice]));
  if (rows[0]) return { pcm: pcmOf(rows[0].pcm), ms: rows[0].ms };
  const again = speech.inflight.get(key);
  if (again) return again;
  const job = speech.fair.run(who, async () => {
    speech.syntheses++;
    const spoken = await speech.engines.synthesize(k.text, k.lang, k.voice || undefined);
    const bytes = Buffer.from(spoken.pcm.buffer, spoken.pcm.byteOffset, spoken.pcm.byteLength);
    await s.pool.query(prepared(
      `INSERT INTO room_speech (room_id, seq, lang, voice, pcm, ms) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [k.roomId, k.seq, k.lang, k.voice, bytes, Math.round(spoken.ms)])).catch(() => {});
    return spoken;
  });
  if (!job) throw new ApiError('rate_limited', `Too many phrases being read aloud to you at once; please try again in 1 second`, { 'Retry-After': '1' });
  const done = job.finally(() => speech.inflight.delete(key));
  speech.inflight.set(key, done);
  return done;
}

/** 16-bit little-endian PCM from PostgreSQL as samples (copied: a Buffer may not be aligned for an Int16Array). */
function pcmOf(b: Buffer): Int16Array {
  const out = new Int16Array(b.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = b.readInt16LE(i * 2);
  return out;
}
