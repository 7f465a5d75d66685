import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { POLICIES } from './index.ts';
import { DEFAULT_SOURCES } from './defaults.ts';
import { PURPOSES } from './types.ts';
import { renderReadme } from './readme.ts';

// The table itself: the countries the calls work needs, every rule citing
// sources that exist, dates and times that parse, and a README that is the
// table's.

const REQUIRED = ['US', 'CA', 'GB', 'DE', 'FR', 'ES', 'PT', 'IT', 'NL', 'BR', 'MX', 'JP', 'AU', 'IN'];

describe('the policy table', () => {
  it('has a file for each country calls go to', () => {
    expect(Object.keys(POLICIES).sort()).toEqual([...REQUIRED].sort());
  });

  for (const p of Object.values(POLICIES)) {
    it(`${p.country}: every rule cites sources of its file, with a date and an https URL; windows are HH:mm ranges`, () => {
      const ids = new Set(p.sources.map((s) => s.id));
      expect(ids.size, 'source ids are unique').toBe(p.sources.length);
      for (const s of p.sources) {
        expect(s.id.startsWith(`${p.country.toLowerCase()}-`), s.id).toBe(true);
        expect(s.effective, s.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(Number.isNaN(Date.parse(s.effective)), s.id).toBe(false);
        expect(s.url, s.id).toMatch(/^https:\/\//);
        expect(s.summary.length, s.id).toBeGreaterThan(20);
      }
      for (const purpose of PURPOSES) {
        const r = p.purposes[purpose];
        for (const id of r.sources) expect(ids.has(id), `${purpose} cites ${id}`).toBe(true);
        if (r.maxAttempts) expect(ids.has(r.maxAttempts.source), `${purpose} attempts`).toBe(true);
        expect(r.code, purpose).toMatch(/^[a-z][a-z_]+$/);
        expect(r.message.length, purpose).toBeGreaterThan(10);
      }
      for (const w of p.windows) {
        expect(ids.has(w.source), `window cites ${w.source}`).toBe(true);
        for (const ranges of Object.values(w.days)) {
          for (const [from, to] of ranges ?? []) {
            expect(from).toMatch(/^([01]\d|2[0-3]):[0-5]\d$/);
            expect(to).toMatch(/^([01]\d|2[0-4]):[0-5]\d$/);
            expect(from < to, `${from}–${to}`).toBe(true);
          }
        }
      }
      expect(Object.keys(p.minuteFactor).length).toBeGreaterThan(0);
      for (const f of Object.values(p.minuteFactor)) expect(f).toBeGreaterThan(0);
    });
  }

  it('the shared sources are dated and linked', () => {
    for (const s of DEFAULT_SOURCES) {
      expect(s.url).toMatch(/^https:\/\//);
      expect(s.effective).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('policies/README.md is the table\'s (npm run policies writes it)', () => {
    expect(fs.readFileSync('policies/README.md', 'utf8')).toBe(`${renderReadme()}\n`);
  });
});

describe('every country of the table, with libphonenumber\'s example mobile number', () => {
  it('is callable at its mobile price, and every purpose gets a verdict with a code', async () => {
    const { getExampleNumber } = await import('libphonenumber-js/max');
    const examples = (await import('libphonenumber-js/mobile/examples')).default;
    const { destinationOf, evaluate } = await import('./evaluate.ts');
    for (const p of Object.values(POLICIES)) {
      const example = getExampleNumber(p.country as never, examples)!;
      const d = destinationOf(example.number)!;
      expect(d.country, p.country).toBe(p.country);
      expect(d.zones.length, p.country).toBeGreaterThan(0);
      const quote = evaluate(d, null, null, new Date('2026-11-24T15:00:00Z'));
      expect(quote.allowed, `${p.country} ${d.kind}`).toBe(true);
      expect(quote.minute_factor).toBe(p.minuteFactor[d.kind]);
      for (const purpose of PURPOSES) {
        const v = evaluate(d, purpose, 'written', new Date('2026-11-24T15:00:00Z'));
        expect(v.purpose!.code, `${p.country} ${purpose}`).toMatch(/^[a-z_]+$/);
        expect(v.reason.length).toBeGreaterThan(10);
      }
    }
  });
});
