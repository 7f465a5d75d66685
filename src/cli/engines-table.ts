import type { EngineReport, EnginesReport, LanguageReport, LanguageRoute, SpeechReport } from '../engines/translate/report.ts';
import { SAMPLE_LANGS } from '../engines/translate/report.ts';

// `npx tolk engines` on a terminal (or with --table): the report as a person
// reads it, within `width` columns (100 at most). A row per language (the
// common ones, and every language a translation engine covers): who hears
// it from a microphone or a phone line, who reads it aloud, and which
// languages it is translated to and from, directly or through a pivot, by
// which engine. Then the languages only spoken, in a few lines, and a line
// per engine: whether it answers, how quickly, and else why not.

const COLUMNS = [
  { title: 'language', width: 18 },
  { title: 'speak (mic)', width: 14 },
  { title: 'read aloud', width: 11 },
];
const GAP = '  ';

/** `text` cut into lines of at most `width` characters, at spaces where it can be. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/ +/)) {
    for (let w = word; w.length > 0;) {
      const room = line ? width - line.length - 1 : width;
      if (w.length <= room) {
        line = line ? `${line} ${w}` : w;
        w = '';
      } else if (line) {
        lines.push(line);
        line = '';
      } else {
        lines.push(w.slice(0, width));
        w = w.slice(width);
      }
    }
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/** `parts` joined with `sep`, in lines of at most `width`, a line broken between parts where it can be (inside one only when it is longer than a line). */
export function wrapParts(parts: string[], sep: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const [i, part] of parts.entries()) {
    const piece = i < parts.length - 1 ? `${part}${sep.trimEnd()}` : part;
    const joined = line ? `${line}${sep.slice(sep.trimEnd().length) || ' '}${piece}` : piece;
    if (joined.length <= width) {
      line = joined;
      continue;
    }
    if (line) lines.push(line);
    const inside = wrap(piece, width);
    line = inside.pop()!;
    lines.push(...inside);
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/** Cells side by side, each wrapped in its column (or already in lines): as many lines as the tallest. */
function row(cells: Array<string | string[]>, widths: number[]): string[] {
  const wrapped = cells.map((c, i) => (typeof c === 'string' ? wrap(c, widths[i]!) : c));
  const height = Math.max(...wrapped.map((w) => w.length));
  const out: string[] = [];
  for (let l = 0; l < height; l++) {
    out.push(wrapped.map((w, i) => (w[l] ?? '').padEnd(widths[i]!)).join(GAP).trimEnd());
  }
  return out;
}

/**
 * A language's translations, one list per engine, a group per route: `⇄ es`
 * (to and from es), `→ ca` (to ca only), `← gl` (from gl only), `⇄ en fr via es`.
 */
export function translations(l: Pick<LanguageReport, 'to' | 'from'>): Array<{ engine: string; groups: string[] }> {
  const key = (r: LanguageRoute) => `${r.engine}\u0000${r.via ?? ''}`;
  const groups = new Map<string, { engine: string; via: string | null; both: string[]; to: string[]; from: string[] }>();
  const group = (r: LanguageRoute) => {
    let g = groups.get(key(r));
    if (!g) groups.set(key(r), g = { engine: r.engine, via: r.via, both: [], to: [], from: [] });
    return g;
  };
  const from = new Map(l.from.map((r) => [`${key(r)}\u0000${r.lang}`, r]));
  for (const r of l.to) {
    const back = `${key(r)}\u0000${r.lang}`;
    if (from.delete(back)) group(r).both.push(r.lang);
    else group(r).to.push(r.lang);
  }
  for (const r of from.values()) group(r).from.push(r.lang);
  const engines = [...new Set([...groups.values()].map((g) => g.engine))];
  return engines.map((engine) => {
    const out: string[] = [];
    // Its direct translations first, then each pivot's.
    const mine = [...groups.values()].filter((g) => g.engine === engine).sort((a, b) => (a.via ?? '').localeCompare(b.via ?? ''));
    for (const g of mine) {
      const via = g.via ? ` via ${g.via}` : '';
      for (const [arrow, langs] of [['⇄', g.both], ['→', g.to], ['←', g.from]] as const) {
        if (langs.length) out.push(`${arrow} ${langs.join(' ')}${via}`);
      }
    }
    return { engine, groups: out };
  });
}

function engineLine(kind: string, e: { name: string; answers: boolean; latency_ms: number | null; error: string | null }, where: string | null, width: number): string[] {
  const head = `  ${kind.padEnd(11)} ${e.name.padEnd(15)} `;
  const error = (e.error ?? 'no reason given').replace(/\.$/, '');
  // Where it runs, unless its error says so already.
  const at = where && !error.includes(where) ? ` (${where})` : '';
  const text = e.answers ? `answers${e.latency_ms !== null ? ` in ${e.latency_ms} ms` : ''}${at}.` : `does not work${at}: ${error}.`;
  return wrap(text, width - head.length).map((l, i) => (i === 0 ? head : ' '.repeat(head.length)) + l);
}

/** The report as text for a person, `width` columns wide (clamped to 72–100). */
export function enginesTable(r: EnginesReport, width = 100): string {
  width = Math.max(72, Math.min(100, width));
  const widths = [...COLUMNS.map((c) => c.width), width - COLUMNS.reduce((n, c) => n + c.width + GAP.length, 0)];
  const out: string[] = [];
  const translating = r.translate.some((e) => e.answers);
  const shown = r.languages.filter((l) => SAMPLE_LANGS.includes(l.lang) || l.to.length > 0 || l.from.length > 0);
  const rest = r.languages.filter((l) => !shown.includes(l) && (l.recognize.length > 0 || l.speech));
  shown.sort((a, b) => a.name.localeCompare(b.name));

  out.push('What a person can do in each language with the engines that answer:', '');
  const legend: Array<[string, string]> = [
    ['speak (mic)', 'the recognizer that hears it from a microphone or a phone line'],
    ['read aloud', 'the voice that speaks it'],
    ['translate', '⇄ to and from, → to only, ← from only, by the engine named; "via es": through Spanish'],
  ];
  for (const [what, means] of legend) out.push(...wrap(means, width - 14).map((l, i) => `${(i === 0 ? what : '').padEnd(14)}${l}`));
  out.push('');
  out.push(...row([...COLUMNS.map((c) => c.title), 'translate to / from'], widths));
  out.push(widths.map((w) => '-'.repeat(w)).join(GAP));
  for (const l of shown) {
    // Each engine's translations on lines of their own, broken between its groups.
    const cell = translations(l).flatMap((t) => wrapParts(t.groups.map((g, i) => (i === 0 ? `${t.engine}: ${g}` : g)), '; ', widths[3]!));
    out.push(...row([`${l.lang} ${l.name}`, l.recognize.join(', ') || '-', l.speech ?? '-', cell.length ? cell : '-'], widths));
  }
  if (!translating) out.push('', ...wrap('No translation engine answers: each phrase is shown, and read aloud, in the language it was said in.', width));

  // The others, grouped by what they have (usually: read aloud, nothing else).
  const byWhat = new Map<string, string[]>();
  for (const l of rest) {
    const what = [
      l.recognize.length ? `heard by ${l.recognize.join(', ')}` : '',
      l.speech ? `read aloud by ${l.speech}` : '',
    ].filter(Boolean).join(' and ');
    byWhat.set(what, [...(byWhat.get(what) ?? []), l.lang]);
  }
  for (const [what, langs] of byWhat) {
    out.push('', ...wrap(`${langs.length} more ${langs.length === 1 ? 'language' : 'languages'}, ${what}, not translated: ${langs.join(' ')}`, width));
  }

  out.push('', 'Engines:');
  const where = (e: EngineReport) => e.url || null;
  const spoken = (e: SpeechReport) => e.runs ?? e.url;
  if (r.translate.length === 0) out.push('  translate   none configured (TOLK_TRANSLATE)');
  for (const e of r.translate) out.push(...engineLine('translate', e, where(e), width));
  if (r.recognize.length === 0) out.push('  microphone  none configured (TOLK_RECOGNIZE)');
  for (const e of r.recognize) out.push(...engineLine('microphone', e, e.url, width));
  if (r.speech.length === 0) out.push('  read aloud  none configured (TOLK_SPEECH_ENGINES)');
  for (const e of r.speech) out.push(...engineLine('read aloud', e, spoken(e), width));
  return `${out.join('\n')}\n`;
}
