import type { MediaServers } from './media/servers.ts';
import type { Config } from './config.ts';
import type { Client, Pool, Queryable } from './db/pool.ts';
import type { PgBoss } from 'pg-boss';
import type { Credential } from './credentials.ts';
import type { Translation } from './engines/translate/index.ts';
import type { RecognizerChain } from './engines/speech/recognizers.ts';
import type { SpeechRecognizer } from './engines/speech/recognizer.ts';
import type { Speech } from './providers/speech.ts';
import { textRateSpeech } from './providers/speech.ts';
import type { MediaPlane } from '../gateway/media/plane.ts';
import type { TrunkRoute } from '../gateway/signaling.ts';
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
  /** The media server rooms' live voices go through (TOLK_MEDIA_SERVER; media/servers.ts); none: no voices. */
  media?: MediaServers;
  /** Wakes whoever waits for a log's next events (sessions/bus.ts SessionBus); the app and the gateway give it. */
  logBus?: LogBus;
  /** The rooms' phone lines of this process's gateway (rooms/phone/dial-in.ts), which a call placed into a room joins. */
  phoneRooms?: PhoneRooms;
};

/**
 * A call placed into a room (POST /v1/calls with room_id, operator.md): once answered, its line is a
 * participant of the room (rooms/phone/), instead of talking to an AI agent; the calls keep its
 * SIP, its timers and its billing.
 */
export type PhoneRooms = {
  /**
   * The callee answered: they join the room (named by their number, masked), speaking and hearing
   * `lang`; `recognizer` reads them (the service's for a real person, the simulated callee's own for a
   * test call); `end` hangs the call up (the room ended, or had no room for them).
   */
  bring(callId: string, o: { roomId: string; lang: string; phone: string; recognizer: SpeechRecognizer; end: () => void }): void;
  /** The call ended (its line went): its participant leaves. */
  ended(callId: string): void;
};

/**
 * The one way a reader waits for what is written in a log (a phrase, its
 * translation, who came or went): a mark taken before reading, then a wait
 * that ends at the log's next notification after it, after ms, or when
 * `gone` closes (the request or socket the wait is for went away).
 */
export type LogBus = {
  mark(): number;
  waitFor(logId: string, ms: number, since: number, gone?: Gone): Promise<void>;
};

/** What a wait watches to stop waiting when its reader goes away (a request's IncomingMessage, a WebSocket, an emitter). */
export type Gone = { once(event: 'close', fn: () => void): unknown; off(event: 'close', fn: () => void): unknown; readonly destroyed?: boolean };

/**
 * The channel a log's writers NOTIFY with the log's id (a room's or a
 * call's) in their transaction, and the LogBus listens on: declared with the
 * port so that every capability that changes what a log's readers see (the
 * sessions' phrases, the rooms' people) wakes them the same way.
 */
export const LOG_CHANNEL = 'tolk_session_events';

/**
 * Kinds of a log's entries that are not phrases but what happens while they
 * are said (sayProgress, speechActivity, partialHeard), each delivered as the
 * session event of the same name: what counts or renders phrases
 * (transcripts, the room page's feed, translations) leaves them out.
 */
export const LOG_SIGNALS = ['segment.partial', 'say.started', 'say.finished', 'say.interrupted', 'speech.started', 'speech.stopped'] as const;
export type LogSignal = (typeof LOG_SIGNALS)[number];

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
  phraseSaid(s: Services, tx: Client, phrase: {
    logId: string; lang: string; livemode: boolean;
    /** interruptible: a callee who talks over it stops it (the say's `interruptible`). */
    call?: { id: string; utterance: string; seq: number; text: string; interruptible: boolean };
  }): Promise<void>;
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
  heardOnCall(s: Services, tx: Client, heard: {
    callId: string; kind: 'person' | 'dtmf'; speaker: string; lang: string; text: string | null; audioMs: number;
    /** The id its partials carried (partialHeard): the final's meta.segment_id. */
    segmentId?: string;
  }): Promise<void>;
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
  /** A live room of the caller's a call brings its callee into (rooms/rooms.ts roomForCall): its id; 400 naming `field`, or 409 when not live. */
  roomForCall(db: Queryable, cred: Caller, field: string, roomId: string): Promise<string>;
  /** The voice still usable by its owner now (a withdrawal since stops it), else null: the default voice (voices/usable.ts). */
  voiceInUse(db: Queryable, owner: { orgId: string; livemode: boolean }, voiceId: string | null): Promise<string | null>;
  /** The mail outbox (mail/mail.ts): the message kept in tx, and for live mode with SMTP_URL set its sending queued. */
  queueMail(s: Services, tx: Client, message: MailMessage): Promise<void>;
  /** The From of every mail the service sends: TOLK_MAIL_FROM, else `Tolk <no-reply@HOST>` (mail/mail.ts). */
  mailFrom(config: Pick<Config, 'mailFrom' | 'publicBaseUrl'>): string;
  /** A webhook endpoint was disabled for failing: its owner is told by mail (the message is the webhooks'). */
  webhookEndpointDisabled(s: Services, tx: Client, notice: { orgId: string; livemode: boolean; to: string; subject: string; text: string }): Promise<void>;
  // What a call reads of other capabilities, each named by what the call needs.
  /**
   * A call's caller id: one of the organization's numbers by id, or its
   * default (the shared number when it has none); else 400 naming `from`
   * (catalog/numbers.ts).
   */
  callerNumber(db: Queryable, cred: Caller, from: string | undefined): Promise<{ id: string; e164: string }>;
  /** The number people dial to join the organization's rooms by phone, or null (catalog/numbers.ts). */
  dialInNumber(db: Queryable, orgId: string): Promise<{ id: string; e164: string } | null>;
  /**
   * The inbound number a trunk's INVITE dialed, when it takes calls and `source` is its trunk's
   * address; else null (catalog/numbers.ts inboundNumberAt, trunks/ping.ts trunkSendsFrom).
   */
  inboundNumber(db: Queryable, dialed: string, source: string): Promise<{ id: string; org_id: string; e164: string } | null>;
  /**
   * The voice the speech engines say a call's voice with: a ready live
   * clone's provider voice, else undefined (the engines' own voice); pass the
   * id voiceInUse answered (voices/cloning.ts speechVoice).
   */
  spokenVoice(db: Queryable, owner: { orgId: string; livemode: boolean }, voiceId: string | null | undefined): Promise<string | undefined>;
  /**
   * A person's own cloned voice, ready in the organization: the newest whose person's e-mail is
   * the one `who` names (join-links.ts personTag), else null (voices/usable.ts).
   */
  personVoice(db: Queryable, owner: { orgId: string; livemode: boolean }, who: string): Promise<string | null>;
  /** How a gateway's live calls go out through their trunks (trunks/dial.ts): one per gateway, keeping what it read of a trunk for a few seconds. */
  trunkDialer(pool: Pool, secretKey: Buffer | undefined): TrunkDialer;
  /**
   * The simulated callee of a test call's line (sim/robots.ts): its row is
   * locked before the call's (the order the simulator takes them in), it
   * starts talking at the answer, and stops with the call's end (planned in w).
   */
  lockSimulatedCallee(tx: Client, callId: string): Promise<void>;
  startSimulatedCallee(s: Services, tx: Client, callee: { callId: string; name: string; lang: string }): Promise<void>;
  planSimulatedCalleeStop(w: Writes, callId: string): void;
  /**
   * A person in a room said a phrase (typed on the room's page, or heard from
   * its microphone with its length): a phrase of the room's log, heard by its
   * sessions as any other, metered like one; answers its number (sessions/publish.ts).
   */
  personSaid(s: Services, tx: Client, phrase: { logId: string; participantId: string; speaker: string; lang: string; text: string; audioMs?: number; segmentId?: string }): Promise<number>;
  /** The log's last number (0 before its first phrase): who joins now reads what comes after it (sessions/publish.ts roomHead). */
  logHead(tx: Client, logId: string): Promise<number>;
  /**
   * A log's phrases in each of langs as far as they are ready, without
   * waiting: stored translations read, missing ones made now; undefined for
   * one another reader is making (its storing notifies the log, LogBus):
   * what a room page's live feed holds back (sessions/translations.ts renderPhrases).
   */
  phrasesInEach(s: Services, logId: string, livemode: boolean, phrases: readonly LoggedPhrase[], langs: readonly string[]): Promise<{ get(seq: number, lang: string): { text: string | null; untranslated: boolean } | undefined }>;
  /**
   * The voice the speech engines speak an agent session's phrases with: its
   * ready cloned voice, else undefined (the engines' own voice) (voices/cloning.ts speechVoice).
   */
  sessionVoice(db: Queryable, sessionId: string): Promise<string | undefined>;
  /** What a booking does with its meeting (rooms/meetings/booked.ts): the bookings never touch a room themselves. */
  bookedMeetings: BookedMeetings;
  // What happens while a log's phrases are said (operator.md, "Session events beyond segment.final"):
  // entries of the log numbered like its phrases, never billed, never in a transcript (sessions/signals.ts).
  /** A session's utterance started, finished or was interrupted after spokenMs of it: say.* to that session only. */
  sayProgress(s: Services, tx: Client, p: { logId: string; sessionId: string; utteranceId: string; kind: 'started' | 'finished' | 'interrupted'; spokenMs: number }): Promise<void>;
  /** A participant of the log (a person, a callee) started or stopped talking: speech.* to the log's other sessions. */
  speechActivity(s: Services, tx: Client, p: { logId: string; speaker: string | null; participantId: string; kind: 'started' | 'stopped' }): Promise<void>;
  /** A phrase so far, its speaker still talking: segment.partial, replaced by a later one or by the final that carries the same segmentId. */
  partialHeard(s: Services, tx: Client, p: { logId: string; speaker: string | null; participantId: string; srcLang: string; segmentId: string; text: string }): Promise<void>;
};

/**
 * A booking's meeting, a room of kind meeting (rooms/meetings/), as the
 * bookings make, read, move and cancel it; each call in the booking's
 * transaction (or read on its own).
 */
export type BookedMeetings = {
  /**
   * Schedules a new booking's meeting in the host's organization: a private
   * room, its timers, and one invitation per guest (the booking's guest
   * first, then the host), each guest an invitee.
   */
  schedule(
    s: Services, tx: Client, host: { credentialId: string; orgId: string; livemode: boolean },
    meeting: { title: string; start: Date; durationMin: number; langs: string[]; tz: string }, guests: MeetingGuest[],
  ): Promise<BookedMeeting>;
  /** The meeting as it is now, locked for the transaction's change with `lock` (FOR UPDATE); undefined when there is none. */
  read(s: Services, db: Queryable, roomId: string, opts?: { lock?: boolean }): Promise<BookedMeeting | undefined>;
  /**
   * Its guest cancels it: CANCEL (meeting.canceled) with a higher calendar
   * sequence, and the cancellation mailed (METHOD:CANCEL); `changed` false,
   * nothing done, when it is no longer scheduled.
   */
  cancel(s: Services, tx: Client, roomId: string): Promise<{ changed: boolean; meeting: BookedMeeting }>;
  /**
   * Its guest moves it to start: the room's new times and a higher calendar
   * sequence (meeting.updated), new timers (the old ones do nothing), the
   * updated invitations (same UID).
   */
  move(s: Services, tx: Client, roomId: string, start: Date, durationMin: number): Promise<void>;
  /** The guest's own join link (name and languages prefilled, as in the invitation) while it is ahead or live, else the room's address. */
  guestLink(s: Services, db: Queryable, meeting: BookedMeeting, guest: { name: string; speak: string; hear?: string | null; email?: string }): Promise<string>;
  /** Its calendar file as it is now, the same UID and sequence as its mails: REQUEST, or CANCEL once canceled. */
  calendar(
    s: Services, db: Queryable, meeting: BookedMeeting,
    file: { method: 'REQUEST' | 'CANCEL'; link: string; start: Date; durationMin: number; tz: string; guest: { email: string; name: string } },
  ): Promise<string>;
};

/** A booked meeting as its booking reads it. */
export type BookedMeeting = {
  id: string;
  orgId: string;
  status: 'scheduled' | 'live' | 'ended' | 'canceled';
  title: string;
  startsAt: Date | null;
  durationMin: number | null;
  tz: string | null;
  /** Its calendar sequence, raised by each change its invitees are told of. */
  sequence: number;
  invitees: string[];
  createdAt: Date;
  expiresAt: Date;
  /** The room's own address (a private room lets in only who has a join link). */
  url: string;
};

/** Who a meeting's mails go to; locale: the language of the guest's mails (a booking guest's), when known. */
export type MeetingGuest = { email: string; name?: string; speak?: string; hear?: string; tz?: string; locale?: string };

/** Where a live call goes out through its trunk, after its calls-per-second slot (waitMs); or why it does not. */
export type TrunkDial =
  | { ok: true; target: string; route: TrunkRoute; waitMs: number }
  | { ok: false; reason: 'trunk_down' | 'trunk_busy' | 'trunk_missing'; detail: string };

/**
 * A gateway's way out through the trunks (Reactions.trunkDialer). prepare
 * throws an Error named SecretKeyError when the trunk's stored password cannot
 * be read with TOLK_SECRET_KEY; its message says what to do.
 */
export type TrunkDialer = { prepare(trunkId: string, e164: string): Promise<TrunkDial> };

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
