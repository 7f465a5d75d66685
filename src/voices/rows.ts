import type { z } from 'zod';
import { CATALOG_VOICES } from './catalog.ts';
import type { Voice as VoiceSchema } from './schemas.ts';

// A voice's row (`voices`) and how answers, events and links show it.

export type Voice = z.infer<typeof VoiceSchema>;

export type VoiceRow = {
  id: string;
  org_id: string;
  livemode: boolean;
  credential_id: string;
  name: string;
  language: string;
  person_name: string;
  person_email: string;
  status: 'awaiting_consent' | 'processing' | 'ready' | 'failed' | 'revoked' | 'expired';
  failure_code: string | null;
  consent_token: string;
  link_expires_at: Date;
  purpose: string | null;
  created_at: Date;
};

export const VOICE_COLUMNS =
  'id, org_id, livemode, credential_id, name, language, person_name, person_email, status, failure_code, consent_token, link_expires_at, purpose, created_at';

/** An e-mail address as answers show it: `a***@e***.com`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const host = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${local[0]}***@${host[0] ?? ''}***${tld}`;
}

export function consentUrl(base: string, token: string): string {
  return `${base}/consent/${token}`;
}

export function revokeUrl(base: string, token: string): string {
  return `${base}/consent/revoke/${token}`;
}

export function toVoice(base: string, r: VoiceRow): Voice {
  const awaiting = r.status === 'awaiting_consent';
  return {
    id: r.id,
    name: r.name,
    kind: 'clone',
    active: r.status === 'ready',
    gender: null,
    status: r.status,
    consent_url: awaiting ? consentUrl(base, r.consent_token) : null,
    language: r.language,
    person: { name: r.person_name, email: maskEmail(r.person_email) },
    failure_code: r.failure_code,
    // The consent link's lapse, while it can still be used (and once it lapsed).
    expires_at: awaiting || r.status === 'expired' ? r.link_expires_at.toISOString() : null,
    created_at: r.created_at.toISOString(),
    livemode: r.livemode,
  };
}

/** data.object of voice.* events: the voice without its person (never the e-mail) and without the link. */
export function eventObject(r: VoiceRow) {
  return {
    id: r.id, object: 'voice', name: r.name, kind: 'clone', status: r.status, active: r.status === 'ready', language: r.language,
    failure_code: r.failure_code, created_at: r.created_at.toISOString(), livemode: r.livemode,
  };
}

/** What a transition of a voice returns, and its event's object. */
export const TRANSITION_OPTS = { returning: VOICE_COLUMNS, objectFor: (row: VoiceRow) => eventObject(row) };

type Catalog = (typeof CATALOG_VOICES)[number];

export function genericVoice(c: Catalog, choice: { created_at: Date; livemode: boolean }, active = true): Voice {
  return {
    id: c.id, name: c.name, kind: 'generic', active, gender: c.gender, language: c.accent,
    created_at: choice.created_at.toISOString(), livemode: choice.livemode,
  };
}

export const catalogVoice = (id: string) => CATALOG_VOICES.find((c) => c.id === id);
