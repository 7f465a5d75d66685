import { z } from 'zod';

// Shapes of rooms (api.md section 2: Room; meetings are rooms too).

export const Room = z
  .object({
    id: z.string(),
    url: z.url(),
    title: z.string(),
    visibility: z.enum(['private', 'public']),
    status: z.enum(['scheduled', 'live', 'ended', 'canceled']).describe('canceled: a meeting canceled before it started (DELETE /v1/meetings/{id})'),
    created_at: z.string(),
    expires_at: z.string(),
    starts_at: z.string().nullable(),
    duration_min: z.int().nullable(),
    invitees: z.array(z.string()),
    langs: z.array(z.string()),
    livemode: z.boolean(),
  })
  .meta({ id: 'Room' });
export type Room = z.infer<typeof Room>;

export const RoomList = z.object({ data: z.array(Room), has_more: z.boolean() });

const TranslationRoute = z
  .object({
    from: z.string(),
    to: z.string(),
    translated: z.boolean().describe('false: no engine of this service translates it; the text is shown as it was said (in test mode in the marked form `[en→ja] …`)'),
    engine: z.string().nullable().describe('The translation engine, by its TOLK_TRANSLATE name (`apertium`); null when not translated'),
    via: z.string().nullable().describe('The pivot language of a route through a third language (en→es→pt: `es`); null when direct or not translated'),
  })
  .meta({ id: 'TranslationRoute' });

// What a join link's person can do (engines/coverage.ts makes it): its published shape.
export const LanguageCoverage = z
  .object({
    speak: z.string().describe('The language the person speaks: the link\'s `speak`, else the room\'s first language, else `en` (what the page preselects)'),
    hear: z.string().describe('The language the person hears: the link\'s `hear`, else the room\'s second language, else its first, else `en`'),
    room_langs: z.array(z.string()).describe('The room\'s languages the routes are measured against: its `langs`, or `speak` and `hear` when it declares none'),
    microphone: z.object({
      available: z.boolean().describe('Whether a speech recognizer hears `speak`; false: the person types instead'),
      lang: z.string(),
      engine: z.string().nullable().describe('The recognizer, by its TOLK_RECOGNIZE name (`pocketsphinx`)'),
    }).describe('Speaking by microphone on the room page'),
    read_aloud: z.object({
      available: z.boolean().describe('Whether a speech engine speaks `hear`; false: the page offers no read aloud'),
      lang: z.string(),
      engine: z.string().nullable().describe('The speech engine, by its TOLK_SPEECH_ENGINES name (`pico`)'),
    }).describe('Hearing the others read aloud on the room page'),
    into_hear: z.array(TranslationRoute).describe('From each other language of the room into `hear`: what the person reads'),
    from_speak: z.array(TranslationRoute).describe('From `speak` into each other language of the room: what the others read of the person'),
  })
  .describe(
    'What this service can do now for the person in these languages, from its configured engines. A language nothing covers is never refused. ' +
      'In test mode the robots\' phrasebook lines are translated whatever this says; anything a person types or says follows it.',
  )
  .meta({ id: 'LanguageCoverage' });

export const JoinLink = z
  .object({
    url: z.url(),
    room_id: z.string(),
    coverage: LanguageCoverage.nullable().describe('What works for the languages the link prefills (or the room\'s, which the page preselects); null when neither names one'),
    phone: z
      .object({
        number: z.string().describe('The number to dial (E.164)'),
        pin: z.string().regex(/^\d{8}$/).describe('This person\'s PIN, typed after the greeting and ended with #: joins them with the link\'s name and languages, to this room only, until it lapses'),
      })
      .nullable()
      .describe('Joining by phone, where the organization has a dial-in number; else null'),
  })
  .meta({ id: 'JoinLink' });

