import type { Reactions } from './services.ts';
import { settleBookingOfRoom } from './bookings/settle.ts';
import { endCall } from './calls/events.ts';
import { endRoomParticipants } from './rooms/participants.ts';
import { endRoomSessions } from './sessions/leave.ts';
import { writeRoomTranscript } from './transcripts/transcripts.ts';
import { publishSegment } from './sessions/publish.ts';
import { CALLS_CHANNEL, encodeNotice, notifySay } from './calls/channel.ts';
import { lockRobots, robotLangs, scheduleReply, startRobots, stopRobots } from './sim/robots.ts';
import { mailFrom, queueMail } from './mail/mail.ts';
import { personVoice, usableVoice, voiceInUse } from './voices/usable.ts';
import { phraseIn, renderAll } from './sessions/translations.ts';
import { COLUMNS as SESSION_COLUMNS, toSession, type SessionRow } from './sessions/sessions.ts';
import { planSegment } from './sessions/publish.ts';
import { planSessionEnd } from './sessions/leave.ts';
import { planCreate, planTransition, type Locked, type Transition } from './actors/store.ts';
import type { CallSessionRow } from './services.ts';
import { disclosure } from './i18n/disclosure.ts';
import { roomHead } from './sessions/publish.ts';
import { renderPhrases } from './sessions/translations.ts';
import { chosenVoice } from './sessions/sessions.ts';
import { speechVoice } from './voices/cloning.ts';
import { ANNOUNCEMENT, fillName, normaliseLang } from './sim/phrasebook.ts';
import { BOOKED_MEETINGS } from './rooms/meetings/booked.ts';
import { roomForCall } from './rooms/rooms.ts';
import { callerNumber, dialInNumber, inboundNumberAt } from './catalog/numbers.ts';
import { trunkSendsFrom } from './trunks/ping.ts';
import { TrunkDialer } from './trunks/dial.ts';
import { planStopRobots, startCallee } from './sim/robots.ts';
import { partialHeard, sayProgress, speechActivity } from './sessions/signals.ts';

/**
 * The one place where a capability reacts to another's event (services.ts
 * Reactions): rooms and meetings do not import bookings, sessions or
 * transcripts, nor sessions the calls; each calls its reaction inside its own
 * transaction, so what follows commits with the end that caused it.
 */
export const REACTIONS: Reactions = {
  async roomEnded(_s, tx, room) {
    // api.md: the room ends for everyone, its agent sessions included; the room's pages show it has ended.
    // The robots' row before the sessions' (sessionLeaving below: every writer of a room locks in that order).
    await lockRobots(tx, room.id);
    await endRoomSessions(tx, room.id);
    await stopRobots(tx, room.id);
    await endRoomParticipants(tx, room.id);
    // A booked meeting's booking: completed once its meeting took place, canceled (its slot free again) when it ended before it started.
    if (room.kind === 'meeting') await settleBookingOfRoom(tx, room.id, room.started ? 'COMPLETE' : 'CANCEL');
    // What was said in it, whoever said it, becomes the room's transcript (once: a second end changes nothing).
    await writeRoomTranscript(tx, room.id);
  },
  async meetingCanceled(_s, tx, roomId) {
    await settleBookingOfRoom(tx, roomId, 'CANCEL');
    // Agents may have talked in it before it started: what was said becomes its transcript.
    await writeRoomTranscript(tx, roomId);
  },
  async guestCanceledMeeting(_s, tx, roomId) {
    // Agents may have talked in it before it started.
    await writeRoomTranscript(tx, roomId);
  },
  async callSessionLeft(s, tx, callId) {
    await endCall(s, tx, callId);
  },
  // The test mode's robots (operator.md, Test-mode simulator) talk while a room has an open agent session.
  async sessionJoined(s, tx, session) {
    // A live room has only its people and agents.
    if (!session.livemode) await startRobots(s, tx, session.logId, session.roomLangs);
  },
  async phraseSaid(s, tx, phrase) {
    // Said on a call's session: spoken on the call's line (calls/channel.ts).
    if (phrase.call) {
      await notifySay(tx, {
        callId: phrase.call.id, utterance: phrase.call.utterance, livemode: phrase.livemode, seq: phrase.call.seq, text: phrase.call.text, lang: phrase.lang,
        interruptible: phrase.call.interruptible,
      });
    }
    if (!phrase.livemode) await scheduleReply(s, tx, phrase.logId, phrase.lang);
  },
  async sessionLeaving(_s, tx, logId) {
    // The simulator holds the robots' row while it publishes, and a room's end
    // takes it before the sessions' rows (roomEnded): so does a leave.
    await lockRobots(tx, logId);
  },
  async sessionLeft(_s, tx, left) {
    // The robots stop when nobody is left to listen.
    if (left.lastListener) await stopRobots(tx, left.logId);
  },
  otherListenerLangs: (tx, logId) => robotLangs(tx, logId),
  async robotSaid(s, tx, phrase) {
    if (phrase.onCall) {
      // The gateway holding the call (in whichever process) has the built-in
      // callee speak it, and what it hears on the line becomes the phrase of
      // the call's log (calls/dialer.ts).
      await tx.query(`SELECT pg_notify($1, $2)`, [CALLS_CHANNEL, encodeNotice({ type: 'callee', call: phrase.logId, lang: phrase.lang, text: phrase.text })]);
      return;
    }
    await publishSegment(s, tx, {
      roomId: phrase.logId, kind: 'robot', speaker: phrase.speaker, participantId: `robot_${phrase.robot}`, srcLang: phrase.lang, text: phrase.text,
    });
  },
  phrasesIn: (s, logId, livemode, phrases, lang) => renderAll(s, logId, livemode, phrases, lang),
  ownWording(kind, announced, lang) {
    // An engine's paraphrase of the disclosure is not the disclosure: its own wording there, else its English one as it is (never marked).
    if (announced === null) return null;
    if (kind === 'disclosure') return disclosure(announced, lang);
    if (kind === 'announcement') {
      const key = normaliseLang(lang);
      const template = Object.hasOwn(ANNOUNCEMENT, key) ? (ANNOUNCEMENT as Readonly<Record<string, string>>)[key]! : ANNOUNCEMENT.en;
      return fillName(template, announced);
    }
    return null;
  },
  async heardOnCall(s, tx, heard) {
    // The callee's words (or digit) in the call's log, heard by the call's session like any phrase.
    await publishSegment(s, tx, {
      roomId: heard.callId, kind: heard.kind, speaker: heard.speaker, participantId: 'callee', srcLang: heard.lang, text: heard.text,
      audioMs: heard.audioMs, segmentId: heard.segmentId ?? null, metered: false,
    });
  },
  phraseIn: (s, logId, livemode, phrase, lang) => phraseIn(s, logId, livemode, phrase, lang),
  callSessionColumns: SESSION_COLUMNS,
  planCallSession(w, p) {
    const row: SessionRow = {
      id: p.id, org_id: p.orgId, livemode: p.livemode, credential_id: p.credentialId, room_id: null, log_id: p.callId, call_id: p.callId,
      name: p.name, speak_lang: p.lang, hear_lang: p.lang, voice_id: p.voiceId, status: 'joining', billed_seconds: 0,
      from_seq: 0, to_seq: null, speaking_until: null, started_at: p.at, ended_at: null,
    };
    const actor = planCreate(w, {
      id: p.id, machine: 'session', owner: { orgId: p.orgId, livemode: p.livemode }, event: { type: 'JOIN' },
      objectFor: () => toSession(row),
      row: {
        id: p.id, org_id: p.orgId, livemode: p.livemode, credential_id: p.credentialId, room_id: null, log_id: p.callId, call_id: p.callId,
        name: p.name, speak_lang: p.lang, hear_lang: p.lang, voice_id: p.voiceId, from_seq: 0, metered_seq: 0, started_at: p.at,
      },
    });
    return { row, actor };
  },
  planCallAnswered(w, s, session, d) {
    // The rows the calls hold are the ones this port read or wrote (callSessionColumns, planCallSession).
    const locked = session as unknown as Locked<SessionRow>;
    const seated = planTransition<SessionRow>(w, locked, { type: 'JOINED' }, { objectFor: toSession, set: () => ({ speaking_until: d.speakingUntil }) });
    planSegment(w, s, {
      roomId: locked.row.log_id, kind: 'disclosure', speaker: d.speaker, participantId: session.id, srcLang: d.lang,
      text: d.text, announced: d.speaker, sessionId: session.id, metered: false,
    });
    return seated as unknown as Transition<CallSessionRow>;
  },
  planCallEnded(w, session) {
    planSessionEnd(w, session as unknown as Locked<SessionRow>, 'CALL_ENDED');
  },
  usableVoice,
  roomForCall,
  voiceInUse,
  personVoice,
  async queueMail(s, tx, message) {
    await queueMail(s, tx, message);
  },
  mailFrom,
  async webhookEndpointDisabled(s, tx, notice) {
    // Through the mail outbox (the one invitations use): sent when the endpoint is a live-mode one and SMTP_URL is set.
    await queueMail(s, tx, notice);
  },
  async personSaid(s, tx, phrase) {
    // A person's phrase goes into the room's log as an agent's does, so the room's sessions hear it and its pages show it.
    return publishSegment(s, tx, {
      roomId: phrase.logId, kind: 'person', speaker: phrase.speaker, participantId: phrase.participantId, srcLang: phrase.lang, text: phrase.text,
      ...(phrase.audioMs !== undefined ? { audioMs: phrase.audioMs } : {}),
      segmentId: phrase.segmentId ?? null,
    });
  },
  logHead: (tx, logId) => roomHead(tx, logId),
  phrasesInEach: (s, logId, livemode, phrases, langs) => renderPhrases(s, logId, livemode, phrases, langs),
  async sessionVoice(db, sessionId) {
    // The voice chosen at join, spoken when it is a ready clone the engines can speak.
    const v = await chosenVoice(db, sessionId);
    return v?.voiceId ? speechVoice(db, v.owner, v.voiceId) : undefined;
  },
  // A booking's meeting is a room: the bookings make and change it through the rooms' own port.
  bookedMeetings: BOOKED_MEETINGS,
  // What a call reads of the numbers, the voices, the trunks and the simulator.
  callerNumber,
  dialInNumber,
  async inboundNumber(db, dialed, source) {
    const n = await inboundNumberAt(db, dialed);
    return n && (await trunkSendsFrom(db, n.trunk_id, source)) ? { id: n.id, org_id: n.org_id, e164: n.e164 } : null;
  },
  spokenVoice: speechVoice,
  trunkDialer: (pool, secretKey) => new TrunkDialer(pool, secretKey),
  // A call's log is its own: the simulator keeps its callee under the call's id, as a room's robots under the room's.
  lockSimulatedCallee: (tx, callId) => lockRobots(tx, callId),
  startSimulatedCallee: (s, tx, callee) => startCallee(s, tx, callee.callId, callee.name, callee.lang),
  planSimulatedCalleeStop: (w, callId) => planStopRobots(w, callId),
  // What happens while phrases are said, in the log like them: a say's progress, who talks, a phrase so far (sessions/signals.ts).
  sayProgress,
  speechActivity,
  partialHeard,
};
