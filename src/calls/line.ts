import { speechVoice } from '../voices/cloning.ts';
import { prepared, withTx } from '../db/pool.ts';
import type { Services } from '../services.ts';
import { phraseIn, type Phrase } from '../sessions/translations.ts';
import { publishSegment, type Segment } from '../sessions/publish.ts';
import type { Gateway } from '../../gateway/gateway.ts';
import { disclosureOfRecord } from './disclosure.ts';
import { CALLEE_NAME, CALL_AGENT_NAME } from './calls.ts';
import type { LineNotice } from './channel.ts';
import { perKey } from './per-key.ts';

// The line of each answered call whose dialog this process's gateway holds:
// what is said on it (the AI disclosure first, then the agent's says, in the
// callee's language, synthesized and played in the order asked for), and
// what is heard on it (the far end's utterances, read by the recognizer, and
// its DTMF digits, published as phrases of the call's log in the order heard).

type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

export type Line = {
  /**
   * The call was answered and its dialog is here: the disclosure goes first on the line, and what is heard is published.
   * `voice`: the call's voice_id (and its owner), spoken with when it is a ready cloned voice.
   */
  answered(callId: string, remoteLang: string, voice?: { id: string; orgId: string; livemode: boolean }): void;
  /** The call ended: nothing more is heard. */
  ended(callId: string): void;
  /** An agent's say on the call's session (channel.ts), spoken to the callee. */
  say(n: Extract<LineNotice, { type: 'say' }>): void;
  /** The calls being heard now. */
  talking(): string[];
  /** What is still being said or published (to wait for at stop). */
  pending(): Array<Promise<void>>;
};

/**
 * `live` says which calls are live (through a trunk): their far end is a real
 * person, heard by the service's recognizers (TOLK_RECOGNIZE), never by the
 * built-in callee's, which knows only its own words.
 */
export function openLine(s: Services, gw: Gateway, log: Log, o: { live?: (callId: string) => boolean } = {}): Line {
  const { signaling, speech, media } = gw;
  const recognizerOf = (callId: string) => (o.live?.(callId) && s.recognizer ? s.recognizer : gw.recognizer);
  /** Calls answered whose dialog is here, with the callee's language: what is heard on their line goes to their session. */
  const talking = new Map<string, { lang: string; voice?: Promise<string | undefined> }>();
  /**
   * The voice the agent speaks with on the call: the call's voice when it is
   * a ready cloned voice the engines can speak (voices/cloning.ts), read once
   * per call; else the engine's own voice for the language.
   */
  const voiceOf = (callId: string): Promise<string | undefined> => talking.get(callId)?.voice ?? Promise.resolve(undefined);
  const unspoken = new Set<string>();
  /** Says `text` on the call's line in `lang`; a language no engine speaks stays text (logged once per language). */
  const speak = async (callId: string, utterance: string, text: string, lang: string) => {
    if (!speech.speaks(lang)) {
      if (!unspoken.has(lang)) log.warn({ lang, engine: speech.name }, 'no speech engine for this language: calls in it are silent on the line');
      unspoken.add(lang);
      return;
    }
    const voice = await voiceOf(callId);
    const { pcm } = await speech.synthesize(text, lang, voice);
    await signaling.play(callId, utterance, pcm);
  };
  // What is said on a line is queued in the order it was asked for (the
  // disclosure first): one chain per call, each link synthesizing its phrase
  // and queueing it on the stream, where the plane plays them one after another.
  const lines = perKey((err, callId, utterance) => log.warn({ err: String(err), callId, utterance }, 'a phrase could not be spoken on the line'));
  const onLine = (callId: string, utterance: string, what: () => Promise<{ text: string; lang: string } | null>) =>
    lines.run(callId, async () => {
      if (!signaling.hasMedia(callId)) return;
      const w = await what();
      if (w && signaling.active().includes(callId)) await speak(callId, utterance, w.text, w.lang);
    }, utterance);

  /**
   * The disclosure as the callee hears it: its fixed wording in their language; else the English
   * wording translated by the engines, when one covers the pair; else the English wording, in English.
   */
  const disclosureOnLine = async (lang: string): Promise<{ text: string; lang: string }> => {
    const kept = disclosureOfRecord(CALL_AGENT_NAME, lang);
    if (kept.lang === lang) return kept;
    const t = s.translation?.chain.covers(kept.lang, lang) ? (await s.translation.chain.translate(kept.text, kept.lang, [lang]))[lang] : null;
    return t ? { text: t.text, lang } : kept;
  };

  /** The phrase's text when the notice could not carry it (too long for one): read from the call's log. */
  const textOf = async (callId: string, seq: number): Promise<string | null> => {
    const { rows } = await s.pool.query<{ text: string | null }>(prepared(
      `SELECT text FROM room_segments WHERE room_id = $1 AND seq = $2`, [callId, seq]));
    return rows[0]?.text ?? null;
  };

  // What the far end says on an answered call becomes a phrase of its log
  // (segment.final on its session), in the order heard; a DTMF digit an
  // event of its own. Heard before the call is answered (the greeting that
  // answering-machine detection listens to) is not part of the conversation.
  const hearing = perKey((err, callId) => log.warn({ err: String(err), callId }, 'what was heard on the line was not published'));
  const publishHeard = (callId: string, what: (lang: string) => Promise<Segment | null>) =>
    hearing.run(callId, async () => {
      const line = talking.get(callId);
      const seg = await what(line?.lang ?? 'en');
      if (!seg || !talking.has(callId)) return;
      await withTx(s.pool, (tx) => publishSegment(s, tx, seg));
    });
  media.on('heard', (callId, u) => {
    if (!signaling.active().includes(callId)) return;
    publishHeard(callId, async (lang) => {
      // Recognized even when it will not be published: the recognizer keeps its place in the conversation.
      const { text } = await recognizerOf(callId).recognize({ key: callId, pcm: u.pcm, audioMs: u.audioMs, lang, at: u.at });
      return { roomId: callId, kind: 'person', speaker: CALLEE_NAME, participantId: 'callee', srcLang: lang, text, audioMs: u.audioMs, metered: false };
    });
  });
  media.on('dtmf', (callId, digit, durationMs) => {
    if (!signaling.active().includes(callId)) return;
    publishHeard(callId, async (lang) => ({
      roomId: callId, kind: 'dtmf', speaker: CALLEE_NAME, participantId: 'callee', srcLang: lang, text: digit, audioMs: durationMs, metered: false,
    }));
  });

  return {
    answered(callId, lang, voice) {
      // Looked up once per call, only for a call with a voice: a call without one costs no statement.
      const lookup = voice
        ? speechVoice(s.pool, { orgId: voice.orgId, livemode: voice.livemode }, voice.id).catch((err) => {
          log.warn({ err: String(err), callId }, 'the call\'s voice could not be read: the engine\'s own voice speaks');
          return undefined;
        })
        : undefined;
      talking.set(callId, { lang, ...(lookup ? { voice: lookup } : {}) });
      onLine(callId, 'disclosure', () => disclosureOnLine(lang));
    },
    ended(callId) {
      talking.delete(callId);
    },
    say(n) {
      const line = talking.get(n.call);
      if (!line || !signaling.active().includes(n.call)) return;
      onLine(n.call, n.utterance, async () => {
        const text = n.phrase.text ?? (await textOf(n.call, n.phrase.seq));
        if (text === null) return null;
        const p: Phrase = { ...n.phrase, text };
        // The say in the callee's language, translated once (the session's listeners read the same); what no
        // engine could translate is spoken as it was written, in its own language: never a marked form aloud.
        const t = await phraseIn(s, n.call, n.livemode, p, line.lang);
        return t.untranslated || t.text === null ? { text, lang: p.src_lang } : { text: t.text, lang: line.lang };
      });
    },
    talking: () => [...talking.keys()],
    pending: () => [...lines.pending(), ...hearing.pending()],
  };
}
