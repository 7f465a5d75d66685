import { z } from 'zod';
import { prepared, type Client } from '../db/pool.ts';

// What the rest of the service tells the gateway holding a call's dialog,
// in whichever process it runs: one PostgreSQL channel, one typed notice per
// message (JSON, checked on arrival). Sent with pg_notify inside the
// transaction that decided it, so it is heard only once that commits.
//
// - `hangup`: the call ended elsewhere (the API's hangup, the per-call limit,
//   a lost gateway): BYE or CANCEL its dialog.
// - `say`: a phrase of the call's log (an agent's say) to speak on the line.
//   It carries the phrase itself, so the line does not read it back; the
//   line translates it into the callee's language through the log's
//   translations (the phraseIn reaction), as every reader does.
// - `callee`: test mode's built-in callee is given its words by the simulator.

/** The channel every gateway listens on. */
export const CALLS_CHANNEL = 'tolk_calls';

const Phrase = z.object({
  seq: z.number().int().nonnegative(),
  kind: z.string(),
  /** Null when the text was too long for a notice (PostgreSQL's 8,000 bytes): the line reads it from the log. */
  text: z.string().nullable(),
  src_lang: z.string(),
  announced: z.string().nullable(),
  created_at: z.string(),
});

const LineNotice = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hangup'), call: z.string() }),
  // interruptible: the say's (sessions/say.ts); absent from an older process's notice, a call's default.
  z.object({ type: z.literal('say'), call: z.string(), utterance: z.string(), livemode: z.boolean(), phrase: Phrase, interruptible: z.boolean().default(true) }),
  z.object({ type: z.literal('callee'), call: z.string(), lang: z.string(), text: z.string() }),
]);

export type LineNotice = z.infer<typeof LineNotice>;
export type PhraseOnLine = z.infer<typeof Phrase>;

/** PostgreSQL refuses a payload of 8,000 bytes or more. */
const MAX_PAYLOAD = 7_900;

/** The notice as sent: JSON; a say whose text does not fit goes without it (the line reads it from the log). */
export function encodeNotice(n: LineNotice): string {
  const json = JSON.stringify(n);
  if (Buffer.byteLength(json) <= MAX_PAYLOAD) return json;
  if (n.type === 'say') return JSON.stringify({ ...n, phrase: { ...n.phrase, text: null } });
  if (n.type === 'callee') return JSON.stringify({ ...n, text: n.text.slice(0, 1_000) });
  return json;
}

/** The notice a payload carries, or null for one this version does not know (logged by the listener). */
export function decodeNotice(payload: string): LineNotice | null {
  try {
    const r = LineNotice.safeParse(JSON.parse(payload));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/**
 * A phrase said on a call's session (sessions/say.ts, through the phraseSaid
 * reaction): the gateway holding the call speaks it on the line once the
 * transaction commits. The notice carries the phrase, so the line does not
 * read it back.
 */
export async function notifySay(
  tx: Client, said: { callId: string; utterance: string; livemode: boolean; seq: number; text: string; lang: string; interruptible: boolean },
): Promise<void> {
  const notice = encodeNotice({
    type: 'say', call: said.callId, utterance: said.utterance, livemode: said.livemode, interruptible: said.interruptible,
    phrase: { seq: said.seq, kind: 'agent', text: said.text, src_lang: said.lang, announced: null, created_at: new Date().toISOString() },
  });
  await tx.query(prepared(`SELECT pg_notify($1, $2)`, [CALLS_CHANNEL, notice]));
}
