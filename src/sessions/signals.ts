import { withTx, type Client } from '../db/pool.ts';
import { inTx } from '../jobs/in-tx.ts';
import { LOG_SIGNALS, type LogSignal, type Reactions, type Services } from '../services.ts';
import { publishSegment } from './publish.ts';

// What happens while a log's phrases are said (operator.md, "Session events
// beyond segment.final"), written into the log like a phrase (publish.ts),
// with the log's next number, so a session's cursor covers them and its
// listeners wake as for a phrase. They are not phrases: not billed
// (metered: false), never in a transcript, never translated (their text,
// a partial's, is delivered as it was heard), and the room page's feed
// leaves them out. Who receives which (reader.ts): a say's progress only the
// session that said it; speech activity and partials every session of the
// log but the participant's own.

const SIGNALS: ReadonlySet<string> = new Set(LOG_SIGNALS);

/** Whether a log entry of this kind is a signal, not a phrase. */
export function isSignal(kind: string): kind is LogSignal {
  return SIGNALS.has(kind);
}

/** Reactions.sayProgress: say.started, say.finished or say.interrupted of a session's utterance. */
export const sayProgress: Reactions['sayProgress'] = async (s, tx, p) => {
  await publishSegment(s, tx, {
    roomId: p.logId, kind: `say.${p.kind}`, speaker: null, participantId: p.sessionId, srcLang: null, text: null,
    sessionId: p.sessionId, utteranceId: p.utteranceId, spokenMs: Math.max(0, Math.round(p.spokenMs)), metered: false,
  });
};

/** Reactions.speechActivity: speech.started or speech.stopped of a participant. */
export const speechActivity: Reactions['speechActivity'] = async (s, tx, p) => {
  await publishSegment(s, tx, {
    roomId: p.logId, kind: `speech.${p.kind}`, speaker: p.speaker, participantId: p.participantId, srcLang: null, text: null, metered: false,
  });
};

/** Reactions.partialHeard: a phrase so far (segment.partial). */
export const partialHeard: Reactions['partialHeard'] = async (s, tx, p) => {
  await publishSegment(s, tx, {
    roomId: p.logId, kind: 'segment.partial', speaker: p.speaker, participantId: p.participantId, srcLang: p.srcLang, text: p.text,
    segmentId: p.segmentId, metered: false,
  });
};

export const SAY_FINISHED_QUEUE = 'session-say-finished';
export type SayFinishedJob = { logId: string; sessionId: string; utteranceId: string; spokenMs: number };

/**
 * A say in a room is read aloud by the room's pages, each on its own: no
 * server hears when it ends. Its progress is timed by the speaking-rate
 * estimate (Services.speech): say.started as it is published, and
 * say.finished, with the estimate as spoken_ms, when the estimate says its
 * speech ends (after what the session was still saying: `at`), by a durable
 * job written in the say's transaction. On a call the line says when it
 * really started and ended (Reactions.sayProgress).
 */
export async function timeRoomSay(s: Services, tx: Client, say: SayFinishedJob & { at: Date }): Promise<void> {
  await sayProgress(s, tx, { logId: say.logId, sessionId: say.sessionId, utteranceId: say.utteranceId, kind: 'started', spokenMs: 0 });
  const job: SayFinishedJob = { logId: say.logId, sessionId: say.sessionId, utteranceId: say.utteranceId, spokenMs: say.spokenMs };
  await s.boss.send(SAY_FINISHED_QUEUE, job, { ...inTx(tx), startAfter: say.at });
}

/** The say's estimated end came: say.finished, unless its session has ended since (nobody would read it). */
export async function finishRoomSay(s: Services, job: SayFinishedJob): Promise<void> {
  await withTx(s.pool, async (tx) => {
    const { rows } = await tx.query<{ status: string }>(`SELECT status FROM agent_sessions WHERE id = $1`, [job.sessionId]);
    if (rows[0] === undefined || rows[0].status === 'ended') return;
    await sayProgress(s, tx, { ...job, kind: 'finished' });
  });
}
