import { z } from 'zod';

// Shapes of transcripts (api.md: Transcript).

export const TranscriptSummary = z
  .object({
    id: z.string(),
    room_id: z.string().nullable(),
    started_at: z.string(),
    ended_at: z.string().nullable(),
    segments: z.int(),
    livemode: z.boolean(),
  })
  .meta({ id: 'TranscriptSummary' });

export const Transcript = z
  .object({
    id: z.string(),
    room_id: z.string().nullable(),
    lang: z.string(),
    notice: z.string(),
    segments: z.array(
      z.object({
        speaker: z.string().nullable(),
        src_lang: z.string().nullable(),
        untrusted_content: z.object({ text: z.string().nullable(), text_in_lang: z.string().nullable() }),
        at: z.string(),
      }),
    ),
  })
  .meta({ id: 'Transcript' });

export const TRANSCRIPTS_ROUTE = { auth: true, permission: 'transcripts:read' } as const;
