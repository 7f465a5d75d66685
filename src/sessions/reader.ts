import { withTx } from '../db/pool.ts';
import { ApiError } from '../errors.ts';
import type { Caller, Services } from '../services/context.ts';
import { checkUsageThresholds } from '../services/spending.ts';
import { PRICING } from '../services/pricing.ts';
import { spokenSeconds } from '../sim/translator.ts';

// Reads session events for many listeners at once. When a phrase reaches a
// room, every waiting listener wakes in the same instant; instead of one
// query and one metering transaction each, the reads queued in one turn of
// the event loop share one query for the events and one transaction for the
// metering (ledger rows, billed_seconds, the 402 check). Nothing is kept
// between batches: a lost process loses only its open requests.

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
      `SELECT w.i::int AS i, s.status, e.seq, e.type, e.speaker, e.src_lang, e.text, e.text_in_hear_lang, e.meta, e.created_at
         FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS w(session_id, cursor, i)
         JOIN agent_sessions s ON s.id = w.session_id
         LEFT JOIN LATERAL (
           SELECT * FROM session_events e WHERE e.session_id = w.session_id AND e.seq > w.cursor ORDER BY e.seq LIMIT $3
         ) e ON true
        ORDER BY w.i, e.seq`,
      [batch.map((p) => p.sessionId), batch.map((p) => p.cursor), LISTEN_BATCH],
    );
    const results: ReadResult[] = batch.map((p) => ({ events: [], cursor: p.cursor, status: 'ended' }));
    for (const r of rows) {
      const out = results[r.i - 1]!;
      out.status = r.status;
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
    // Metering: text read while listening costs listen_text_factor of its spoken time.
    const charges = batch
      .map((p, k) => ({ p, k, seconds: results[k]!.events.reduce((n, e) => n + spokenSeconds(e.untrusted_content.text_in_hear_lang ?? ''), 0) * PRICING.listenTextFactor }))
      .filter((c) => c.seconds > 0);
    const refused = charges.length > 0 ? await this.meter(charges) : new Set<number>();
    batch.forEach((p, k) => {
      if (refused.has(k)) p.reject(new ApiError('spend_limit_reached', 'Listening would exceed a spending limit of this key'));
      else p.resolve(results[k]!);
    });
  }

  /** Writes the listening charges of a batch; returns the reads refused with 402. */
  private async meter(charges: Array<{ p: Pending; k: number; seconds: number }>): Promise<Set<number>> {
    return withTx(this.s.pool, async (tx) => {
      const creds = [...new Map(charges.map((c) => [c.p.cred.id, c.p.cred])).values()];
      const limited = creds.filter((c) => c.spendDayMinutes !== null || c.spendMonthMinutes !== null || c.perCallMinutes !== null || c.livemode);
      const refused = new Set<number>();
      if (limited.length > 0) {
        // Soft check: reads of one batch are charged together; a key crosses
        // its limit by at most one batch of listening (a tenth of the speech).
        const { rows } = await tx.query<{ credential_id: string; today: number; month: number }>(
          `SELECT credential_id,
                  coalesce(sum(seconds) FILTER (WHERE created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0) AS today,
                  coalesce(sum(seconds), 0) AS month
             FROM usage_ledger
            WHERE credential_id = ANY($1) AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
            GROUP BY credential_id`,
          [limited.map((c) => c.id)],
        );
        const spent = new Map(rows.map((r) => [r.credential_id, r]));
        const sessions = await tx.query<{ id: string; billed_seconds: number }>(
          `SELECT id, billed_seconds FROM agent_sessions WHERE id = ANY($1)`,
          [charges.map((c) => c.p.sessionId)],
        );
        const billed = new Map(sessions.rows.map((r) => [r.id, Number(r.billed_seconds)]));
        for (const c of charges) {
          const cred = c.p.cred;
          const sp = spent.get(cred.id);
          const over = (limit: number | null, usedSeconds: number) => limit !== null && usedSeconds + c.seconds > limit * 60 + 1e-6;
          if (over(cred.spendDayMinutes, Number(sp?.today ?? 0)) || over(cred.spendMonthMinutes, Number(sp?.month ?? 0)) ||
              over(cred.perCallMinutes, billed.get(c.p.sessionId) ?? 0)) {
            refused.add(c.k);
          }
        }
      }
      const paid = charges.filter((c) => !refused.has(c.k));
      if (paid.length === 0) return refused;
      await tx.query(
        `INSERT INTO usage_ledger (org_id, credential_id, livemode, kind, seconds, ref)
         SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::numeric[], $6::text[])`,
        [
          paid.map((c) => c.p.cred.orgId), paid.map((c) => c.p.cred.id), paid.map((c) => c.p.cred.livemode),
          paid.map(() => 'listen'), paid.map((c) => c.seconds), paid.map((c) => c.p.sessionId),
        ],
      );
      // Locks in id order, as publishing takes them (no deadlock with a speaker).
      await tx.query(`SELECT 1 FROM agent_sessions WHERE id = ANY($1) ORDER BY id FOR UPDATE`, [paid.map((c) => c.p.sessionId)]);
      await tx.query(
        `UPDATE agent_sessions s SET billed_seconds = s.billed_seconds + c.seconds
           FROM (SELECT id, sum(seconds) AS seconds FROM unnest($1::text[], $2::numeric[]) AS c(id, seconds) GROUP BY id) c
          WHERE s.id = c.id`,
        [paid.map((c) => c.p.sessionId), paid.map((c) => c.seconds)],
      );
      for (const cred of new Map(paid.map((c) => [c.p.cred.id, c.p.cred])).values()) {
        if (cred.livemode) {
          const total = paid.filter((c) => c.p.cred.id === cred.id).reduce((n, c) => n + c.seconds, 0);
          await tx.query(`UPDATE organizations SET balance_seconds = balance_seconds - $2 WHERE id = $1`, [cred.orgId, total]);
        }
        if (cred.spendDayMinutes !== null || cred.spendMonthMinutes !== null) {
          await checkUsageThresholds(tx, { orgId: cred.orgId, credentialId: cred.id, livemode: cred.livemode });
        }
      }
      return refused;
    });
  }
}
