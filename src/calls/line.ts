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
import { DatabaseBack, whenDatabaseBack } from './outage.ts';

// The line of each answered call whose dialog this process's gateway holds:
// what is said on it (the AI disclosure first, then the agent's says, in the
// callee's language, synthesized and played in the order asked for), and
// what is heard on it (the far end's utterances, read by the recognizer, and
// its DTMF digits, published as phrases of the call's log in the order heard).

type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

export type Line = {
  /**
   * The call is being dialed: its disclosure is made ready (worded in the callee's language and
   * spoken into the synthesizer's cache), so that at the pick-up it only has to be played.
   */
  prepare(callId: string, remoteLang: string, voice?: CallVoice): void;
  /**
   * The far end picked up (a 2xx, before answering-machine detection has decided): the disclosure
   * prepared for the call starts on the line at once, while detection listens (as asynchronous AMD
   * does), so a person who picks up and says nothing hears it within a tick or two, not after the
   * detector's wait. Nothing for a call not prepared here.
   */
  pickedUp(callId: string): void;
  /**
   * The call was answered by a person and its dialog is here: the disclosure goes first on the line
   * (unless it already started at the pick-up), and what is heard is published.
   * `voice`: the call's voice_id (and its owner), spoken with when it is a ready cloned voice.
   */
  answered(callId: string, remoteLang: string, voice?: CallVoice): void;
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
/** A phrase as the line speaks it: its first sentence, then the rest (one part when it has one sentence). */
export function partsOf(text: string): string[] {
  const m = /^(.+?[.!?…。？！])\s+(\S.*)$/su.exec(text.trim());
  return m ? [m[1]!, m[2]!] : [text];
}

/** How long a call's next events (its hangup) wait for the recognition of a phrase heard before them. */
const HEARD_IN_ORDER_MS = 5_000;

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

/** A call's voice_id and its owner. */
export type CallVoice = { id: string; orgId: string; livemode: boolean };

export type LineOptions = {
  live?: (callId: string) => boolean;
  /**
   * Where a heard phrase is published: the call's own chain of events
   * (dialer.ts), so that it is written after the answer and before the
   * hangup SIP reported around it, even when they all wait for the database.
   * Without it, a chain of the line's own.
   */
  queue?: (callId: string, task: () => Promise<void>, what: string) => void;
  /** Wakes the publishing waiting for the database (outage.ts). */
  back?: DatabaseBack;
  /** Aborted at stop: publishing still waiting for the database gives up. */
  signal?: AbortSignal;
};

export function openLine(s: Services, gw: Gateway, log: Log, o: LineOptions = {}): Line {
  const { signaling, speech, media } = gw;
  const recognizerOf = (callId: string) => (o.live?.(callId) && s.recognizer ? s.recognizer : gw.recognizer);
  /** Calls answered whose dialog is here, with the callee's language: what is heard on their line goes to their session. */
  const talking = new Map<string, { lang: string }>();
  /** Calls whose disclosure was started on the line. */
  const disclosed = new Set<string>();
  /** The voice each call speaks with (looked up once per call, only for a call with a voice_id: one without costs no statement). */
  const voices = new Map<string, Promise<string | undefined>>();
  /**
   * The voice the agent speaks with on the call: the call's voice when it is
   * a ready cloned voice the engines can speak (voices/cloning.ts), read once
   * per call; else the engine's own voice for the language.
   */
  const voiceOf = (callId: string): Promise<string | undefined> => voices.get(callId) ?? Promise.resolve(undefined);
  const keepVoice = (callId: string, voice: CallVoice | undefined) => {
    if (!voice || voices.has(callId)) return;
    voices.set(callId, speechVoice(s.pool, { orgId: voice.orgId, livemode: voice.livemode }, voice.id).catch((err) => {
      log.warn({ err: String(err), callId }, 'the call\'s voice could not be read: the engine\'s own voice speaks');
      return undefined;
    }));
  };
  /** Each call's disclosure as the callee hears it, worded (and spoken into the cache) while the call rings. */
  const wordings = new Map<string, Promise<{ text: string; lang: string }>>();
  const wordingOf = (callId: string, lang: string) => {
    let w = wordings.get(callId);
    if (!w) {
      w = disclosureOnLine(lang);
      wordings.set(callId, w);
    }
    return w;
  };
  const disclose = (callId: string, wording: Promise<{ text: string; lang: string }>) => {
    if (disclosed.has(callId)) return;
    disclosed.add(callId);
    onLine(callId, 'disclosure', () => wording);
  };
  const unspoken = new Set<string>();
  /** Says `text` on the call's line in `lang`; a language no engine speaks stays text (logged once per language). */
  const speak = async (callId: string, utterance: string, text: string, lang: string) => {
    if (!speech.speaks(lang)) {
      if (!unspoken.has(lang)) log.warn({ lang, engine: speech.name }, 'no speech engine for this language: calls in it are silent on the line');
      unspoken.add(lang);
      return;
    }
    const voice = await voiceOf(callId);
    // Its first sentence, then the rest: the line starts speaking once the first is made, not the whole.
    const parts = partsOf(text);
    const made = parts.map((part) => speech.synthesize(part, lang, voice));
    for (const [i, p] of made.entries()) {
      const { pcm } = await p;
      // Joined as one phrase: the engine's quiet after the first part and before the next is cut to a sentence's pause.
      const joined = made.length === 1 ? pcm : trimQuiet(pcm, { start: i > 0, end: i < made.length - 1 });
      await signaling.play(callId, utterance, joined, { more: i < made.length - 1 });
    }
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
  // Recognized one after another per call (the recognizer keeps its place in
  // the conversation); published in the call's chain, at the place it was
  // heard, and, while the database is away, once it is back.
  const hearing = perKey((err, callId) => log.warn({ err: String(err), callId }, 'what was heard on the line was not published'));
  const back = o.back ?? new DatabaseBack();
  const publish = (callId: string, seg: Segment) => whenDatabaseBack(() => withTx(s.pool, (tx) => publishSegment(s, tx, seg)), back, {
    ...(o.signal ? { signal: o.signal } : {}),
    waiting: () => log.warn({ callId, kind: seg.kind }, 'the database is away: what was heard on the line waits to be published'),
    written: (waitedMs) => log.info({ callId, kind: seg.kind, waitedMs }, 'what was heard on the line was published once the database came back'),
  });
  const publishHeard = (callId: string, what: (lang: string) => Promise<Segment | null>) => {
    if (!o.queue) {
      hearing.run(callId, async () => {
        const line = talking.get(callId);
        const seg = await what(line?.lang ?? 'en');
        if (!seg || !talking.has(callId)) return;
        await publish(callId, seg);
      });
      return;
    }
    // Recognized even when it will not be published (the recognizer keeps its place in the
    // conversation); heard before the answer (the greeting answering-machine detection listens
    // to), it is not part of the conversation.
    const line = talking.get(callId);
    let made!: (seg: Segment | null) => void;
    const recognized = new Promise<Segment | null>((ok) => { made = ok; });
    hearing.run(callId, async () => {
      try {
        made(await what(line?.lang ?? 'en'));
      } catch (err) {
        made(null);
        throw err;
      }
    });
    if (!line) return;
    o.queue(callId, async () => {
      // The call's events behind this phrase (its hangup) wait for its recognition, up to
      // HEARD_IN_ORDER_MS; a slower one is published when it is ready, if the call still goes on.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((ok) => { timer = setTimeout(ok, HEARD_IN_ORDER_MS, 'late'); });
      const seg = await Promise.race([recognized, late]).finally(() => clearTimeout(timer));
      if (seg === 'late') {
        hearing.run(callId, async () => {
          const r = await recognized;
          if (r && talking.has(callId)) await publish(callId, r);
        });
        return;
      }
      if (!seg || !talking.has(callId)) return;
      await publish(callId, seg);
    }, 'heard');
  };
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
    prepare(callId, lang, voice) {
      keepVoice(callId, voice);
      void wordingOf(callId, lang).then(async (w) => {
        if (!speech.speaks(w.lang)) return;
        const voice = await voiceOf(callId);
        await Promise.all(partsOf(w.text).map((part) => speech.synthesize(part, w.lang, voice)));
      }).catch((err) => log.warn({ err: String(err), callId }, 'the disclosure could not be made ready; it is made at the pick-up'));
    },
    pickedUp(callId) {
      const wording = wordings.get(callId);
      if (wording) disclose(callId, wording);
    },
    answered(callId, lang, voice) {
      keepVoice(callId, voice);
      talking.set(callId, { lang });
      disclose(callId, wordingOf(callId, lang));
    },
    ended(callId) {
      talking.delete(callId);
      disclosed.delete(callId);
      voices.delete(callId);
      wordings.delete(callId);
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
