import { z } from 'zod';

// Shapes of voices (api.md: Voice, Catalog voice).

export const Voice = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(['clone', 'generic']),
    active: z.boolean(),
    gender: z.enum(['male', 'female']).nullable(),
    status: z.enum(['awaiting_consent', 'processing', 'ready', 'failed', 'revoked', 'expired']).optional(),
    consent_url: z.url().nullable().optional(),
    language: z.string().optional(),
    person: z.object({ name: z.string(), email: z.string() }).optional(),
    failure_code: z.string().nullable().optional(),
    expires_at: z.string().nullable().optional(),
    created_at: z.string().optional(),
    livemode: z.boolean().optional(),
  })
  .meta({ id: 'Voice' });

export const CatalogVoice = z
  .object({
    id: z.string(),
    name: z.string(),
    gender: z.enum(['male', 'female']),
    accent: z.string().nullable(),
    description: z.string().nullable(),
    preview_url: z.string().nullable(),
  })
  .meta({ id: 'CatalogVoice' });
