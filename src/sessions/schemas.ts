import { z } from 'zod';

// Shapes of AI agent sessions (api.md: Session, session events).

export const Session = z
  .object({
    id: z.string().regex(/^ses_/),
    room_id: z.string().nullable(),
    name: z.string(),
    speak_lang: z.string(),
    hear_lang: z.string(),
    status: z.enum(['joining', 'active', 'ended']),
    billed_seconds: z.int(),
    started_at: z.string(),
    ended_at: z.string().nullable(),
    livemode: z.boolean(),
  })
  .meta({ id: 'Session' });
export type Session = z.infer<typeof Session>;

export const SessionEvent = z
  .object({
    id: z.int(),
    type: z.string().describe(
      "`segment.final`: a finished phrase; `segment.partial`: a phrase so far, while its speaker is still talking, replaced by a later partial " +
      'or by its final (both carry the same meta.segment_id; the text as heard, not translated: text_in_hear_lang null); `say.started`, ' +
      '`say.finished`, `say.interrupted`: progress of an utterance of this session (meta.utterance_id, meta.spoken_ms); `speech.started`, ' +
      '`speech.stopped`: another participant starts or stops talking (speaker, meta.participant_id); on a call\'s session also `dtmf`: ' +
      'a digit the callee pressed (the digit in untrusted_content.text). Partials, progress and speech are not billed and not in transcripts. ' +
      'Clients ignore types they do not know.',
    ),
    speaker: z.string().nullable(),
    src_lang: z.string().nullable(),
    untrusted_content: z.object({
      text: z.string().nullable().describe("What was said; null for speech heard on a call's line that no recognizer could read"),
      text_in_hear_lang: z.string().nullable().describe('The phrase in hear_lang, translated by the engines; when none could (meta.untranslated), as it was said (live mode) or marked `[en→de] …` (test mode)'),
    }),
    // Each value a string, a number or a boolean (never an object): what a client can rely on, and a schema every tool dialect takes.
    meta: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional()
      .describe(
        "seq, participant_id, lang; untranslated: true when no engine could put the phrase in hear_lang; on a call's line also audio_ms " +
        '(a phrase heard: its length) or duration_ms (a dtmf digit); segment_id on segment.partial and on the segment.final that ends its ' +
        'partials; utterance_id (the say answer\'s) and spoken_ms (milliseconds of it spoken) on say.*',
      ),
    created_at: z.string(),
  })
  .meta({ id: 'SessionEvent' });

/** Tag, settings and note shared by the session endpoints. */
export const SESSIONS_TAG = 'AI agent sessions';
export const SESSION_ROUTE = { auth: true, permission: 'rooms:join' } as const;
export const SESSIONS_LIVE_NOTE =
  "Test keys work on the simulator. Live keys work, without robots and billed from the organization's balance, where the operator's " +
  "translation engines cover the languages (the session's and its room's); else, or on a server with no translation engine, 501 not_available_yet.";
