import { z } from 'zod';

// Shapes of the catalogs (api.md: Phone number, Avatar; the voice catalog's is the voices').

/** A number usable as caller id (GET /v1/numbers); a call's `from` is one by id. */
export const PhoneNumber = z
  .object({
    id: z.string(),
    e164: z.string(),
    label: z.string().nullable(),
    status: z.literal('active'),
    shared: z.boolean(),
    default: z.boolean(),
  })
  .meta({ id: 'PhoneNumber' });

const VideoType = z.enum(['talk-neutral', 'talk-agree', 'idle-aside', 'idle-monitor', 'talk-explain', 'talk-question']);

export const Avatar = z
  .object({
    id: z.string(),
    name: z.string(),
    gender: z.enum(['female', 'male', 'other']).nullable(),
    age_band: z.enum(['25-35', '36-50', '51-65']).nullable(),
    style: z.enum(['formal', 'casual']).nullable(),
    poster_url: z.string().nullable(),
    variations: z.array(
      z.object({
        code: z.string(),
        kind: z.enum(['angle', 'scene']),
        photo_url: z.string().nullable(),
        video_types: z.array(VideoType),
        preview_urls: z.record(z.string(), z.string().nullable()),
      }),
    ),
    suggested_voices: z.record(z.string(), z.string()),
  })
  .meta({ id: 'Avatar' });
