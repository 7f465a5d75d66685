import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { capabilityOf, findCrossings, findCycles, findUnlayered, findUpward, layerOf, readGraph } from '../../scripts/imports.ts';

// The direction of the code (docs/inside.md, Direction): no import cycle among
// src/, machines/, gateway/ and policies/, every import runs down the
// declared layers (scripts/imports.ts LAYERS), and no capability imports
// another: they meet in the assembly (src/reactions.ts, the ports typed in
// src/services.ts).

/** Crossings not yet taken out, each named until it is gone (the list only shrinks). */
const NOT_YET = new Set<string>([
]);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const graph = readGraph(root);

describe('the imports of the real tree', () => {
  it('reads the tree and what it imports', () => {
    expect(graph.size).toBeGreaterThan(200);
    // The reactions between capabilities are the one place that imports them.
    expect(graph.get('src/reactions.ts')).toEqual(expect.arrayContaining(['src/bookings/settle.ts', 'src/calls/events.ts']));
    expect(graph.get('src/rooms/rooms.ts')).not.toContain('src/bookings/settle.ts');
  });

  it('has no cycle (each one found is named by its files)', () => {
    expect(findCycles(graph).map((files) => files.join(' -> '))).toEqual([]);
  });

  it('has no import running up from a lower layer to a higher one', () => {
    expect(findUpward(graph).map((u) => `${u.from} (${u.fromLayer}) imports ${u.to} (${u.toLayer})`)).toEqual([]);
  });

  it('places every file in a layer', () => {
    expect(findUnlayered(graph)).toEqual([]);
  });

  it('has no capability importing another (they meet in src/reactions.ts)', () => {
    const known = NOT_YET;
    expect(findCrossings(graph, known).map((c) => `${c.from} -> ${c.to}`)).toEqual([]);
  });

  it('names only crossings that still exist, and none between sessions and calls (they meet through reactions)', () => {
    const all = new Set(findCrossings(graph).map((c) => `${c.from} -> ${c.to}`));
    expect([...NOT_YET].filter((c) => !all.has(c))).toEqual([]);
    for (const c of NOT_YET) {
      expect(c.split(' -> ').map((f) => capabilityOf(f)).sort()).not.toEqual(['calls', 'sessions']);
    }
  });
});

describe('the check itself, on a small tree', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-imports-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('src/rooms/rooms.ts', `import { settle } from '../bookings/bookings.ts';\nexport const end = () => settle();\n`);
  write('src/bookings/bookings.ts', `import type { Room } from '../rooms/types.ts';\nexport const settle = () => 1;\n`);
  write('src/rooms/types.ts', `export type { End } from './rooms.ts';\nexport type Room = { id: string };\n`);
  write('src/services.ts', `export const load = () => import('./rooms/rooms.ts');\n`);
  write('src/rooms/rooms.test.ts', `import { end } from './rooms.ts';\n`);
  write('src/reactions.ts', `import { settle } from './bookings/bookings.ts';\nimport { end } from './rooms/rooms.ts';\n`);
  const small = readGraph(dir);

  it('finds a cycle through a type import and a re-export, and names its files', () => {
    expect(findCycles(small)).toEqual([['src/bookings/bookings.ts', 'src/rooms/rooms.ts', 'src/rooms/types.ts']]);
  });

  it('finds a dynamic import from a lower layer to a higher one, and leaves test files out', () => {
    expect(layerOf('src/services.ts')).toBeLessThan(layerOf('src/rooms/rooms.ts')!);
    expect(findUpward(small)).toEqual([
      { from: 'src/services.ts', to: 'src/rooms/rooms.ts', fromLayer: 'shared', toLayer: 'capabilities' },
    ]);
    expect([...small.keys()]).not.toContain('src/rooms/rooms.test.ts');
  });

  it('finds an import from one capability into another, type-only too, and lets the assembly import both', () => {
    expect(findCrossings(small)).toEqual([
      { from: 'src/bookings/bookings.ts', to: 'src/rooms/types.ts', fromCapability: 'bookings', toCapability: 'rooms' },
      { from: 'src/rooms/rooms.ts', to: 'src/bookings/bookings.ts', fromCapability: 'rooms', toCapability: 'bookings' },
    ]);
    expect(findCrossings(small, new Set(['src/rooms/rooms.ts -> src/bookings/bookings.ts']))).toHaveLength(1);
  });
});
