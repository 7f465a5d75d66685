import { DateTime } from 'luxon';
import { CONSENT, type ConsentTexts } from '../i18n/consent.ts';
import { dateTime, pickLocale, type Locale } from '../i18n/lang.ts';

// What the person whose voice is asked for reads: the consent sentence they
// record, and the mails of the consent flow. The sentence exists in
// Portuguese, English and Spanish (api.md); a voice in any other language is
// consented to by reading the English one. The mails are in the voice's
// language where the pages and mails are written in it (i18n/consent.ts:
// en, pt, es, de, fr), else in English.

export type SentenceLang = 'pt' | 'en' | 'es';

/** The language of the sentence read for a voice in `language` (pt-BR reads pt; fr reads en). */
export function sentenceLang(language: string): SentenceLang {
  const base = language.toLowerCase().split('-')[0];
  return base === 'pt' || base === 'es' ? base : 'en';
}

export type SentenceFor = { person: string; org: string; voice: string; date: Date };

/**
 * The sentence the person reads aloud: who they are, who may make the copy
 * of their voice, its name, that they may withdraw, and the day (a recording
 * made for another request or another day does not say the same thing).
 */
export function consentSentence(language: string, f: SentenceFor): { lang: SentenceLang; text: string } {
  const lang = sentenceLang(language);
  const day = sentenceDay(lang, f.date);
  switch (lang) {
    case 'pt':
      return { lang, text: `Eu, ${f.person}, autorizo ${f.org} a criar e usar uma cópia sintética da minha voz chamada "${f.voice}". Sei que posso retirar este consentimento a qualquer momento. Hoje é ${day}.` };
    case 'es':
      return { lang, text: `Yo, ${f.person}, autorizo a ${f.org} a crear y usar una copia sintética de mi voz llamada "${f.voice}". Sé que puedo retirar este consentimiento en cualquier momento. Hoy es ${day}.` };
    default:
      return { lang, text: `I, ${f.person}, agree that ${f.org} may create and use a synthetic copy of my voice called "${f.voice}". I know I can withdraw this consent at any time. Today is ${day}.` };
  }
}

/** The day as the consent sentence says it ("25 November 2026", "25 de novembro de 2026"). */
export function sentenceDay(lang: SentenceLang, date: Date): string {
  return DateTime.fromJSDate(date, { zone: 'UTC' }).setLocale(lang === 'en' ? 'en-GB' : lang).toLocaleString(DateTime.DATE_FULL);
}

/** What a cloned voice is used for, said to the person before they agree (in English). */
export const VOICE_USE = CONSENT.en.voiceUse;

/** The language of the consent pages and mails of a voice in `language` (pt-BR: Portuguese, as in Brazil; ja: English). */
export function consentLocale(language: string | null | undefined): Locale {
  return pickLocale(language);
}

/** The consent flow's texts for a voice in `language`. */
export function consentTexts(language: string | null | undefined): ConsentTexts {
  return CONSENT[consentLocale(language).lang];
}

/** A day and time in UTC, in the locale's words, said to be UTC. */
export function utcDateTime(d: Date, l: Locale): string {
  return `${dateTime(d, 'UTC', l)} UTC`;
}

type Mail = { subject: string; text: string };

export type RequestMailFor = { person: string; org: string; voice: string; purpose: string | null; url: string; expiresAt: Date; language: string };

/** The request: the consent link, sent when the voice is asked for. */
export function requestMail(m: RequestMailFor): Mail {
  const l = consentLocale(m.language);
  const t = CONSENT[l.lang].mail;
  return {
    subject: t.requestSubject(m.org),
    text: [
      t.hello(m.person),
      '',
      t.requestAsks(m.org, m.voice),
      ...(m.purpose ? [t.requestWhy(m.purpose)] : []),
      '',
      CONSENT[l.lang].voiceUse,
      '',
      t.requestHow,
      m.url,
      '',
      t.requestUntil(utcDateTime(m.expiresAt, l), m.org),
    ].join('\n'),
  };
}

/** The one-time code that proves the person reads this address. */
export function codeMail(m: { code: string; org: string; minutes: number; language: string }): Mail {
  const t = consentTexts(m.language).mail;
  return {
    subject: t.codeSubject(m.code),
    text: [t.codeIntro(m.org), '', `    ${m.code}`, '', t.codeWorks(m.minutes)].join('\n'),
  };
}

/** The receipt of the consent, with the link that withdraws it at any time. */
export function confirmationMail(m: { person: string; org: string; voice: string; sentence: string; at: Date; revokeUrl: string; language: string }): Mail {
  const l = consentLocale(m.language);
  const t = CONSENT[l.lang].mail;
  return {
    subject: t.confirmationSubject(m.org),
    text: [
      t.hello(m.person),
      '',
      t.confirmationAgreed(utcDateTime(m.at, l), m.org, m.voice),
      '',
      `    "${m.sentence}"`,
      '',
      t.confirmationWithdraw,
      m.revokeUrl,
      '',
      t.confirmationAfter,
    ].join('\n'),
  };
}

/** The receipt of a withdrawal (by the person or by the organization). */
export function revokedMail(m: { person: string; org: string; voice: string; byPerson: boolean; language: string }): Mail {
  const t = consentTexts(m.language).mail;
  return {
    subject: t.revokedSubject(m.org),
    text: [
      t.hello(m.person),
      '',
      m.byPerson ? t.revokedByPerson(m.voice) : t.revokedByOrg(m.org, m.voice),
      t.revokedAfter,
    ].join('\n'),
  };
}
