import { prepared, withTx } from '../db/pool.ts';
import { now, type Caller, type Services } from '../services.ts';
import { spendVerdicts } from '../billing/limits.ts';
import { recordUsage } from '../billing/ledger.ts';
import { checkUsageThresholds, hasPeriodLimit } from '../billing/thresholds.ts';
import { renderPhrases, type Rendered } from './translations.ts';
import { ApiError, notFound } from '../errors.ts';
import { ID_PATTERN } from '../ids.ts';
import { sessionEnded } from './sessions.ts';
import { isSignal } from './signals.ts';

// Reads session events for many listeners at once, from the rooms' logs
// (publish.ts). A session's events are the entries of its room's log after
// the room's number when it joined (from_seq), up to the number when it ended
// (to_seq), less its own phrases; an event's id is the room's number, so the
// cursor is the last number read. Besides phrases the log holds signals
// (signals.ts: partials, a say's progress, speech activity), delivered to
// whom they concern, never translated nor billed. When a phrase reaches a room, every waiting
// listener wakes in the same instant: the reads queued in one turn of the
// event loop share one query, which fetches each (room, position) once
// however many listeners stand there, one spending check, and one metering
// transaction. Each phrase is read in each listener's language as
// translations.ts makes it (once, stored with the phrase); a phrase whose
// translation another process is still making is held back (with what
// follows it) until that translation is stored, which wakes the room's
// listeners, or until the time limit passes and it goes untranslated.

export const LISTEN_BATCH = 100;
const MAX_BATCH = 2000;

/** Locks the sessions to bill ($1 ids, $2 the number each is billed up to), moves their metered_seq, and leaves what each owes in d. */
const METER = `WITH l AS (
    SELECT s.id, s.log_id, s.metered_seq AS after, v.upto, s.org_id, s.livemode, s.credential_id
      FROM agent_sessions s JOIN unnest($1::text[], $2::bigint[]) AS v(id, upto) ON v.id = s.id
     WHERE s.metered_seq < v.upto
     ORDER BY s.id FOR UPDATE OF s
  ), d AS (
    SELECT l.id, l.upto, l.org_id, l.livemode, l.credential_id, coalesce((
      SELECT sum(g.listen_seconds) FROM room_segments g
       WHERE g.room_id = l.log_id AND g.seq > l.after AND g.seq <= l.upto
         AND NOT (g.kind = 'agent' AND g.session_id IS NOT DISTINCT FROM l.id)), 0) AS seconds
      FROM l
  ), u AS (
    UPDATE agent_sessions s SET metered_seq = d.upto, billed_seconds = s.billed_seconds + d.seconds FROM d WHERE s.id = d.id
  )`;

export type SessionEventOut = {
  id: number;
  type: string;
  speaker: string | null;
  src_lang: string | null;
  untrusted_content: { text: string | null; text_in_hear_lang: string | null };
  meta: Record<string, string | number | boolean>;
  created_at: string;
};
export type ReadResult = { events: SessionEventOut[]; cursor: number; status: string };
/** A read: the answer (shared by the listeners that get the same one: never modify it), and the session's log (to wait on when it is empty). */
export type Read = { out: ReadResult; logId: string };
type Built = { out: ReadResult; examined: number };

type Pending = { cred: Caller; sessionId: string; cursor: number; refuseEnded: boolean; resolve: (r: Read) => void; reject: (e: unknown) => void };

type Entry = {
  seq: number; kind: string; speaker: string | null; participant_id: string; session_id: string | null; src_lang: string | null;
  text: string | null; announced: string | null; audio_ms: number | null; created_at: string;
  utterance_id: string | null; segment_id: string | null; spoken_ms: number | null;
};
/** A phrase of the log (not a signal: signals.ts), which has a language. */
type PhraseEntry = Entry & { src_lang: string };
type Row = {
  i: number | null; log_id: string; after: string; status: string | null; billed_seconds: string | null; hear_lang: string | null;
  metered_seq: string | null; to_seq: string | null; entries: Entry[] | null;
};

export class EventReader {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly s: Services;

  constructor(s: Services) {
    this.s = s;
  }

  /**
   * The session's events after cursor; 404 when it is not a session of the
   * caller's organization and mode; with refuseEnded, 409 session_ended
   * (nothing read, nothing billed) when the session has ended.
   */
  read(cred: Caller, sessionId: string, cursor: number, refuseEnded = false): Promise<Read> {
    if (!ID_PATTERN.test(sessionId)) return Promise.reject(notFound('session', sessionId));
    return new Promise((resolve, reject) => {
      this.queue.push({ cred, sessionId, cursor, refuseEnded, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * The batches of one turn are read and metered side by side, and answered
   * together once all are done: the answers of one written while the others
   * are metered would take the processor the database needs for them.
   */
  private flush(): void {
    this.scheduled = false;
    const runs: Array<Promise<() => void>> = [];
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      runs.push(this.run(batch).catch((err) => () => { for (const p of batch) p.reject(err); }));
    }
    void Promise.all(runs).then((settles) => { for (const settle of settles) settle(); });
  }

  /** Reads and meters a batch; resolves with what settles its reads. */
  private async run(batch: Pending[]): Promise<() => void> {
    // Reads of one session from one position by one key (many polls of one
    // session woken together) are one read: one row of the query, one answer,
    // one spending verdict; `of` maps each read of the batch to its read.
    const reads: Pending[] = [];
    const of: number[] = [];
    const index = new Map<string, number>();
    for (const p of batch) {
      const k = `${p.sessionId}\n${p.cursor}\n${p.cred.id}\n${p.cred.orgId}\n${p.cred.livemode}`;
      let u = index.get(k);
      if (u === undefined) {
        index.set(k, (u = reads.length));
        reads.push(p);
      }
      of.push(u);
    }
    const { rows } = await this.s.pool.query<Row>(prepared(
      `WITH w AS (
         SELECT w.i::int AS i, s.log_id, s.status, s.billed_seconds, s.hear_lang, s.metered_seq, s.to_seq,
                greatest(w.cursor, s.from_seq) AS after
           FROM unnest($1::text[], $2::bigint[], $4::text[], $5::boolean[]) WITH ORDINALITY AS w(session_id, cursor, org_id, livemode, i)
           JOIN agent_sessions s ON s.id = w.session_id AND s.org_id = w.org_id AND s.livemode = w.livemode
       ), k AS (SELECT DISTINCT log_id, after FROM w)
       SELECT i, log_id, after, status, billed_seconds, hear_lang, metered_seq, to_seq, NULL::json AS entries FROM w
       UNION ALL
       SELECT NULL, k.log_id, k.after, NULL, NULL, NULL, NULL, NULL,
              (SELECT json_agg(g ORDER BY g.seq) FROM (
                 SELECT seq, kind, speaker, participant_id, session_id, src_lang, text, announced, audio_ms, created_at,
                        utterance_id, segment_id, spoken_ms
                   FROM room_segments WHERE room_id = k.log_id AND seq > k.after ORDER BY seq LIMIT $3) g)
         FROM k`,
      [reads.map((p) => p.sessionId), reads.map((p) => p.cursor), LISTEN_BATCH, reads.map((p) => p.cred.orgId), reads.map((p) => p.cred.livemode)],
    ));
    const logs = new Map<string, Entry[]>();
    for (const r of rows) if (r.i === null) logs.set(`${r.log_id}\n${r.after}`, r.entries ?? []);
    // Each log's phrases in the languages its readers hear: once per log for the whole batch.
    const perLog = new Map<string, { entries: Map<number, PhraseEntry>; langs: Set<string>; livemode: boolean }>();
    for (const r of rows) {
      if (r.i === null || r.hear_lang === null) continue;
      let l = perLog.get(r.log_id);
      if (!l) perLog.set(r.log_id, (l = { entries: new Map(), langs: new Set(), livemode: reads[r.i - 1]!.cred.livemode }));
      l.langs.add(r.hear_lang);
      // Signals are never translated: no engine is asked for them.
      for (const e of logs.get(`${r.log_id}\n${r.after}`) ?? []) if (!isSignal(e.kind)) l.entries.set(e.seq, e as PhraseEntry);
    }
    const rendered = new Map<string, Rendered>();
    await Promise.all([...perLog].map(async ([logId, l]) => {
      rendered.set(logId, await renderPhrases(this.s, logId, l.livemode, [...l.entries.values()], [...l.langs]));
    }));
    // Each read's answer and its session's room; null: no such session of the caller's (404).
    const results: Array<ReadResult | null> = reads.map(() => null);
    const rooms: Array<string | null> = reads.map(() => null);
    const billed: number[] = reads.map(() => 0);
    // Per read, the last number it delivers when the session was not billed up to there yet.
    const unmetered: Array<number | null> = reads.map(() => null);
    // Listeners of one room, language and position get the same answer: it is
    // built once and shared (read-only), and the route serializes it once.
    // A session with a phrase of its own in the window gets its own answer.
    const shared = new Map<string, Built>();
    for (const r of rows) {
      if (r.i === null) continue;
      const k = r.i - 1;
      const p = reads[k]!;
      rooms[k] = r.log_id;
      billed[k] = Number(r.billed_seconds);
      const end = r.to_seq === null ? Infinity : Number(r.to_seq);
      const entries = logs.get(`${r.log_id}\n${r.after}`) ?? [];
      // Its own phrases, its says' progress, its own speech: what it does not hear, or only it hears.
      const own = entries.some((e) => e.seq <= end && (e.session_id === p.sessionId || e.participant_id === p.sessionId));
      const key = own ? null : `${r.log_id}\n${r.after}\n${r.hear_lang}\n${end}\n${r.status}\n${p.cursor}`;
      let built = key === null ? undefined : shared.get(key);
      if (built === undefined) {
        built = this.build(r, p, entries, end, rendered.get(r.log_id)!);
        if (key !== null) shared.set(key, built);
      }
      results[k] = built.out;
      if (built.examined > Number(r.metered_seq)) unmetered[k] = built.examined;
    }
    // Reading is refused (402) once a limit of the key (day, month, per call =
    // this session's billed total) has been reached; otherwise what it
    // delivers is billed (below), so one read can pass a limit by one page.
    const verdicts: Array<ApiError | null> = await spendVerdicts(this.s.pool, reads.map((p, k) => ({ cred: p.cred, seconds: 0, callSeconds: billed[k] })), now(this.s));
    const refused = batch.map((p, i) => {
      const k = of[i]!;
      if (rooms[k] === null) return notFound('session', p.sessionId);
      if (p.refuseEnded && results[k]!.status === 'ended') return sessionEnded(p.sessionId);
      return verdicts[k]!;
    });
    const toMeter = batch.flatMap((p, i) => (refused[i] === null && unmetered[of[i]!] !== null ? [{ p, upto: unmetered[of[i]!]! }] : []));
    if (toMeter.length > 0) await this.meter(toMeter);
    return () => batch.forEach((p, i) => {
      const err = refused[i];
      if (err) p.reject(err);
      else p.resolve({ out: results[of[i]!]!, logId: rooms[of[i]!]! });
    });
  }

  /**
   * The answer of one read: the window's entries up to end, less the
   * session's own phrases, in its language; it stops before a phrase whose
   * translation another reader is still making.
   */
  private build(r: Row, p: Pending, entries: Entry[], end: number, rendered: Rendered): Built {
    const events: SessionEventOut[] = [];
    let examined = 0;
    for (const e of entries) {
      if (e.seq > end) break;
      if (e.kind === 'agent' && e.session_id === p.sessionId) {
        examined = e.seq;
        continue;
      }
      if (isSignal(e.kind)) {
        examined = e.seq;
        const signal = signalEvent(e, p.sessionId);
        if (signal !== null) events.push(signal);
        continue;
      }
      const inLang = rendered.get(e.seq, r.hear_lang!);
      if (inLang === undefined) break;
      examined = e.seq;
      // A digit the callee pressed (RFC 4733) is a `dtmf` event: the digit as they sent it, how long they held it.
      const dtmf = e.kind === 'dtmf';
      const meta: Record<string, string | number | boolean> = { seq: e.seq, participant_id: e.participant_id, lang: r.hear_lang! };
      if (e.audio_ms !== null) meta[dtmf ? 'duration_ms' : 'audio_ms'] = e.audio_ms;
      // A phrase that had partials: the id they carried.
      if (e.segment_id !== null) meta.segment_id = e.segment_id;
      // No engine could put it in the listener's language: it comes as it was said (live) or marked (test).
      if (inLang.untranslated) meta.untranslated = true;
      events.push({
        id: e.seq,
        type: dtmf ? 'dtmf' : 'segment.final',
        speaker: e.speaker,
        src_lang: e.src_lang,
        untrusted_content: { text: e.text, text_in_hear_lang: inLang.text },
        meta,
        created_at: new Date(e.created_at).toISOString(),
      });
    }
    // The cursor moves past the session's own phrases too: they are read, not delivered.
    return { out: { events, cursor: Math.max(p.cursor, examined), status: r.status! }, examined };
  }

  /**
   * Listening is billed as it is delivered: each session pays
   * listen_text_factor of every phrase of its window, once, up to the
   * furthest number a read has delivered (a phrase a client skipped by
   * sending a later cursor was there to hear, and is billed too). The
   * sessions' rows are locked in id order and only what lies past their
   * metered_seq is counted (in SQL, under the lock), so two reads of the same
   * events, in one process or two, bill them once. The ledger rows (one per
   * key: the key that opened the session pays for its listening) are written
   * by the same statement in test mode, which has no balance to move (one
   * round trip while thousands of listeners wait for their answers), or by
   * recordUsage in the same transaction in live mode.
   */
  private async meter(reads: Array<{ p: Pending; upto: number }>): Promise<void> {
    // Two reads of one session in the same batch: the furthest counts.
    const upto = new Map<string, number>();
    for (const r of reads) upto.set(r.p.sessionId, Math.max(r.upto, upto.get(r.p.sessionId) ?? 0));
    const ids = [...upto.keys()];
    const uptos = ids.map((id) => upto.get(id)!);
    const at = now(this.s);
    if (reads.some((r) => r.p.cred.livemode)) {
      await withTx(this.s.pool, async (tx) => {
        const { rows } = await tx.query<{ org_id: string; livemode: boolean; credential_id: string; seconds: string }>(prepared(
          `${METER} SELECT org_id, livemode, credential_id, sum(seconds) AS seconds FROM d GROUP BY 1, 2, 3`,
          [ids, uptos],
        ));
        await recordUsage(
          tx,
          rows.map((r) => ({ orgId: r.org_id, credentialId: r.credential_id, livemode: r.livemode, kind: 'listen', seconds: Number(r.seconds) })),
          at,
        );
      });
      return;
    }
    // Amounts to the microsecond, as recordUsage keeps them. It answers the keys with a spending limit that were billed.
    const { rows } = await this.s.pool.query<{ org_id: string; livemode: boolean; credential_id: string }>(prepared(
      `${METER}, g AS (
         SELECT org_id, livemode, credential_id, round(sum(seconds), 6) AS seconds FROM d GROUP BY 1, 2, 3
       ), i AS (
         INSERT INTO usage_ledger (org_id, credential_id, livemode, kind, seconds, ref, created_at)
         SELECT org_id, credential_id, livemode, 'listen', seconds, NULL, $3::timestamptz FROM g WHERE seconds > 0
       )
       SELECT g.org_id, g.livemode, g.credential_id FROM g JOIN api_keys k ON k.id = g.credential_id
        WHERE g.seconds > 0 AND ${hasPeriodLimit('k')}`,
      [ids, uptos, at],
    ));
    // usage.threshold events for those keys, after the ledger rows are in (it sends each threshold once).
    if (rows.length > 0) {
      await withTx(this.s.pool, (tx) =>
        checkUsageThresholds(tx, rows.map((r) => ({ orgId: r.org_id, credentialId: r.credential_id, livemode: r.livemode })), at));
    }
  }
}

/**
 * A signal of the log as the session's event (signals.ts), or null when it is
 * not the session's to receive: a say's progress goes only to the session
 * that said it, speech activity and partials to every session but the
 * participant's own. Never translated: a partial comes as it was heard.
 */
function signalEvent(e: Entry, sessionId: string): SessionEventOut | null {
  const say = e.kind.startsWith('say.');
  if (say ? e.session_id !== sessionId : e.participant_id === sessionId) return null;
  const meta: Record<string, string | number | boolean> = { seq: e.seq, participant_id: e.participant_id };
  if (say) {
    meta.utterance_id = e.utterance_id ?? '';
    meta.spoken_ms = e.spoken_ms ?? 0;
  }
  if (e.segment_id !== null) meta.segment_id = e.segment_id;
  return {
    id: e.seq,
    type: e.kind,
    speaker: e.speaker,
    src_lang: e.src_lang,
    untrusted_content: { text: e.text, text_in_hear_lang: null },
    meta,
    created_at: new Date(e.created_at).toISOString(),
  };
}
