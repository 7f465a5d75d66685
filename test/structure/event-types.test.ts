import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../machines/event-types.ts';
import { loadConfig } from '../../src/config.ts';
import { createPool } from '../../src/db/pool.ts';
import { buildApp } from '../../src/app.ts';
import { specText } from '../helpers/spec.ts';

// The event types are declared once (machines/event-types.ts). A new one must
// be in api.md's enumeration (section 6, "Event types"), and it reaches the
// OpenAPI document (enabled_events, the test event's type) from the same list.


// Emitted beyond api.md's enumeration, as README's voices section tells: a
// consent link that lapsed, and a clone its person withdrew.
const BEYOND_SPEC = ['voice.expired', 'voice.revoked'];

/** The types named in the first column of api.md's "Event types (the accepted enumeration)" table. */
function specEventTypes(text: string): string[] {
  const section = text.split(/^### Event types \(the accepted enumeration\)$/m)[1];
  if (!section) throw new Error('api.md has no "Event types (the accepted enumeration)" section');
  const rows = section.split(/\n(?=#)/)[0]!.split('\n').filter((l) => l.startsWith('|') && !/^\|\s*(Type|-+)\s*\|/.test(l));
  return rows.flatMap((row) => row.split('|')[1]!.split(',').map((t) => t.trim()));
}

/** Every enum in an OpenAPI document that lists event types (one that names room.started). */
function eventEnums(doc: unknown): string[][] {
  const found: string[][] = [];
  const walk = (o: unknown) => {
    if (Array.isArray(o)) o.forEach(walk);
    else if (o && typeof o === 'object') {
      const e = (o as { enum?: unknown }).enum;
      if (Array.isArray(e) && e.includes('room.started')) found.push(e as string[]);
      Object.values(o).forEach(walk);
    }
  };
  walk(doc);
  return found;
}

const sorted = (list: readonly string[]) => [...list].sort();

describe('event types, declared once', () => {
  it("are api.md's enumeration, and the two voice events beyond it", () => {
    const spec = specEventTypes(specText());
    expect(spec).toContain('call.ended');
    expect(spec.every((t) => /^[a-z]+\.[a-z_]+$/.test(t))).toBe(true);
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    expect(sorted(EVENT_TYPES)).toEqual(sorted([...spec, ...BEYOND_SPEC]));
  });

  it('are the enums of openapi.json and of the document the app serves', async () => {
    const committed = eventEnums(JSON.parse(fs.readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')));
    // As scripts/openapi.ts builds it: no query runs, so no database is needed.
    const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://localhost:8080' }, { workers: false });
    const pool = createPool('postgres://unused@127.0.0.1:1/unused', 1);
    const app = await buildApp({ config, pool, boss: null as never, databaseUrl: 'postgres://unused@127.0.0.1:1/unused' });
    try {
      const served = eventEnums((await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json());
      // enabled_events of a new endpoint, and the type of a test event.
      for (const enums of [committed, served]) {
        expect(enums).toHaveLength(2);
        for (const e of enums) expect(e).toEqual([...EVENT_TYPES]);
      }
    } finally {
      await app.close();
      await pool.end();
    }
  });
});
