import type { Config } from './config.ts';
import type { Client, Pool, Queryable } from './db/pool.ts';
import type { PgBoss } from 'pg-boss';
import type { Credential } from './credentials.ts';
import type { Translation } from './engines/translate/index.ts';
import type { RecognizerChain } from './engines/speech/recognizers.ts';
import type { Speech } from './providers/speech.ts';
import { textRateSpeech } from './providers/speech.ts';
import type { MediaPlane } from '../gateway/media/plane.ts';
import type { Writes } from './db/writes.ts';
import type { Locked, Transition, TransitionResult } from './actors/store.ts';

/** What every use case needs: configuration, the pool, the job queue and the providers. */
export type Services = {
  config: Config;
  pool: Pool;
  boss: PgBoss;
  /**
   * The time as the service sees it, for every decision that depends on the
   * time (rate-limit windows, key expiry, spending periods, retry schedules,
   * room expiry, link expiry); tests replace it to walk a schedule or cross a
   * window without waiting. Waiting itself (long-poll deadlines) uses real time.
   */
  clock?: () => Date;
  /** DNS for outgoing webhook requests; tests replace it to play hostile resolvers. */
  dnsLookup?: (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;
  /** Machine translation: TOLK_TRANSLATE's engines (engines/translate); none: only what needs no engine (sessions/translations.ts). */
  translation?: Translation;
  /** Speech recognition: TOLK_RECOGNIZE's engines (engines/speech); none: speech is reported with its length and no text. */
  recognizer?: RecognizerChain;
  /** How long text takes to say; our speaking-rate estimate unless replaced (src/providers/speech.ts). */
  speech?: Speech;
  /** What one capability does on another's event, and what it reads of another (src/reactions.ts; the platform and the app give them). */
  reactions: Reactions;
  /** This process's call gateway bound to the calls (calls/dialer.ts), when it runs one (the platform starts it). */
  gateway?: CallGateway;
  /** Wakes whoever waits for a log's next events (sessions/bus.ts SessionBus); the app and the gateway give it. */
  logBus?: LogBus;
};

/**
 * The one way a reader waits for what is written in a log (a phrase, its
 * translation): a mark taken before reading, then a wait that ends at the
 * log's next notification after it, or after ms.
 */
export type LogBus = {
  mark(): number;
  waitFor(logId: string, ms: number, since: number): Promise<void>;
};

/** A gateway bound to the calls: it dials the calls this process claims (calls/dialer.ts bindGateway). */
export type CallGateway = {
  id: string;
  /** The SIP address the gateway's signaling bound. */
  address: string;
  /** Claims the queued calls no gateway has claimed yet and dials them. */
  dial: (...callIds: string[]) => Promise<void>;
  /** Dials a call this process just placed with this gateway's id, after its commit, as calls/place.ts wrote it. */
  dialPlaced(placed: { call: { id: string } }): Promise<void>;
  /** The calls whose SIP dialog this gateway holds now. */
  active: () => string[];
  /** The RTP streams of this gateway's calls, by call id. */
  media: MediaPlane;
  /** Ends the calls whose dialog is here (failed/gateway_lost) and unbinds; the gateway itself is stopped by whoever started it. */
  stop: () => Promise<void>;
};

/**
 * Where one capability reacts to another's event, or reads what another
 * knows (a port), so neither imports the other: the capability whose object
 * changed calls its reaction in the transaction that changed it, and
 * src/reactions.ts, above every capability, does the rest. Declared here,
 * below them all.
 */
export type Reactions = {
  /**
   * A room or meeting ended (deleted, expired, or its meeting's end): its
   * agent sessions and its people leave, a booked meeting's booking settles
   * (completed when it had started, else canceled), and what was said in it
   * becomes the room's transcript.
   */
  roomEnded(s: Services, tx: Client, room: { id: string; kind: string; started: boolean }): Promise<void>;
  /** A scheduled meeting was canceled by its host: its booking is canceled and what was said in it becomes its transcript. */
  meetingCanceled(s: Services, tx: Client, roomId: string): Promise<void>;
  /** A booked meeting was canceled by its guest (the manage page; the booking is canceled already): what was said in it becomes its transcript. */
  guestCanceledMeeting(s: Services, tx: Client, roomId: string): Promise<void>;
  /** A call's session left (POST /v1/sessions/{id}/leave): the call hangs up, ending the session with it. */
  callSessionLeft(s: Services, tx: Client, callId: string): Promise<void>;
  /** An agent session joined a room: in test mode the room's robots start talking (or keep on). */
  sessionJoined(s: Services, tx: Client, session: { logId: string; roomLangs: string[]; livemode: boolean }): Promise<void>;
  /**
   * A session or a person said a phrase in a log: in test mode a robot
   * answers it; said on a call's session (`call`), the gateway holding the
   * call speaks it on the line once committed.
   */
  phraseSaid(s: Services, tx: Client, phrase: { logId: string; lang: string; livemode: boolean; call?: { id: string; utterance: string; seq: number; text: string } }): Promise<void>;
  /**
   * A session of the log is about to end (it leaves): what reacts to its end
   * takes its row locks here, before the session's row is locked, in the
   * order the room's other writers take them (the robots' row first).
   */
  sessionLeaving(s: Services, tx: Client, logId: string): Promise<void>;
  /** A session left its log; `lastListener`: no open session is left on it (the robots stop). */
  sessionLeft(s: Services, tx: Client, left: { logId: string; lastListener: boolean }): Promise<void>;
  /** The languages a log is heard in besides its sessions and people (the test mode's robots); a say is charged per language heard. */
  otherListenerLangs(tx: Client, logId: string): Promise<string[]>;
  /**
   * A test-mode robot said a phrase (sim/engine.ts): a room's robot is heard
   * in the room's log; a call's callee (`onCall`, the log is the call's)
   * says it on the call's line.
   */
  robotSaid(s: Services, tx: Client, phrase: { logId: string; robot: 'a' | 'b'; speaker: string; onCall: boolean; lang: string; text: string }): Promise<void>;
  /**
   * A log's phrases read in `lang` (a transcript read back), each translated
   * once whoever reads it (sessions/translations.ts renderAll).
   */
  phrasesIn(s: Services, logId: string, livemode: boolean, phrases: readonly LoggedPhrase[], lang: string): Promise<(seq: number) => { text: string | null }>;
  /**
   * Text the service wrote itself in several languages (a call's AI
   * disclosure, a room's announcement that an AI assistant joined), in lang:
   * its own wording there, never translated; null for any other phrase.
   */
  ownWording(kind: string | null, announced: string | null, lang: string): string | null;
  /** The far end of a call said something or keyed a digit (calls/call-line.ts): a phrase of the call's log, heard by its session. */
  heardOnCall(s: Services, tx: Client, heard: { callId: string; kind: 'person' | 'dtmf'; speaker: string; lang: string; text: string | null; audioMs: number }): Promise<void>;
  /**
   * A phrase of a log in lang, translated once whoever reads it, waiting (up
   * to the engines' time limit, on Services.logBus) while another reader
   * makes it: what a call's line says (sessions/translations.ts phraseIn).
   */
  phraseIn(s: Services, logId: string, livemode: boolean, phrase: LoggedPhrase, lang: string): Promise<{ text: string | null; untranslated: boolean }>;
  /** The columns of a call's agent session (sessions/sessions.ts), read and locked with the call in one statement. */
  callSessionColumns: string;
  /**
   * A call is placed: its conversation, an agent session on the call's line
   * hearing and speaking `lang`, `joining` until the callee answers, planned
   * in the call's statement (w); the session as written and its actor.
   */
  planCallSession(w: Writes, session: CallSessionPlan): { row: CallSessionRow; actor: TransitionResult };
  /**
   * A call is answered: its session is seated, speaking until `speakingUntil`,
   * and the AI disclosure is the first phrase of the call's log; planned in w.
   */
  planCallAnswered(w: Writes, s: Services, session: Locked<CallSessionRow>, disclosure: { text: string; lang: string; speaker: string; speakingUntil: Date }): Transition<CallSessionRow>;
  /** A call ended: its session ends with it, and what was said on the line becomes a transcript; planned in w. */
  planCallEnded(w: Writes, session: Locked<CallSessionRow>): void;
  /**
   * The voice a session or call asks for, if the key may use it and it is
   * usable (consented, not withdrawn), else 400 naming `field`; null for the
   * default voice (voices/usable.ts).
   */
  usableVoice(db: Queryable, cred: Caller, field: string, voiceId: string | undefined | null): Promise<string | null>;
  /** The voice still usable by its owner now (a withdrawal since stops it), else null: the default voice (voices/usable.ts). */
  voiceInUse(db: Queryable, owner: { orgId: string; livemode: boolean }, voiceId: string | null): Promise<string | null>;
  /** The mail outbox (mail/mail.ts): the message kept in tx, and for live mode with SMTP_URL set its sending queued. */
  queueMail(s: Services, tx: Client, message: MailMessage): Promise<void>;
  /** The From of every mail the service sends: TOLK_MAIL_FROM, else `Tolk <no-reply@HOST>` (mail/mail.ts). */
  mailFrom(config: Pick<Config, 'mailFrom' | 'publicBaseUrl'>): string;
  /** A webhook endpoint was disabled for failing: its owner is told by mail (the message is the webhooks'). */
  webhookEndpointDisabled(s: Services, tx: Client, notice: { orgId: string; livemode: boolean; to: string; subject: string; text: string }): Promise<void>;
};

/** A call's agent session as the calls keep it: the sessions' row (sessions/sessions.ts), of which the calls read only the id. */
export type CallSessionRow = Record<string, unknown> & { id: string };

/** What a call's agent session is made of (calls/place.ts). */
export type CallSessionPlan = {
  id: string; callId: string; orgId: string; livemode: boolean; credentialId: string; name: string; lang: string; voiceId: string | null; at: Date;
};

/** A mail as a capability writes it (mail/mail.ts MailInput). */
export type MailMessage = {
  /** The organization the mail is about (null for none). */
  orgId: string | null;
  /** Live-mode mail is sent (when SMTP_URL is set); test-mode mail is only kept. */
  livemode: boolean;
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** A calendar file, sent as a text/calendar alternative with its METHOD and as invite.ics. */
  ics?: { method: 'REQUEST' | 'CANCEL'; content: string };
};

/** A phrase of a room's (or call's) log, as transcripts keep it. */
export type LoggedPhrase = { seq: number; kind: string; text: string | null; src_lang: string; announced: string | null; created_at: Date };

export type Caller = Credential;

/** The current time as the services see it (Services.clock, else the system's). */
export function now(s: Pick<Services, 'clock'>): Date {
  return s.clock ? s.clock() : new Date();
}

export function speechOf(s: Services): Speech {
  return s.speech ?? textRateSpeech;
}
