import { z } from 'zod';

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
//   translations (sessions/translations.ts), as every reader does.
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
  z.object({ type: z.literal('say'), call: z.string(), utterance: z.string(), livemode: z.boolean(), phrase: Phrase }),
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
