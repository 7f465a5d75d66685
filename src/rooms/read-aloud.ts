import { prepared, withTx } from '../db/pool.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { takeQuotas } from '../http/quotas.ts';
import { now, type Services } from '../services.ts';
import { phraseIn } from '../sessions/translations.ts';
import { speechVoice } from '../voices/cloning.ts';
import { startSynthesizers } from '../engines/speech/index.ts';
import type { SpeechSynthesizer } from '../engines/speech/synthesizer.ts';
import { encodeWav } from '../engines/speech/wav.ts';
import type { ParticipantRow } from './participants.ts';

// "Read aloud" on the room page (GET /r/{id}/speech?seq=N): a phrase of the
// room as the person hears it, spoken in their "I hear" language by the
// first engine of TOLK_SPEECH_ENGINES that speaks it, as a WAV file the
// page plays in order. An agent's phrase is spoken in its session's voice
// when that is a ready cloned voice the engines can speak (voices/cloning.ts);
// everyone else's in the engine's own voice. A phrase from before the person
// joined (404), their own (409), or one no engine can speak (501) is refused: the
// page says so instead of playing something else. Nothing is stored: the
// synthesizer's cache keeps recent phrases in memory, safe to lose.

/** One synthesizer per process for the pages, started at the first phrase read aloud. */
export class PageSpeech {
  private synth: SpeechSynthesizer | null = null;
  private readonly s: Services;
  constructor(s: Services) {
    this.s = s;
  }

  get engines(): SpeechSynthesizer {
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
  if (!seg || seg.kind === 'dtmf') throw notFound('phrase', seqText);
  if (seg.participant_id === p.id) throw new ApiError('conflict', 'seq: this is your own phrase; it is not read aloud to you');
  const t = await phraseIn(s, roomId, p.livemode, seg, p.hear_lang);
  // Not translated (no engine covers the pair): read as it was said, in its own language, if an engine speaks that.
  const [text, lang] = t.untranslated || t.text === null ? [seg.text, seg.src_lang] : [t.text, p.hear_lang];
  if (!text) throw notFound('phrase', seqText);
  if (!speech.speaks(lang)) throw new ApiError('not_available_yet', `seq: no speech engine on this service speaks ${lang}`);
  const voice = seg.session_id ? await agentVoice(s, seg.session_id) : undefined;
  const spoken = await speech.engines.synthesize(text, lang, voice);
  return { wav: Buffer.from(encodeWav(spoken.pcm, 8000)), ms: spoken.ms, lang };
}

/** The agent's voice, when its session has a ready cloned one. */
async function agentVoice(s: Services, sessionId: string): Promise<string | undefined> {
  const { rows } = await s.pool.query<{ voice_id: string | null; org_id: string; livemode: boolean }>(prepared(
    `SELECT voice_id, org_id, livemode FROM agent_sessions WHERE id = $1`, [sessionId]));
  const r = rows[0];
  return r?.voice_id ? speechVoice(s.pool, { orgId: r.org_id, livemode: r.livemode }, r.voice_id) : undefined;
}
