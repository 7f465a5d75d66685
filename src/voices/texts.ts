import { DateTime } from 'luxon';

// What the person whose voice is asked for reads: the consent sentence they
// record, and the mails of the consent flow. The sentence exists in
// Portuguese, English and Spanish (api.md); a voice in any other language is
// consented to by reading the English one. Mails are in English, with the
// sentence in the voice's language quoted where it matters.

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

/** What a cloned voice is used for, said to the person before they agree. */
export const VOICE_USE =
  'A synthetic copy of your voice can say any text the organization sends, in live translated conversations: its AI agents in rooms and its translated phone calls. ' +
  'Every agent that speaks with it tells the people it talks to that it is an AI.';

function day(d: Date): string {
  return `${DateTime.fromJSDate(d, { zone: 'UTC' }).toFormat('d LLLL yyyy, HH:mm')} UTC`;
}

type Mail = { subject: string; text: string };

export type RequestMailFor = { person: string; org: string; voice: string; purpose: string | null; url: string; expiresAt: Date };

/** The request: the consent link, sent when the voice is asked for. */
export function requestMail(m: RequestMailFor): Mail {
  return {
    subject: `${m.org} asks for your consent to copy your voice`,
    text: [
      `Hello ${m.person},`,
      '',
      `${m.org} asks for your permission to create a synthetic copy of your voice, called "${m.voice}".`,
      ...(m.purpose ? [`They say why: ${m.purpose}`] : []),
      '',
      VOICE_USE,
      '',
      'Nothing happens without you. If you agree, open this link, confirm this address with a code we send to it, and read one sentence aloud:',
      m.url,
      '',
      `The link works until ${day(m.expiresAt)}. If you do not know ${m.org} or do not want this, ignore this mail: the request lapses by itself.`,
    ].join('\n'),
  };
}

/** The one-time code that proves the person reads this address. */
export function codeMail(m: { code: string; org: string; minutes: number }): Mail {
  return {
    subject: `Your code: ${m.code}`,
    text: [
      `Your code to continue the voice consent asked for by ${m.org} is:`,
      '',
      `    ${m.code}`,
      '',
      `It works for ${m.minutes} minutes, once. If you did not ask for it, ignore this mail: nobody can continue without it.`,
    ].join('\n'),
  };
}

/** The receipt of the consent, with the link that withdraws it at any time. */
export function confirmationMail(m: { person: string; org: string; voice: string; sentence: string; at: Date; revokeUrl: string }): Mail {
  return {
    subject: `You gave ${m.org} consent to copy your voice`,
    text: [
      `Hello ${m.person},`,
      '',
      `On ${day(m.at)} you agreed that ${m.org} may create and use a synthetic copy of your voice, called "${m.voice}", by reading:`,
      '',
      `    "${m.sentence}"`,
      '',
      'You can withdraw this consent at any time, without an account, by opening this link and confirming:',
      m.revokeUrl,
      '',
      'Once withdrawn, the voice stops working at once, also in conversations already under way, and your recording is deleted. Keep this mail.',
    ].join('\n'),
  };
}

/** The receipt of a withdrawal (by the person or by the organization). */
export function revokedMail(m: { person: string; org: string; voice: string; byPerson: boolean }): Mail {
  return {
    subject: `The copy of your voice for ${m.org} was withdrawn`,
    text: [
      `Hello ${m.person},`,
      '',
      m.byPerson
        ? `As you asked, your consent for the voice "${m.voice}" is withdrawn.`
        : `${m.org} withdrew the voice "${m.voice}" it had made with your consent.`,
      'The voice can no longer be used, and your recording was deleted.',
    ].join('\n'),
  };
}
