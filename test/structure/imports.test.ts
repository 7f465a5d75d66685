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
  // A booking is a meeting: booking, rescheduling and its pages make and read the meeting.
  'src/bookings/bookings.ts -> src/meetings/meetings.ts',
  // A booked meeting's room: its join link and state on the guest's pages.
  'src/bookings/bookings.ts -> src/rooms/join-links.ts',
  // A booking is a meeting: booking, rescheduling and its pages make and read the meeting.
  'src/bookings/manage.ts -> src/meetings/meetings.ts',
  // A booked meeting's room: its join link and state on the guest's pages.
  'src/bookings/manage.ts -> src/rooms/rooms.ts',
  // A booking is a meeting: booking, rescheduling and its pages make and read the meeting.
  'src/bookings/pages/invite.ts -> src/meetings/calendar.ts',
  'src/bookings/pages/invite.ts -> src/meetings/invitations.ts',
  // A booked meeting's room: its join link and state on the guest's pages.
  'src/bookings/pages/invite.ts -> src/rooms/rooms.ts',
  // A booking is a meeting: booking, rescheduling and its pages make and read the meeting.
  'src/bookings/pages/view.ts -> src/meetings/meetings.ts',
  // A booked meeting's room: its join link and state on the guest's pages.
  'src/bookings/pages/view.ts -> src/rooms/join-links.ts',
  'src/bookings/pages/view.ts -> src/rooms/rooms.ts',
  // A call speaks with a usable (consented) voice.
  'src/calls/call-line.ts -> src/voices/cloning.ts',
  // Live calls dial over the organization's trunks.
  'src/calls/dialer.ts -> src/trunks/secret.ts',
  // A test call's line has the simulated callee speaking.
  'src/calls/events.ts -> src/sim/robots.ts',
  // A call's caller ID is one of the organization's numbers.
  'src/calls/place.ts -> src/catalog/numbers.ts',
  // A call speaks with a usable (consented) voice.
  'src/calls/place.ts -> src/voices/usable.ts',
  // Live calls dial over the organization's trunks.
  'src/calls/trunk-dial.ts -> src/trunks/trunks.ts',
  // The catalog lists the booking links' event types.
  'src/catalog/routes/event-types.ts -> src/bookings/links.ts',
  'src/catalog/routes/event-types.ts -> src/bookings/schemas.ts',
  // The catalog lists numbers in the calls' shape.
  'src/catalog/routes/numbers.ts -> src/calls/schemas.ts',
  // The voice catalog in the voices' shape.
  'src/catalog/routes/voices-catalog.ts -> src/voices/schemas.ts',
  // A meeting is a room of kind meeting: made, read and shown as one.
  'src/meetings/invitations.ts -> src/rooms/join-links.ts',
  'src/meetings/invitations.ts -> src/rooms/rooms.ts',
  'src/meetings/meetings.ts -> src/rooms/rooms.ts',
  'src/meetings/meetings.ts -> src/rooms/schemas.ts',
  'src/meetings/routes/cancel.ts -> src/rooms/schemas.ts',
  // A meeting is a room of kind meeting: made, read and shown as one.
  'src/meetings/routes/create.ts -> src/rooms/schemas.ts',
  'src/meetings/routes/list.ts -> src/rooms/schemas.ts',
  // The room's pages read and publish the room's log and its bus.
  'src/rooms/mic-watch.ts -> src/sessions/bus.ts',
  'src/rooms/pages/live.ts -> src/sessions/bus.ts',
  'src/rooms/participants.ts -> src/sessions/bus.ts',
  'src/rooms/participants.ts -> src/sessions/publish.ts',
  'src/rooms/read-aloud.ts -> src/sessions/translations.ts',
  // Read-aloud speaks with a session's cloned voice.
  'src/rooms/read-aloud.ts -> src/voices/cloning.ts',
  // The room's pages read and publish the room's log and its bus.
  'src/rooms/stream.ts -> src/sessions/bus.ts',
  'src/rooms/stream.ts -> src/sessions/translations.ts',
  // The voice catalog's generic voices.
  'src/voices/rows.ts -> src/catalog/data.ts',
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
