import { prepared, type Queryable } from '../db/pool.ts';
import { baseLang } from '../engines/translate/engine.ts';
import type { Translated, TranslationChain } from '../engines/translate/chain.ts';
import { LOG_CHANNEL, type Services } from '../services.ts';
import { announcement } from '../engines/sim/phrasebook.ts';
import { fixedDisclosure } from '../i18n/disclosure.ts';
import { chainFor, untranslatedText } from '../engines/translate/index.ts';
import { isSignal } from './signals.ts';

// A phrase of a room's log in the languages its listeners hear (session
// events, the room page, transcripts, what a call speaks on its line).
//
// Translated once: the first reader that needs a phrase in a language
// claims it (a `pending` row of room_translations, inserted once whatever
// the number of readers and processes), asks the translation engines
// (engines/translate; never inside a database transaction), and stores the
// text; every other reader of that language, on every process, reads the
// stored text, woken by the room's notification. A claim whose process died
// is taken over once it is older than the engines' time limit.
//
// What needs no engine is made here: the same language (the text); an
// announcement or a call's AI disclosure (their own wording per language);
// in test mode, the robots' phrasebook lines (the simulator's real
// translations). A pair no engine covers, or one every engine failed, is
// passed on untranslated and flagged: in test mode in the simulator's marked
// form (`[en→ja] …`), in live mode as the original text, never marked
// (operator.md, Engines).

export type Phrase = {
  seq: number;
  kind: string;
  text: string | null;
  src_lang: string;
  announced: string | null;
  created_at: Date | string;
};

/** A phrase in one language: its text, and whether it is not really in that language (no engine could). */
export type InLang = { text: string | null; untranslated: boolean };

export type Rendered = {
  /** The phrase in lang; undefined while another reader is translating it (wait for the room's notification). */
  get(seq: number, lang: string): InLang | undefined;
};

/** How long a reader waits for a translation another one is making before passing the phrase on untranslated. */
export function translationWaitMs(s: Services): number {
  return s.translation?.waitMs ?? 0;
}

function key(seq: number, lang: string): string {
  return `${seq}\n${lang}`;
}

/** A phrase no engine could translate into lang: marked in test mode, the original in live mode. */
function untranslated(text: string, from: string, lang: string, livemode: boolean): InLang {
  return { text: untranslatedText(text, from, lang, livemode), untranslated: true };
}

/**
 * A phrase in lang when no engine is needed for it (null: one is): no text,
 * DTMF or a signal; an announcement or disclosure with its own wording in lang; the
 * same language; a robot's line in test mode; a pair no engine covers
 * (untranslated).
 */
function withoutEngine(p: Phrase, lang: string, livemode: boolean, chain: TranslationChain | undefined): InLang | null {
  // Nor is a signal of the log (signals.ts: a partial is delivered as it was heard).
  if (p.text === null || p.kind === 'dtmf' || isSignal(p.kind)) return { text: p.text, untranslated: false };
  if (p.announced !== null) {
    // A call's disclosure has a fixed wording in some languages; in the others it is translated like any phrase.
    const fixed = p.kind === 'disclosure' ? fixedDisclosure(p.announced, lang) : announcement(p.announced, lang);
    if (fixed !== null) return { text: fixed, untranslated: false };
  }
  if (baseLang(p.src_lang) === baseLang(lang)) return { text: p.text, untranslated: false };
  // What an engine has at hand (test mode: the simulator's phrasebook lines) is neither claimed nor stored.
  const instant = chain?.instant(p.text, p.src_lang, lang) ?? null;
  if (instant !== null) return { text: instant.text, untranslated: false };
  if (!chain?.covers(p.src_lang, lang)) return untranslated(p.text, p.src_lang, lang, livemode);
  return null;
}

/**
 * The languages a room's (or a call's log's) listeners hear: its open
 * sessions' (but `exclude`'s) and the people's present on its page. The
 * sessions' are read by a loose index scan (one index probe per language,
 * not one row per session), so the price does not grow with the number of
 * listeners; the people present are few (publicLimits.participantsPerRoom).
 */
export async function hearLangs(q: Queryable, roomId: string, exclude = ''): Promise<string[]> {
  const { rows } = await q.query<{ lang: string }>(prepared(
    `WITH RECURSIVE l AS (
       (SELECT hear_lang FROM agent_sessions WHERE log_id = $1 AND status <> 'ended' AND id <> $2 ORDER BY hear_lang LIMIT 1)
       UNION ALL
       SELECT (SELECT a.hear_lang FROM agent_sessions a
                WHERE a.log_id = $1 AND a.status <> 'ended' AND a.id <> $2 AND a.hear_lang > l.hear_lang
                ORDER BY a.hear_lang LIMIT 1)
         FROM l WHERE l.hear_lang IS NOT NULL
     )
     SELECT hear_lang AS lang FROM l WHERE hear_lang IS NOT NULL
     UNION
     SELECT DISTINCT hear_lang FROM room_participants WHERE room_id = $1 AND left_at IS NULL`,
    [roomId, exclude],
  ));
  return rows.map((r) => r.lang);
}

/**
 * The phrases in each of langs. Translations that exist are read; missing
 * ones are claimed and made now (awaited: the engines' time limit bounds
 * it); ones another reader is making are left undefined, unless the phrase
 * is older than translationWaitMs (then untranslated: nothing waits for ever).
 */
export async function renderPhrases(s: Services, roomId: string, livemode: boolean, phrases: readonly Phrase[], langs: readonly string[]): Promise<Rendered> {
  const out = new Map<string, InLang>();
  /** Phrases to translate through the engines, by seq, with the languages. */
  const needed = new Map<number, { p: Phrase & { text: string }; langs: string[] }>();
  const chain = chainFor(s.translation, livemode);
  for (const p of phrases) {
    for (const lang of langs) {
      const k = key(p.seq, lang);
      if (out.has(k)) continue;
      const ready = withoutEngine(p, lang, livemode, chain);
      if (ready !== null) { out.set(k, ready); continue; }
      const n = needed.get(p.seq) ?? { p: p as Phrase & { text: string }, langs: [] };
      n.langs.push(lang);
      needed.set(p.seq, n);
    }
  }
  if (needed.size === 0) return { get: (seq, lang) => out.get(key(seq, lang)) };

  const seqs = [...needed.keys()];
  const wanted = [...new Set([...needed.values()].flatMap((n) => n.langs))];
  const staleMs = translationWaitMs(s);
  const { rows } = await s.pool.query<{ seq: string; lang: string; status: string; text: string | null; stale: boolean }>(prepared(
    `SELECT seq, lang, status, text, claimed_at < now() - make_interval(secs => $4) AS stale
       FROM room_translations WHERE room_id = $1 AND seq = ANY($2::bigint[]) AND lang = ANY($3::text[])`,
    [roomId, seqs, wanted, staleMs / 1000],
  ));
  const found = new Map(rows.map((r) => [key(Number(r.seq), r.lang), r]));
  const claim: Array<{ seq: number; lang: string }> = [];
  const retake: Array<{ seq: number; lang: string }> = [];
  for (const [seq, n] of needed) {
    for (const lang of n.langs) {
      const r = found.get(key(seq, lang));
      if (!r) claim.push({ seq, lang });
      else if (r.status === 'done') out.set(key(seq, lang), { text: r.text, untranslated: false });
      else if (r.status === 'untranslated') out.set(key(seq, lang), untranslated(n.p.text, n.p.src_lang, lang, livemode));
      else if (r.stale) retake.push({ seq, lang });
    }
  }
  // A phrase nobody has claimed yet is claimed in every language the room's
  // listeners hear, not only this reader's: its translations are made
  // together, one engine request for all of them where the engine takes
  // several targets (a language model: its answers are then checked against
  // each other, openai.ts), and the other languages' readers find them made.
  if (claim.length > 0) {
    const others = await hearLangs(s.pool, roomId);
    for (const seq of new Set(claim.map((c) => c.seq))) {
      const n = needed.get(seq)!;
      for (const lang of others) {
        if (n.langs.includes(lang) || withoutEngine(n.p, lang, livemode, chain) !== null) continue;
        claim.push({ seq, lang });
      }
    }
  }
  // Claims: the rows this reader inserted (or took over from a dead process) are its to make.
  const mine: Array<{ seq: number; lang: string }> = [];
  if (claim.length > 0) {
    const { rows: got } = await s.pool.query<{ seq: string; lang: string }>(prepared(
      `INSERT INTO room_translations (room_id, seq, lang, status)
       SELECT $1, seq, lang, 'pending' FROM unnest($2::bigint[], $3::text[]) AS c(seq, lang)
       ON CONFLICT DO NOTHING RETURNING seq, lang`,
      [roomId, claim.map((c) => c.seq), claim.map((c) => c.lang)],
    ));
    for (const g of got) mine.push({ seq: Number(g.seq), lang: g.lang });
  }
  if (retake.length > 0) {
    const { rows: got } = await s.pool.query<{ seq: string; lang: string }>(prepared(
      `UPDATE room_translations t SET claimed_at = now()
         FROM unnest($2::bigint[], $3::text[]) AS c(seq, lang)
        WHERE t.room_id = $1 AND t.seq = c.seq AND t.lang = c.lang AND t.status = 'pending'
          AND t.claimed_at < now() - make_interval(secs => $4)
       RETURNING t.seq, t.lang`,
      [roomId, retake.map((c) => c.seq), retake.map((c) => c.lang), staleMs / 1000],
    ));
    for (const g of got) mine.push({ seq: Number(g.seq), lang: g.lang });
  }
  if (mine.length > 0) {
    const bySeq = new Map<number, string[]>();
    for (const m of mine) bySeq.set(m.seq, [...(bySeq.get(m.seq) ?? []), m.lang]);
    const made = await Promise.all([...bySeq].map(([seq, ls]) => makeTranslations(s, roomId, livemode, needed.get(seq)!.p, ls)));
    for (const r of made.flat()) {
      const p = needed.get(r.seq)!.p;
      out.set(key(r.seq, r.lang), r.text === null ? untranslated(p.text, p.src_lang, r.lang, livemode) : { text: r.text, untranslated: false });
    }
  }
  // Made by another reader and not there yet: wait for it, up to translationWaitMs after the phrase was said.
  const cutoff = Date.now() - staleMs;
  return {
    get: (seq, lang) => {
      const v = out.get(key(seq, lang));
      if (v !== undefined) return v;
      const n = needed.get(seq);
      if (n && new Date(n.p.created_at).getTime() < cutoff) return untranslated(n.p.text, n.p.src_lang, lang, livemode);
      return undefined;
    },
  };
}

type Made = { seq: number; lang: string; text: string | null; engine: string | null };

/**
 * Makes the translations of p this reader claimed, and stores them (waking
 * the room's readers). A language reached through a pivot (en→es→pt) is
 * translated from the pivot language's stored translation, made or read
 * through the same claims, so a phrase costs one engine request per language
 * however its listeners are spread over readers and processes.
 */
async function makeTranslations(s: Services, roomId: string, livemode: boolean, p: Phrase & { text: string }, langs: string[]): Promise<Made[]> {
  const t = s.translation!;
  const direct: string[] = [];
  const pivoted = new Map<string, string[]>();
  for (const lang of langs) {
    const via = t.chain.route(p.src_lang, lang)?.via ?? null;
    if (via === null) direct.push(lang);
    else pivoted.set(via, [...(pivoted.get(via) ?? []), lang]);
  }
  const made: Made[] = [];
  if (direct.length > 0) {
    const texts = await t.chain.translate(p.text, p.src_lang, direct);
    for (const lang of direct) made.push({ seq: p.seq, lang, text: texts[lang]?.text ?? null, engine: texts[lang]?.engine ?? null });
  }
  // Stored while the languages reached through them are being made (their listeners need not wait for those).
  const stored = made.length > 0 ? store(s, roomId, made) : Promise.resolve();
  // Awaited below; until then a failure must not count as unhandled.
  stored.catch(() => {});
  const second: Made[] = [];
  await Promise.all([...pivoted].map(async ([via, group]) => {
    const mid = made.find((m) => m.lang === via) ?? null;
    const viaText = mid ? (mid.text === null ? null : mid.text) : await phraseIn(s, roomId, livemode, p, via).then((r) => (r.untranslated ? null : r.text));
    const texts: Record<string, Translated | null> = viaText === null ? {} : await t.chain.translate(viaText, via, group);
    for (const lang of group) second.push({ seq: p.seq, lang, text: texts[lang]?.text ?? null, engine: texts[lang]?.engine ?? null });
  }));
  await stored;
  if (second.length > 0) await store(s, roomId, second);
  return [...made, ...second];
}

/** Stores translations made (or that no engine could make) and wakes the room's readers on every process. */
async function store(s: Services, roomId: string, results: Made[]): Promise<void> {
  await s.pool.query(prepared(
    `WITH r AS (
       UPDATE room_translations t SET status = CASE WHEN r.text IS NULL THEN 'untranslated' ELSE 'done' END,
              text = r.text, engine = r.engine, translated_at = now()
         FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS r(seq, lang, text, engine)
        WHERE t.room_id = $1 AND t.seq = r.seq AND t.lang = r.lang
        RETURNING 1)
     SELECT pg_notify($6, $1) FROM (SELECT 1 FROM r LIMIT 1) x`,
    [roomId, results.map((r) => r.seq), results.map((r) => r.lang), results.map((r) => r.text), results.map((r) => r.engine), LOG_CHANNEL],
  ));
}

/**
 * One phrase in one language, waiting (up to translationWaitMs) when another
 * reader is making it: for what cannot be held back, a call's line. It waits
 * as every reader of a log does, woken by the log's notification when the
 * translation is stored (Services.logBus); a process without one looks again
 * once the wait is over.
 */
export async function phraseIn(s: Services, roomId: string, livemode: boolean, p: Phrase, lang: string): Promise<InLang> {
  const deadline = Date.now() + translationWaitMs(s) + 1000;
  for (;;) {
    // Taken before the read: a translation stored after it wakes the wait at once.
    const mark = s.logBus?.mark() ?? 0;
    const got = (await renderPhrases(s, roomId, livemode, [p], [lang])).get(p.seq, lang);
    if (got !== undefined) return got;
    const left = deadline - Date.now();
    if (left <= 0) return untranslated(p.text ?? '', p.src_lang, lang, livemode);
    await (s.logBus ? s.logBus.waitFor(roomId, left, mark) : new Promise((r) => setTimeout(r, left)));
  }
}

/**
 * Phrases of one log in one language, waiting (up to translationWaitMs) for
 * those another reader is making: a transcript is read whole. It waits as
 * phraseIn does, woken by the log's notification (Services.logBus).
 */
export async function renderAll(s: Services, roomId: string, livemode: boolean, phrases: readonly Phrase[], lang: string): Promise<(seq: number) => InLang> {
  const deadline = Date.now() + translationWaitMs(s) + 1000;
  const done = new Map<number, InLang>();
  let left = [...phrases];
  while (left.length > 0) {
    // Taken before the read: a translation stored after it wakes the wait at once.
    const mark = s.logBus?.mark() ?? 0;
    const r = await renderPhrases(s, roomId, livemode, left, [lang]);
    for (const p of left) {
      const v = r.get(p.seq, lang);
      if (v !== undefined) done.set(p.seq, v);
    }
    left = left.filter((p) => !done.has(p.seq));
    if (left.length === 0) break;
    const wait = deadline - Date.now();
    if (wait <= 0) {
      for (const p of left) done.set(p.seq, untranslated(p.text ?? '', p.src_lang, lang, livemode));
      break;
    }
    // A process without the bus (none serves readers) looks again every 100 ms.
    await (s.logBus ? s.logBus.waitFor(roomId, wait, mark) : new Promise((res) => setTimeout(res, Math.min(100, wait))));
  }
  return (seq) => done.get(seq) ?? { text: null, untranslated: true };
}
