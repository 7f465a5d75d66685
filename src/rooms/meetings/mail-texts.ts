import { DateTime } from 'luxon';
import { dateTime, pickLocale, type Lang, type Locale } from '../../i18n/lang.ts';

// The words of a meeting's mails (rooms/meetings/invitations.ts), in the guest's
// language: a booking guest's `locale`, a booking host's language, else
// English (an invitee of POST /v1/meetings: the API has no language for
// them). en, pt, es, de, fr; English for any other.

export type MeetingMailKind = 'invitation' | 'update' | 'cancellation' | 'reminder_24h' | 'reminder_15m';

type MeetingTexts = {
  subject: Record<MeetingMailKind, (title: string, start: string) => string>;
  invites: (organizer: string) => string;
  canceled: (organizer: string) => string;
  when: (start: string, minutes: number) => string;
  yourTime: (start: string) => string;
  inUtc: (utc: string) => string;
  join: (link: string) => string;
  eachOwn: string;
};

const en: MeetingTexts = {
  subject: {
    invitation: (title, start) => `Invitation: ${title} @ ${start}`,
    update: (title, start) => `Updated invitation: ${title} @ ${start}`,
    cancellation: (title, start) => `Canceled: ${title} @ ${start}`,
    reminder_24h: (title, start) => `Reminder: ${title} tomorrow @ ${start}`,
    reminder_15m: (title) => `Starting in 15 minutes: ${title}`,
  },
  invites: (o) => `${o} invites you to a meeting with live translation.`,
  canceled: (o) => `${o} canceled this meeting.`,
  when: (start, n) => `When: ${start}, ${n} minutes`,
  yourTime: (start) => `Your time: ${start}`,
  inUtc: (utc) => `In UTC: ${utc}`,
  join: (link) => `Join: ${link}`,
  eachOwn: 'Each participant speaks and hears their own language.',
};

const pt: MeetingTexts = {
  subject: {
    invitation: (title, start) => `Convite: ${title} – ${start}`,
    update: (title, start) => `Convite atualizado: ${title} – ${start}`,
    cancellation: (title, start) => `Cancelada: ${title} – ${start}`,
    reminder_24h: (title, start) => `Lembrete: ${title} amanhã – ${start}`,
    reminder_15m: (title) => `Começa em 15 minutos: ${title}`,
  },
  invites: (o) => `${o} convida você para uma reunião com tradução em tempo real.`,
  canceled: (o) => `${o} cancelou esta reunião.`,
  when: (start, n) => `Quando: ${start}, ${n} minutos`,
  yourTime: (start) => `No seu horário: ${start}`,
  inUtc: (utc) => `Em UTC: ${utc}`,
  join: (link) => `Entrar: ${link}`,
  eachOwn: 'Cada participante fala e ouve no seu próprio idioma.',
};

const es: MeetingTexts = {
  subject: {
    invitation: (title, start) => `Invitación: ${title} – ${start}`,
    update: (title, start) => `Invitación actualizada: ${title} – ${start}`,
    cancellation: (title, start) => `Cancelada: ${title} – ${start}`,
    reminder_24h: (title, start) => `Recordatorio: ${title} mañana – ${start}`,
    reminder_15m: (title) => `Empieza en 15 minutos: ${title}`,
  },
  invites: (o) => `${o} te invita a una reunión con traducción en directo.`,
  canceled: (o) => `${o} ha cancelado esta reunión.`,
  when: (start, n) => `Cuándo: ${start}, ${n} minutos`,
  yourTime: (start) => `En tu hora: ${start}`,
  inUtc: (utc) => `En UTC: ${utc}`,
  join: (link) => `Entrar: ${link}`,
  eachOwn: 'Cada participante habla y escucha en su propio idioma.',
};

const de: MeetingTexts = {
  subject: {
    invitation: (title, start) => `Einladung: ${title} – ${start}`,
    update: (title, start) => `Geänderte Einladung: ${title} – ${start}`,
    cancellation: (title, start) => `Abgesagt: ${title} – ${start}`,
    reminder_24h: (title, start) => `Erinnerung: ${title} morgen – ${start}`,
    reminder_15m: (title) => `Beginnt in 15 Minuten: ${title}`,
  },
  invites: (o) => `${o} lädt Sie zu einer Besprechung mit Live-Übersetzung ein.`,
  canceled: (o) => `${o} hat diese Besprechung abgesagt.`,
  when: (start, n) => `Wann: ${start}, ${n} Minuten`,
  yourTime: (start) => `Ihre Zeit: ${start}`,
  inUtc: (utc) => `In UTC: ${utc}`,
  join: (link) => `Teilnehmen: ${link}`,
  eachOwn: 'Alle Teilnehmenden sprechen und hören ihre eigene Sprache.',
};

const fr: MeetingTexts = {
  subject: {
    invitation: (title, start) => `Invitation : ${title} – ${start}`,
    update: (title, start) => `Invitation modifiée : ${title} – ${start}`,
    cancellation: (title, start) => `Annulée : ${title} – ${start}`,
    reminder_24h: (title, start) => `Rappel : ${title} demain – ${start}`,
    reminder_15m: (title) => `Dans 15 minutes : ${title}`,
  },
  invites: (o) => `${o} vous invite à une réunion avec traduction en direct.`,
  canceled: (o) => `${o} a annulé cette réunion.`,
  when: (start, n) => `Quand : ${start}, ${n} minutes`,
  yourTime: (start) => `Votre heure : ${start}`,
  inUtc: (utc) => `En UTC : ${utc}`,
  join: (link) => `Rejoindre : ${link}`,
  eachOwn: 'Chaque participant parle et entend sa propre langue.',
};

const TEXTS: Record<Lang, MeetingTexts> = { en, pt, es, de, fr };

/** A meeting's start in tz as the mail says it: "Tuesday 1 December 2026, 14:00 (Europe/Lisbon)", "terça-feira, 1 de dezembro de 2026 às 14:00 (Europe/Lisbon)". */
function when(start: Date, tz: string, l: Locale): string {
  const text = l.lang === 'en' ? DateTime.fromJSDate(start, { zone: tz }).toFormat('cccc d LLLL yyyy, HH:mm') : dateTime(start, tz, l);
  return `${text} (${tz})`;
}

export type MeetingMailFor = {
  kind: MeetingMailKind;
  /** The guest's language tag (pt-BR), if known. */
  locale?: string | undefined;
  organizer: string;
  title: string;
  start: Date;
  durationMin: number;
  /** The meeting's (host's) zone, and the guest's when known (then the subject's). */
  tz: string;
  guestTz?: string | undefined;
  link: string;
};

/** The subject and text of one guest's mail. */
export function meetingMailText(m: MeetingMailFor): { subject: string; text: string; lang: Lang } {
  const l = pickLocale(m.locale);
  const t = TEXTS[l.lang];
  const hostTime = when(m.start, m.tz, l);
  const guestTime = m.guestTz && m.guestTz !== m.tz ? when(m.start, m.guestTz, l) : null;
  const utc = `${m.start.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const lines = [
    m.kind === 'cancellation' ? t.canceled(m.organizer) : t.invites(m.organizer),
    '',
    m.title,
    t.when(hostTime, m.durationMin) + (guestTime ? `\n${t.yourTime(guestTime)}` : ''),
    t.inUtc(utc),
    ...(m.kind === 'cancellation' ? [] : ['', t.join(m.link), '', t.eachOwn]),
  ];
  // The subject is the time the reader lives by, as the body's "Your time" line:
  // a booking's guest their own zone, anyone else (the host, a meeting's invitee) the meeting's.
  return { subject: t.subject[m.kind](m.title, guestTime ?? hostTime), text: lines.join('\n'), lang: l.lang };
}
