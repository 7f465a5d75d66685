import type { Client } from '../db/pool.ts';

// An actor as it is and every transition it went through, from `actors` and
// `actor_history` (the CLI's view of an object's lifecycle).

export type ActorRecord = {
  id: string;
  machine: string;
  state: string;
  context: unknown;
  version: number;
  livemode: boolean;
  org_id: string;
  created_at: string;
  updated_at: string;
  history: Array<{ version: number; event: unknown; from: string | null; to: string; emitted: string[]; at: string }>;
};

export async function loadActor(db: Pick<Client, 'query'>, id: string): Promise<ActorRecord | null> {
  const { rows } = await db.query(`SELECT * FROM actors WHERE id = $1`, [id]);
  const a = rows[0];
  if (!a) return null;
  const h = await db.query(
    `SELECT version, event, from_state, to_state, emitted, at FROM actor_history WHERE actor_id = $1 ORDER BY version`,
    [id],
  );
  return {
    id: a.id,
    machine: a.machine,
    state: a.state,
    context: a.snapshot?.context ?? null,
    version: a.version,
    livemode: a.livemode,
    org_id: a.org_id,
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
    history: h.rows.map((r) => ({
      version: r.version,
      event: r.event,
      from: r.from_state,
      to: r.to_state,
      emitted: r.emitted,
      at: r.at.toISOString(),
    })),
  };
}
