import type { Services } from '../services.ts';
import { prepared, type Client, type Queryable } from '../db/pool.ts';
import { disclosureOfRecord } from '../i18n/disclosure.ts';
import { CALL_AGENT_NAME } from './calls.ts';

// What any call's line says, in pieces (call-line.ts speaks them): a phrase
// split at its first sentence, so the line starts speaking once that much is
// synthesized; the engines' quiet padding trimmed where the parts join; and
// the AI disclosure as the callee hears it.

/** A call's voice_id and its owner. */
export type CallVoice = { id: string; orgId: string; livemode: boolean };

/** A phrase as the line speaks it: its first sentence, then the rest (one part when it has one sentence). */
export function partsOf(text: string): string[] {
  const m = /^(.+?[.!?…。？！])\s+(\S.*)$/su.exec(text.trim());
  return m ? [m[1]!, m[2]!] : [text];
}

/** Samples louder than this are speech; the engines pad what they say with quieter ones. */
const QUIET = 500;

/**
 * The speech without the engine's quiet padding at its start and/or end, keeping a little of it
 * (80 ms before, 120 ms after: two parts joined leave a 200 ms pause, as between sentences).
 */
export function trimQuiet(pcm: Int16Array, o: { start?: boolean; end?: boolean }, rate = 8000): Int16Array {
  let from = 0;
  let to = pcm.length;
  if (o.start) {
    const first = pcm.findIndex((x) => Math.abs(x) > QUIET);
    if (first > 0) from = Math.max(0, first - Math.round(rate * 0.08));
  }
  if (o.end) {
    const last = pcm.findLastIndex((x) => Math.abs(x) > QUIET);
    if (last >= 0) to = Math.min(pcm.length, last + 1 + Math.round(rate * 0.12));
  }
  return from === 0 && to === pcm.length ? pcm : pcm.subarray(from, to);
}

/**
 * The disclosure as the callee hears it: its fixed wording in their language; else the English
 * wording translated by the engines, when one covers the pair; else the English wording, in English.
 */
export async function disclosureOnLine(s: Services, lang: string): Promise<{ text: string; lang: string }> {
  const kept = disclosureOfRecord(CALL_AGENT_NAME, lang);
  if (kept.lang === lang) return kept;
  const t = s.translation?.chain.covers(kept.lang, lang) ? (await s.translation.chain.translate(kept.text, kept.lang, [lang]))[lang] : null;
  return t ? { text: t.text, lang } : kept;
}

/** The id of a call's agent session (a call has one), whose says the line reports the progress of; null: none. */
export async function sessionOfCall(tx: Client, callId: string): Promise<string | null> {
  const { rows } = await tx.query<{ id: string }>(prepared(`SELECT id FROM agent_sessions WHERE call_id = $1 LIMIT 1`, [callId]));
  return rows[0]?.id ?? null;
}

/** A phrase's text when the say's notice could not carry it (too long for one): read from the call's log. */
export async function phraseText(db: Queryable, callId: string, seq: number): Promise<string | null> {
  const { rows } = await db.query<{ text: string | null }>(prepared(
    `SELECT text FROM room_segments WHERE room_id = $1 AND seq = $2`, [callId, seq]));
  return rows[0]?.text ?? null;
}
