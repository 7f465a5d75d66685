import type { Queryable } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { ApiError } from '../errors.ts';
import type { Caller, Services } from '../services.ts';
import type { Config } from '../config.ts';
import { makeSynthesizer } from '../engines/speech/index.ts';
import type { SpeechSynthesizer } from '../engines/speech/synthesizer.ts';
import { baseLang } from '../engines/translate/engine.ts';

// What a live call needs (operator.md, SIP trunks and live mode): the trunk
// of its caller id's number, and engines that cover the conversation
// (translation between agent_lang and remote_lang both ways, directly or
// through a pivot language, a synthesizer
// that speaks remote_lang, a recognizer that hears it). Without either, the
// live key gets 501 not_available_yet as api.md says, with what is missing.

/** The synthesizers of TOLK_SPEECH_ENGINES, made once per configuration to ask what they speak (their threads start only when they speak). */
const synthesizers = new WeakMap<Config, SpeechSynthesizer[]>();

function speaks(config: Config, lang: string): boolean {
  let list = synthesizers.get(config);
  if (!list) {
    list = [];
    for (const spec of config.speechEngines) {
      try {
        list.push(makeSynthesizer(spec, config));
      } catch {
        // An engine that cannot be made (its key missing) speaks nothing.
      }
    }
    synthesizers.set(config, list);
  }
  return list.some((e) => e.speaks(lang));
}

/** What the configured engines lack for a call between these languages (empty: nothing). */
export function missingEngines(s: Services, agentLang: string, remoteLang: string): string[] {
  // Both ways between the agent and the callee (nothing to translate within one language), directly or through a pivot.
  const pairs = baseLang(agentLang) === baseLang(remoteLang) ? [] : [{ from: agentLang, to: remoteLang }, { from: remoteLang, to: agentLang }];
  const missing = pairs.filter((p) => !s.translation?.chain.covers(p.from, p.to)).map((p) => `translation ${p.from}→${p.to} (TOLK_TRANSLATE)`);
  if (!speaks(s.config, remoteLang)) missing.push(`speech synthesis in ${remoteLang} (TOLK_SPEECH_ENGINES)`);
  if (!s.recognizer?.hears(remoteLang)) missing.push(`speech recognition in ${remoteLang} (TOLK_RECOGNIZE)`);
  return missing;
}

/**
 * The trunk a live call from this number goes out through, or the 501 that
 * says why it cannot be placed: the number has no trunk of the
 * organization's, or the engines do not cover the conversation.
 */
export async function liveTrunk(s: Services, db: Queryable, cred: Caller, from: { id: string; e164: string }, agentLang: string, remoteLang: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(prepared(
    `SELECT t.id FROM phone_numbers n JOIN trunks t ON t.id = n.trunk_id AND t.org_id = n.org_id WHERE n.id = $1 AND n.org_id = $2`,
    [from.id, cred.orgId],
  ));
  const trunk = rows[0]?.id;
  if (!trunk) {
    throw new ApiError('not_available_yet',
      `Live calls from ${from.e164} are not available yet: the number has no SIP trunk (the operator connects one with tolk trunk add and tolk number add --trunk); test keys work on the simulated callee`);
  }
  const missing = missingEngines(s, agentLang, remoteLang);
  if (missing.length > 0) {
    throw new ApiError('not_available_yet',
      `Live calls between ${agentLang} and ${remoteLang} are not available yet on this service: no engine covers ${missing.join(', ')}; test keys work on the simulated callee`);
  }
  return trunk;
}
