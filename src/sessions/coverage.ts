import { ApiError } from '../errors.ts';
import { baseLang } from '../engines/translate/engine.ts';
import type { Services } from '../services.ts';

// Whether a live agent session can join a room (operator.md, SIP trunks and
// live mode: "Live agent sessions work when the engines cover the room's
// languages"). What the agent says (speak_lang) goes to every language of the
// room, and what the room says comes to the agent in its hear_lang: each of
// those pairs needs an engine of TOLK_TRANSLATE, directly or through a pivot
// language (engines/translate/chain.ts). A room that declares no languages
// is taken to speak the session's own two. Test sessions need none of this:
// the simulator translates what no engine covers, marked.

/** A directed language pair, `en→de`. */
export type Pair = { from: string; to: string };

/** The pairs a session speaking `speak` and hearing `hear` needs in a room of `roomLangs`, each once (same-language ones need nothing). */
export function neededPairs(speak: string, hear: string, roomLangs: readonly string[]): Pair[] {
  const langs = roomLangs.length > 0 ? roomLangs : [speak, hear];
  const out = new Map<string, Pair>();
  const add = (from: string, to: string) => {
    if (baseLang(from) === baseLang(to)) return;
    const k = `${baseLang(from)}→${baseLang(to)}`;
    if (!out.has(k)) out.set(k, { from, to });
  };
  for (const l of langs) add(speak, l);
  for (const l of langs) add(l, hear);
  return [...out.values()];
}

/** The needed pairs no configured engine translates now. */
export function uncoveredPairs(s: Pick<Services, 'translation'>, speak: string, hear: string, roomLangs: readonly string[]): Pair[] {
  const chain = s.translation?.chain;
  return neededPairs(speak, hear, roomLangs).filter((p) => !chain?.covers(p.from, p.to));
}

/**
 * 501 not_available_yet naming the pairs no engine covers, and what the
 * operator would configure, when a live session could not be translated in
 * this room.
 */
export function assertLiveCoverage(s: Pick<Services, 'translation'>, speak: string, hear: string, roomLangs: readonly string[]): void {
  const missing = uncoveredPairs(s, speak, hear, roomLangs);
  if (missing.length === 0) return;
  const names = missing.map((p) => `${p.from}→${p.to}`).join(', ');
  const engines = s.translation?.engines.map((e) => e.name).join(', ') || 'none';
  throw new ApiError(
    'not_available_yet',
    `AI agent sessions in live mode need a translation engine for every pair between the session's languages and the room's; ` +
      `no engine of this server (${engines}) translates ${names}. The operator adds one that does to TOLK_TRANSLATE ` +
      `(an Apertium pair, LibreTranslate, DeepL or an OpenAI-compatible server; \`npx tolk engines\` prints what each covers). ` +
      `With a test key the session runs on the simulator.`,
  );
}
