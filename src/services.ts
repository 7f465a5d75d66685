import type { Config } from './config.ts';
import type { Pool } from './db/pool.ts';
import type { Boss } from './jobs/boss.ts';
import type { Credential } from './credentials.ts';
import type { Lookup } from './webhooks/outbound.ts';
import type { Translation } from './engines/translate/index.ts';
import type { RecognizerChain } from './engines/speech/recognizers.ts';
import type { Speech } from './providers/speech.ts';
import { textRateSpeech } from './providers/speech.ts';
import type { CallGateway } from './calls/dialer.ts';

/** What every use case needs: configuration, the pool, the job queue and the providers. */
export type Services = {
  config: Config;
  pool: Pool;
  boss: Boss;
  /**
   * The time as the service sees it, for every decision that depends on the
   * time (rate-limit windows, key expiry, spending periods, retry schedules,
   * room expiry, link expiry); tests replace it to walk a schedule or cross a
   * window without waiting. Waiting itself (long-poll deadlines) uses real time.
   */
  clock?: () => Date;
  /** DNS for outgoing webhook requests; tests replace it to play hostile resolvers. */
  dnsLookup?: Lookup;
  /** Machine translation: TOLK_TRANSLATE's engines (engines/translate); none: only what needs no engine (sessions/translations.ts). */
  translation?: Translation;
  /** Speech recognition: TOLK_RECOGNIZE's engines (engines/speech); none: speech is reported with its length and no text. */
  recognizer?: RecognizerChain;
  /** How long text takes to say; our speaking-rate estimate unless replaced (src/providers/speech.ts). */
  speech?: Speech;
  /** This process's call gateway (SIP stack and simulated callee), when it runs workers (jobs/workers.ts). */
  gateway?: CallGateway;
};

export type Caller = Credential;

/** The current time as the services see it (Services.clock, else the system's). */
export function now(s: Pick<Services, 'clock'>): Date {
  return s.clock ? s.clock() : new Date();
}

export function speechOf(s: Services): Speech {
  return s.speech ?? textRateSpeech;
}
