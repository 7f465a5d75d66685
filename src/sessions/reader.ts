import { now, type Caller, type Services } from '../services.ts';
import { spendVerdicts } from '../billing/limits.ts';

// Reads session events for many listeners at once. When a phrase reaches a
// room, every waiting listener wakes in the same instant; instead of a query
// each, the reads queued in one turn of the event loop share one query for the
// events (and one for the spending check). Nothing is kept between batches: a
// lost process loses only its open requests.

export const LISTEN_BATCH = 100;
const MAX_BATCH = 2000;

export type SessionEventOut = {
  id: number;
  type: string;
  speaker: string | null;
  src_lang: string | null;
  untrusted_content: { text: string | null; text_in_hear_lang: string | null };
  meta: Record<string, unknown>;
  created_at: string;
};
export type ReadResult = { events: SessionEventOut[]; cursor: number; status: string };

type Pending = { cred: Caller; sessionId: string; cursor: number; resolve: (r: ReadResult) => void; reject: (e: unknown) => void };

export class EventReader {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly s: Services;

  constructor(s: Services) {
    this.s = s;
  }

  read(cred: Caller, sessionId: string, cursor: number): Promise<ReadResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ cred, sessionId, cursor, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.run(batch).catch((err) => { for (const p of batch) p.reject(err); });
    }
  }

  private async run(batch: Pending[]): Promise<void> {
    const { rows } = await this.s.pool.query(
      `SELECT w.i::int AS i, s.status, s.billed_seconds, e.seq, e.type, e.speaker, e.src_lang, e.text, e.text_in_hear_lang, e.meta, e.created_at
         FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS w(session_id, cursor, i)
         JOIN agent_sessions s ON s.id = w.session_id
         LEFT JOIN LATERAL (
           SELECT * FROM session_events e WHERE e.session_id = w.session_id AND e.seq > w.cursor ORDER BY e.seq LIMIT $3
         ) e ON true
        ORDER BY w.i, e.seq`,
      [batch.map((p) => p.sessionId), batch.map((p) => p.cursor), LISTEN_BATCH],
    );
    const results: ReadResult[] = batch.map((p) => ({ events: [], cursor: p.cursor, status: 'ended' }));
    const billed: number[] = batch.map(() => 0);
    for (const r of rows) {
      const out = results[r.i - 1]!;
      out.status = r.status;
      billed[r.i - 1] = Number(r.billed_seconds);
      if (r.seq === null) continue;
      out.events.push({
        id: Number(r.seq),
        type: r.type,
        speaker: r.speaker,
        src_lang: r.src_lang,
        untrusted_content: { text: r.text, text_in_hear_lang: r.text_in_hear_lang },
        meta: r.meta,
        created_at: r.created_at.toISOString(),
      });
      out.cursor = Number(r.seq);
    }
    // Listening was charged as the phrases reached the sessions (publish.ts),
    // so a read costs nothing more; it is refused (402) once a limit of the
    // key (day, month, per call = this session's billed total) is reached.
    const refused = await spendVerdicts(this.s.pool, batch.map((p, k) => ({ cred: p.cred, seconds: 0, callSeconds: billed[k] })), now(this.s));
    batch.forEach((p, k) => {
      const err = refused[k];
      if (err) p.reject(err);
      else p.resolve(results[k]!);
    });
  }
}
