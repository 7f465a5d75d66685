// The imports between src/, machines/, gateway/ and policies/: cycles (strongly connected
// components, Tarjan), imports that run upward against the declared layers, and imports from
// one capability into another (each capability's folder is a unit of its own: capabilities
// reach each other only through the assembly, src/reactions.ts and the ports it fills, typed
// in src/services.ts). `node scripts/imports.ts` prints what it finds and exits 1 on anything.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOTS = ['src', 'machines', 'gateway', 'policies'];

/**
 * The capabilities, each a folder of src/ and a unit of its own. sim/ is the test mode's
 * robots and phrasebook, which speak in rooms and on calls through the reactions. Meetings
 * are no capability of their own: a meeting is a room of kind meeting (one table, one
 * machine, one Room shape), so they live in rooms/meetings/.
 */
export const CAPABILITIES = [
  'account', 'bookings', 'calls', 'catalog', 'mail', 'rooms', 'sessions', 'sim',
  'transcripts', 'trunks', 'voices', 'webhooks',
] as const;

// Lowest first. A file belongs to the layer of its longest matching prefix; a file may import
// its own layer (without a cycle) and any layer below it, never one above.
export const LAYERS: ReadonlyArray<{ name: string; prefixes: string[] }> = [
  {
    name: 'foundation',
    prefixes: ['policies/', 'machines/', 'src/errors.ts', 'src/ids.ts', 'src/time-zones.ts', 'src/i18n/', 'src/process-alive.ts', 'src/public-limits.ts'],
  },
  {
    // config.ts reads the engines' registry (the engine names an operator may list).
    name: 'infrastructure',
    prefixes: [
      'src/config.ts', 'src/db/', 'src/providers/', 'src/engines/', 'src/startup.ts',
      'src/credentials.ts', 'src/permissions.ts', 'src/restrictions.ts', 'src/ops/',
      // The media server rooms' voices go through (Janus), as the gateway is calls'.
      'gateway/', 'src/media/',
    ],
  },
  {
    name: 'shared',
    prefixes: ['src/services.ts', 'src/actors/', 'src/jobs/', 'src/http/', 'src/billing/'],
  },
  {
    // Each folder a unit of its own (CAPABILITIES): none imports another (findCrossings).
    name: 'capabilities',
    prefixes: CAPABILITIES.map((c) => `src/${c}/`),
  },
  {
    // The assistant tools speak MCP onto the capabilities' use cases, as each capability's
    // routes/ files speak HTTP; they hold no use case of their own.
    name: 'protocols',
    prefixes: ['src/mcp/'],
  },
  {
    // What puts the capabilities together: the reactions between them, the route, page and
    // job lists (with the boss that creates the queues and the workers that work them), the
    // app, the platform and the CLI.
    name: 'assembly',
    prefixes: [
      'src/reactions.ts', 'src/routes.ts', 'src/pages.ts', 'src/ops/routes.ts', 'src/jobs-registry.ts',
      'src/app.ts', 'src/platform.ts', 'src/server.ts', 'src/cli/',
    ],
  },
];

export type Graph = Map<string, string[]>;

// Test files and test suites (*.contract.ts) are left out: they may import anything.
const isSource = (name: string) =>
  name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') && !name.endsWith('.contract.ts');

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (isSource(name)) out.push(path);
  }
}

function resolveImport(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Every relative import (static, type-only, re-export, dynamic) of the source files under `roots` of `dir`. */
export function readGraph(dir: string, roots: string[] = ROOTS): Graph {
  const files: string[] = [];
  for (const root of roots) if (existsSync(join(dir, root))) walk(join(dir, root), files);
  const key = (path: string) => relative(dir, path).split(sep).join('/');
  const graph: Graph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveImport(file, fileName);
      if (target && isSource(target)) targets.add(key(target));
    }
    graph.set(key(file), [...targets].filter((t) => t !== key(file)).sort());
  }
  return graph;
}

/** Groups of files that import each other, directly or around a loop (Tarjan's SCC), largest first. */
export function findCycles(graph: Graph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indices.get(w)!));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) connect(v);
  return found.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

/** The layer index of a file (its longest matching prefix), or undefined when no layer names it. */
export function layerOf(file: string, layers = LAYERS): number | undefined {
  let best: { at: number; length: number } | undefined;
  layers.forEach((layer, at) => {
    for (const prefix of layer.prefixes) {
      const matches = prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix;
      if (matches && (!best || prefix.length > best.length)) best = { at, length: prefix.length };
    }
  });
  return best?.at;
}

export interface Upward { from: string; to: string; fromLayer: string; toLayer: string }

/** Imports from a file to one in a higher layer. */
export function findUpward(graph: Graph, layers = LAYERS): Upward[] {
  const out: Upward[] = [];
  for (const [from, targets] of graph) {
    const a = layerOf(from, layers);
    for (const to of targets) {
      const b = layerOf(to, layers);
      if (a !== undefined && b !== undefined && b > a) {
        out.push({ from, to, fromLayer: layers[a]!.name, toLayer: layers[b]!.name });
      }
    }
  }
  return out;
}

/** The capability a file belongs to (its folder of src/), or undefined for any other file. */
export function capabilityOf(file: string): string | undefined {
  const m = /^src\/([^/]+)\//.exec(file);
  return m && (CAPABILITIES as readonly string[]).includes(m[1]!) ? m[1] : undefined;
}

export interface Crossing { from: string; to: string; fromCapability: string; toCapability: string }

/**
 * Imports from a file of one capability into another's, less those `known` names
 * (`from -> to`): a capability reaches another through the assembly (src/reactions.ts and the
 * ports typed in src/services.ts), never by importing it.
 */
export function findCrossings(graph: Graph, known: ReadonlySet<string> = new Set()): Crossing[] {
  const out: Crossing[] = [];
  for (const [from, targets] of graph) {
    const a = capabilityOf(from);
    if (a === undefined) continue;
    for (const to of targets) {
      const b = capabilityOf(to);
      if (b !== undefined && b !== a && !known.has(`${from} -> ${to}`)) out.push({ from, to, fromCapability: a, toCapability: b });
    }
  }
  return out;
}

/** Files no layer names (each must be placed, so a new folder cannot slip past the check). */
export function findUnlayered(graph: Graph, layers = LAYERS): string[] {
  return [...graph.keys()].filter((file) => layerOf(file, layers) === undefined).sort();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const graph = readGraph(resolve(dirname(fileURLToPath(import.meta.url)), '..'));
  const cycles = findCycles(graph);
  const upward = findUpward(graph);
  const unlayered = findUnlayered(graph);
  const crossings = findCrossings(graph);
  for (const cycle of cycles) console.log(`cycle (${cycle.length} files): ${cycle.join(', ')}`);
  for (const u of upward) console.log(`upward: ${u.from} (${u.fromLayer}) -> ${u.to} (${u.toLayer})`);
  for (const c of crossings) console.log(`crossing: ${c.from} (${c.fromCapability}) -> ${c.to} (${c.toCapability})`);
  for (const file of unlayered) console.log(`no layer: ${file}`);
  const count = cycles.length + upward.length + crossings.length + unlayered.length;
  console.log(count === 0 ? `${graph.size} files: no cycle, every import runs downward, no capability imports another` : `${count} finding(s)`);
  process.exit(count === 0 ? 0 : 1);
}
