import { describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { startTestApp } from '../helpers/app.ts';
import { callSuite } from '../helpers/call-suite.ts';
import { finished, startSipp } from '../helpers/sipp.ts';
import { until } from '../helpers/wait.ts';
import { Writes, isConcurrentChange } from '../../src/db/writes.ts';
import { lockObjects, planTransition } from '../../src/actors/store.ts';
import { CALL_COLUMNS, eventObject, type CallRow } from '../../src/calls/calls.ts';
import { withTx } from '../../src/db/pool.ts';

// What a call costs the database up to its answer (issue: the call path),
// and that the one-statement writes it takes on the way lose nothing when
// the call changed under them.

vi.setConfig({ testTimeout: 60_000 });

const suite = callSuite();
const { clock, cleanups } = suite;
const scenario = (name: string) => new URL(`../../gateway/sipp/${name}.xml`, import.meta.url).pathname;

/** What the service's background loops send on their own (job polling, the outbox, the simulator, heartbeats, batched counters, trunk pings): not the call's. */
const BACKGROUND = [
  /pgboss\./, /\bsim_rooms\b/, /\bsim_replies\b/, /\boutbox_queue\b/, /\bwebhook_endpoints\b/,
  /UPDATE gateways/, /FROM calls c LEFT JOIN gateways/, /status = 'queued' AND gateway_id IS NULL/, /\brate_limit_counters\b/,
  /\brequest_counts\b/, /\broom_streams\b/, /pg_stat_activity/, /\/\* probe \*\//, /^LISTEN\b/, /pg_advisory_unlock/, /\bquota_counters\b/,
  // The trunks' health loop (src/trunks/ping.ts): pings claimed, addresses refreshed.
  /\b(FROM|UPDATE) trunks\b/,
  // The event log's readers woken once the events are committed (src/db/after-commit.ts):
  // sent after the commit, which no one waits for, one per 20 ms however many calls.
  /^NOTIFY tolk_outbox$/,
];

/**
 * The statements that are not the background's: a transaction (BEGIN ...
 * COMMIT on one connection) goes whole, with its BEGIN and COMMIT, when any
 * statement of it is a background loop's.
 */
type Sent = { client: unknown; text: string; turn: number };

function ofTheCall(sent: Sent[]): Sent[] {
  const isBackground = (q: Sent) => BACKGROUND.some((b) => b.test(q.text));
  const open = new Map<unknown, Sent[]>();
  const out: Sent[] = [];
  for (const q of sent) {
    const t = q.text.trim();
    const client = q.client;
    const group = open.get(client);
    if (/^BEGIN\b/i.test(t) && !group) {
      open.set(client, [q]);
      if (/;\s*COMMIT\s*$/i.test(t)) { open.delete(client); if (!isBackground(q)) out.push(q); }
      continue;
    }
    if (!group) {
      // The end of a transaction begun before counting started (a background loop's, on a busy machine) is not the call's.
      if (/^(COMMIT|ROLLBACK)\b/i.test(t)) continue;
      if (!isBackground(q)) out.push(q);
      continue;
    }
    group.push(q);
    if (/^(COMMIT|ROLLBACK)\b/i.test(t) || /;\s*COMMIT\s*$/i.test(t)) {
      open.delete(client);
      if (!group.some(isBackground)) out.push(...group);
    }
  }
  // A transaction still open when counting stopped is the call's only if nothing of it is the background's.
  for (const group of open.values()) if (!group.some(isBackground)) out.push(...group);
  return out;
}

function textOf(args: unknown[]): string {
  const q = args[0];
  return typeof q === 'string' ? q : String((q as { text?: string }).text ?? '');
}

describe('the cost of a call', () => {
  it('from POST /v1/calls to its answer committed: at most 6 round trips to the database (BEGIN and COMMIT count; statements sent in one write count once), none of them a background loop\'s', async () => {
    const sipp = await startSipp({ scenario: scenario('answer-wait-bye') });
    cleanups.push(() => sipp.stop());
    const t = await startTestApp({ db: suite.db, workers: true, clock, config: { simSipPeer: `sip:${sipp.address}` } });
    cleanups.push(() => t.close());
    // Counted on the first call: a statement prepared on first use is still one statement.
    const post = () => t.request('POST', '/v1/calls', {
      key: suite.key, headers: { 'idempotency-key': crypto.randomUUID() },
      body: { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' }, remote_lang: 'es' },
    });
    const statusOf = async (id: string) =>
      (await t.pool.query<{ status: string }>(`/* probe */ SELECT status FROM calls WHERE id = $1`, [id])).rows[0]?.status;
    // The key is looked up once and then known (http/auth.ts): as for every call after a client's first.
    expect((await t.request('GET', '/v1/calls', { key: suite.key })).status).toBe(200);

    const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const original = proto.query;
    const sent: Sent[] = [];
    // Statements one connection is given in the same turn of the event loop
    // leave in one write (db/pool.ts together: BEGIN with the first statement,
    // the last with COMMIT): one round trip.
    let turn = 0;
    let bumping = false;
    proto.query = function (this: unknown, ...args: unknown[]) {
      if (!bumping) {
        bumping = true;
        queueMicrotask(() => { turn++; bumping = false; });
      }
      sent.push({ client: this, text: textOf(args), turn });
      return original.apply(this, args);
    };
    let call: { id: string };
    try {
      const res = await post();
      expect(res.status).toBe(201);
      call = await res.json();
      await until('the call answered', async () => (await statusOf(call.id)) === 'answered', 10_000);
    } finally {
      proto.query = original;
    }
    const ours = ofTheCall(sent);
    const trips = new Map<string, string[]>();
    for (const q of ours) {
      const k = `${ours.findIndex((o) => o.client === q.client)}:${q.turn}`;
      trips.set(k, [...(trips.get(k) ?? []), q.text.replace(/\s+/g, ' ').slice(0, 100)]);
    }
    expect(trips.size, [...trips.values()].map((qs) => qs.join(' + ')).join('\n')).toBeLessThanOrEqual(6);
    // And it is the call everyone sees: ringing and answered, with their events, its session active.
    const events = (await t.pool.query<{ type: string }>(`/* probe */ SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [call.id])).rows.map((r) => r.type);
    expect(events.slice(-2)).toEqual(['call.ringing', 'call.answered']);
    const got = await (await t.request('GET', `/v1/calls/${call.id}`, { key: suite.key })).json();
    expect(got).toMatchObject({ status: 'answered', sip_code: 200 });
    const session = await (await t.request('GET', `/v1/sessions/${got.session_id}`, { key: suite.key })).json();
    expect(session.status).toBe('active');
    await t.request('POST', `/v1/calls/${call.id}/hangup`, { key: suite.key });
    expect((await finished(sipp)).code).toBe(0);
  });

  it('a one-statement transition planned on a call that changed since fails whole: nothing of it is written', async () => {
    const t = await startTestApp({ db: suite.db, clock });
    cleanups.push(() => t.close());
    const res = await t.request('POST', '/v1/calls', {
      key: suite.key, headers: { 'idempotency-key': crypto.randomUUID() },
      body: { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' } },
    });
    const { id } = await res.json();
    // What a gateway would keep: the call as read now.
    const stale = await withTx(t.pool, async (tx) => (await lockObjects<CallRow>(tx, { machine: 'call', id, returning: CALL_COLUMNS })).first!);
    // Meanwhile the API hangs it up.
    await t.request('POST', `/v1/calls/${id}/hangup`, { key: suite.key });
    const before = (await t.pool.query(`SELECT count(*)::int AS n FROM outbox WHERE object_id = $1`, [id])).rows[0].n;
    const w = new Writes();
    const planned = planTransition<CallRow>(w, stale, { type: 'RINGING' }, { objectFor: (r) => eventObject(r) });
    expect(planned.changed).toBe(true);
    const err = await w.runAlone(t.pool).then(() => null, (e: unknown) => e);
    expect(isConcurrentChange(err), String(err)).toBe(true);
    const after = (await t.pool.query(`SELECT count(*)::int AS n FROM outbox WHERE object_id = $1`, [id])).rows[0].n;
    expect(after, 'no event of the refused transition').toBe(before);
    const got = await (await t.request('GET', `/v1/calls/${id}`, { key: suite.key })).json();
    expect(got.status).toBe('no_answer');
    const history = (await t.pool.query(`SELECT to_state FROM actor_history WHERE actor_id = $1 ORDER BY version`, [id])).rows.map((r) => r.to_state);
    expect(history).not.toContain('ringing');
  });
});
