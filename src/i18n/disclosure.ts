// The AI disclosure that opens every call (EU AI Act art. 50; FCC 24-17):
// the first thing the callee hears, in the call's remote language. Its fixed
// wording in the languages it has been written in; a call in another
// language hears the English wording translated by the engines when one
// covers it, else the English wording as it is (calls/line.ts): never the
// simulator's marked form. A log keeps the wording it was given in, never a
// translation of it, and reads it in each language like an announcement.

export const DISCLOSURE: Readonly<Record<string, string>> = Object.freeze({
  en: 'Hello, this is {name}, an AI assistant. You are speaking with an artificial intelligence, not a person.',
  es: 'Hola, soy {name}, un asistente de IA. Está hablando con una inteligencia artificial, no con una persona.',
  pt: 'Olá, aqui é {name}, um assistente de IA. Você está falando com uma inteligência artificial, não com uma pessoa.',
  fr: "Bonjour, ici {name}, un assistant IA. Vous parlez à une intelligence artificielle, pas à une personne.",
  de: 'Hallo, hier ist {name}, ein KI-Assistent. Sie sprechen mit einer künstlichen Intelligenz, nicht mit einem Menschen.',
  it: 'Salve, sono {name}, un assistente IA. Sta parlando con un’intelligenza artificiale, non con una persona.',
  nl: 'Hallo, dit is {name}, een AI-assistent. U spreekt met een kunstmatige intelligentie, niet met een mens.',
});

const withName = (template: string, name: string) => template.split('{name}').join(name);

/** The disclosure's fixed wording in lang (any tag: `pt-BR` reads pt), or null where it has none. */
export function fixedDisclosure(name: string, lang: string): string | null {
  const key = lang.trim().toLowerCase().split(/[-_]/, 1)[0] ?? '';
  // hasOwn, not `in` or indexing: `constructor` is no language.
  return Object.hasOwn(DISCLOSURE, key) ? withName(DISCLOSURE[key]!, name) : null;
}

/** The disclosure in lang where it has a fixed wording, else in English (never marked). */
export function disclosure(name: string, lang: string): string {
  return fixedDisclosure(name, lang) ?? withName(DISCLOSURE.en!, name);
}

/** The disclosure as a log keeps it: its fixed wording in lang, else the English one, with the language it is in. */
export function disclosureOfRecord(name: string, lang: string): { text: string; lang: string } {
  const fixed = fixedDisclosure(name, lang);
  return fixed ? { text: fixed, lang } : { text: disclosure(name, 'en'), lang: 'en' };
}
