import { prepared, withTx, type Client } from '../db/pool.ts';
import { randomBase62 } from '../ids.ts';
import { now, speechOf, type Caller, type Services } from '../services.ts';
import { assertLanguagesAllowed } from '../restrictions.ts';
import { PRICING } from '../billing/pricing.ts';
import { recordUsage } from '../billing/ledger.ts';
import { assertCanSpend, lockSpending } from '../billing/limits.ts';
import { ApiError } from '../errors.ts';
import { loadSession, sessionEnded, unlessUnavailable } from './sessions.ts';
import { publishSegment } from './publish.ts';
import { timeRoomSay } from './signals.ts';
import { hearLangs } from './translations.ts';

/** Distinct languages the room's other listeners hear in: the robots' (test mode, reactions.ts), the other open sessions' and the people's on the room page. */
async function listenerLangs(s: Services, tx: Client, roomId: string, exclude: string): Promise<string[]> {
  return [...new Set([...(await s.reactions.otherListenerLangs(tx, roomId)), ...(await hearLangs(tx, roomId, exclude))])];
}

/**
 * POST /v1/sessions/{id}/say: the text is translated into every listener
 * language and spoken. api.md: charged seconds = seconds spoken times the
 * number of listener languages; 402 when that would pass a spending limit.
 * On a call's session it is spoken to the callee (in the call's remote
 * language) once the call is answered, and costs nothing of its own: the
 * call's answered minutes pay for the line.
 */
export async function say(s: Services, cred: Caller, id: string, input: { text: string; lang?: string; interruptible?: boolean }) {
  if (input.lang !== undefined) assertLanguagesAllowed(cred, 'lang', [input.lang]);
  return unlessUnavailable(s, cred, withTx(s.pool, async (tx) => {
    await lockSpending(tx, cred);
    // The speaker's row (its speaking_until and billed total, and a leave
    // cannot pass it); the room's log is locked last, by publishSegment.
    const session = await loadSession(tx, cred, id, { lock: true });
    if (session.status === 'ended') throw sessionEnded(id);
    if (session.call_id !== null && session.status === 'joining') {
      throw new ApiError('conflict', `Call '${session.call_id}' is not answered yet; speak once its status is answered (call.answered)`);
    }
    const lang = input.lang ?? session.speak_lang;
    assertLanguagesAllowed(cred, 'lang', [lang]);
    // A voice withdrawn since the join is not used (voices.ts): the phrase is spoken with the default voice.
    const voiceId = await s.reactions.voiceInUse(tx, { orgId: session.org_id, livemode: session.livemode }, session.voice_id ?? null);
    const spoken = speechOf(s).spokenSeconds(input.text);
    const langs = await listenerLangs(s, tx, session.log_id, session.id);
    const onCall = session.call_id !== null;
    const charged = onCall ? 0 : Math.ceil(spoken * Math.max(1, langs.length) * PRICING.apiMinuteFactor);
    const at = now(s);
    await assertCanSpend(tx, { cred, seconds: charged, callSeconds: Number(session.billed_seconds) }, at);
    const utteranceId = `utt_${randomBase62(22)}`;
    const queuedMs = Math.max(0, (session.speaking_until?.getTime() ?? 0) - at.getTime());
    const speakingUntil = new Date(at.getTime() + queuedMs + (spoken * 1000) / s.config.simSpeed);
    // The session's own billed total (its per-call usage) grows with what it says.
    await tx.query(prepared(
      `UPDATE agent_sessions SET speaking_until = $2, billed_seconds = billed_seconds + $3 WHERE id = $1`,
      [id, speakingUntil, charged],
    ));
    const seq = await publishSegment(s, tx, {
      roomId: session.log_id, kind: 'agent', speaker: session.name, participantId: session.id, srcLang: lang,
      text: input.text, sessionId: session.id, utteranceId, metered: !onCall,
    });
    // A test room's robots answer (reactions.ts); a live room has none. On a call, the gateway holding
    // its dialog (in whichever process) speaks it on the line, once committed.
    await s.reactions.phraseSaid(s, tx, {
      logId: session.log_id, lang, livemode: session.livemode,
      // operator.md: a callee who talks over the agent stops its speech unless the say says otherwise.
      ...(onCall ? { call: { id: session.call_id!, utterance: utteranceId, seq, text: input.text, interruptible: input.interruptible ?? true } } : {}),
    });
    // In a room the pages read it aloud: its progress is timed by the speaking-rate estimate (signals.ts).
    // On a call the line reports it as it plays (Reactions.sayProgress).
    if (!onCall) {
      await timeRoomSay(s, tx, { logId: session.log_id, sessionId: session.id, utteranceId, spokenMs: Math.round(spoken * 1000), at: speakingUntil });
    }
    await recordUsage(tx, { orgId: cred.orgId, credentialId: cred.id, livemode: cred.livemode, kind: 'say', seconds: charged, ref: utteranceId }, at);
    return { utterance_id: utteranceId, queued_ms: Math.round(queuedMs), charged_seconds: charged, livemode: cred.livemode, voice_id: voiceId };
  }));
}
