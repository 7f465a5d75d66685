import { DateTime } from 'luxon';

// The language of the public pages and of the mails a person gets: one of
// the languages the message tables are written in (en, pt, es, de, fr),
// chosen from what is known of the person (a booking guest's `locale`, a
// voice's `language`, a join link's language, the browser's
// Accept-Language), English when none of it is one of them.
//
// A Locale keeps the person's own tag where it names that language (pt-BR,
// pt-PT, de-AT), so dates read as they do where the person lives; English
// with no region is written as en-GB (24-hour clock, day before month), as
// the pages always did.

export const LANGS = ['en', 'pt', 'es', 'de', 'fr'] as const;
export type Lang = (typeof LANGS)[number];

export type Locale = {
  /** The message table. */
  lang: Lang;
  /** For `<html lang>` and the pages' scripts: the person's tag (pt-BR), else the language (pt). */
  tag: string;
  /** For Intl and luxon: the tag, with English given a region (en-GB). */
  intl: string;
};

export const ENGLISH: Locale = { lang: 'en', tag: 'en', intl: 'en-GB' };

function isLang(x: string): x is Lang {
  return (LANGS as readonly string[]).includes(x);
}

/** A tag such as `pt-BR` as a Locale, or null when it is not one of LANGS (or not a tag). */
export function localeOf(tag: string | null | undefined): Locale | null {
  if (!tag) return null;
  const m = /^([A-Za-z]{2,3})(?:[-_]([A-Za-z]{2}|\d{3}))?(?:[-_].*)?$/.exec(tag.trim());
  if (!m) return null;
  const lang = m[1]!.toLowerCase();
  if (!isLang(lang)) return null;
  let full = m[2] ? `${lang}-${m[2].toUpperCase()}` : lang;
  try {
    full = Intl.getCanonicalLocales(full)[0] ?? lang;
  } catch {
    full = lang;
  }
  return { lang, tag: full, intl: full === 'en' ? 'en-GB' : full };
}

/** The first of the candidates that is one of LANGS; English when none is. */
export function pickLocale(...candidates: Array<string | null | undefined>): Locale {
  for (const c of candidates) {
    const l = localeOf(c);
    if (l) return l;
  }
  return ENGLISH;
}

/**
 * The browser's preferred language among LANGS, from an Accept-Language
 * header (`pt-BR,pt;q=0.9,en;q=0.8`), by quality; null when none is.
 */
export function acceptedLocale(header: string | string[] | null | undefined): Locale | null {
  const h = Array.isArray(header) ? header.join(',') : header;
  if (!h) return null;
  const ranges = h.split(',').slice(0, 32).map((part, i) => {
    const [range, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
    return { range: (range ?? '').trim(), q: q ? Number(q[1]) : 1, i };
  }).filter((r) => r.range && r.range !== '*' && r.q > 0 && Number.isFinite(r.q));
  ranges.sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranges) {
    const l = localeOf(r.range);
    if (l) return l;
  }
  return null;
}

const DATE_TIME = { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' } as const;
const DATE = { day: 'numeric', month: 'long', year: 'numeric' } as const;
const TIME = { hour: '2-digit', minute: '2-digit' } as const;

function at(d: Date, zone: string, l: Locale): DateTime {
  return DateTime.fromJSDate(d, { zone }).setLocale(l.intl);
}

/** "terça-feira, 1 de dezembro de 2026 às 11:00", "Tuesday 1 December 2026 at 11:00": day and time in zone, in the locale's words. */
export function dateTime(d: Date, zone: string, l: Locale): string {
  return at(d, zone, l).toLocaleString(DATE_TIME);
}

/** "1 de dezembro de 2026". */
export function dateOnly(d: Date, zone: string, l: Locale): string {
  return at(d, zone, l).toLocaleString(DATE);
}

/** "11:00". */
export function timeOnly(d: Date, zone: string, l: Locale): string {
  return at(d, zone, l).toLocaleString(TIME);
}

/** Start and end of a meeting in zone: the end as a time only when it is the same day. */
export function dateTimeRange(start: Date, end: Date, zone: string, l: Locale): string {
  const a = at(start, zone, l);
  const b = at(end, zone, l);
  return `${a.toLocaleString(DATE_TIME)}–${a.hasSame(b, 'day') ? b.toLocaleString(TIME) : b.toLocaleString(DATE_TIME)}`;
}

/** A language's name in the locale's words ("português (pt-BR)"); the code itself when Intl does not know it. */
export function languageName(code: string, l: Locale): string {
  try {
    const name = new Intl.DisplayNames([l.intl], { type: 'language' }).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

/** `{name}` placeholders of a message filled in (for the texts the pages' scripts fill). */
export function fill(message: string, values: Record<string, string | number>): string {
  return message.replace(/\{(\w+)\}/g, (all, k: string) => (k in values ? String(values[k]) : all));
}
