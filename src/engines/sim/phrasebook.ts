// The test-mode robots' phrasebook (operator.md, Test-mode simulator): short
// things people say in meetings, each with a real translation in every
// supported language, so a test-mode session hears natural text in its
// hear_lang. Free text (an agent's `say`) has no such translation; test
// mode shows it in the marked form below where no engine translates it
// (translator.ts). The robots who say the phrases are src/sim/'s.
//
// Conventions: ASCII apostrophes, French with a plain space before ? and !,
// Spanish with opening ¿ and ¡, Portuguese as spoken in Brazil. Within each
// language every phrase is different (a phrase is found by its text), and no
// translation is identical to the English.
//
// This module imports nothing, so translator.ts can build on it without an
// import cycle; that is why the language helpers and the marked form live here.

/** Languages every phrase (and the announcement) is written in. */
export const SUPPORTED_LANGS = ['en', 'es', 'pt', 'fr', 'de', 'it', 'nl'] as const;
export type SupportedLang = (typeof SUPPORTED_LANGS)[number];

type Entry = { reply: boolean; text: Readonly<Record<SupportedLang, string>> };

const ENTRIES: readonly Entry[] = [
  { reply: false, text: {
    en: 'Good morning, everyone.',
    es: 'Buenos días a todos.',
    pt: 'Bom dia a todos.',
    fr: 'Bonjour à tous.',
    de: 'Guten Morgen zusammen.',
    it: 'Buongiorno a tutti.',
    nl: 'Goedemorgen allemaal.',
  } },
  { reply: false, text: {
    en: 'Hello, can everyone hear me?',
    es: 'Hola, ¿me escuchan todos?',
    pt: 'Olá, todos estão me ouvindo?',
    fr: "Bonjour, est-ce que tout le monde m'entend ?",
    de: 'Hallo, können mich alle hören?',
    it: 'Ciao, mi sentite tutti?',
    nl: 'Hallo, kan iedereen mij horen?',
  } },
  { reply: false, text: {
    en: 'Thank you all for joining.',
    es: 'Gracias a todos por acompañarnos.',
    pt: 'Obrigado a todos pela presença.',
    fr: "Merci à tous d'être là.",
    de: 'Vielen Dank, dass Sie alle dabei sind.',
    it: 'Grazie a tutti per la partecipazione.',
    nl: 'Bedankt dat jullie er allemaal zijn.',
  } },
  { reply: false, text: {
    en: 'What is on the agenda today?',
    es: '¿Qué tenemos en la agenda hoy?',
    pt: 'O que temos na pauta hoje?',
    fr: "Qu'est-ce qui est à l'ordre du jour aujourd'hui ?",
    de: 'Was steht heute auf der Tagesordnung?',
    it: "Cosa c'è all'ordine del giorno oggi?",
    nl: 'Wat staat er vandaag op de agenda?',
  } },
  { reply: false, text: {
    en: "Let's start with a quick round of updates.",
    es: 'Empecemos con una breve ronda de novedades.',
    pt: 'Vamos começar com uma rápida rodada de atualizações.',
    fr: 'Commençons par un rapide tour de table.',
    de: 'Beginnen wir mit einer kurzen Statusrunde.',
    it: 'Iniziamo con un breve giro di aggiornamenti.',
    nl: 'Laten we beginnen met een kort rondje updates.',
  } },
  { reply: false, text: {
    en: 'Could you repeat that, please?',
    es: '¿Podrías repetirlo, por favor?',
    pt: 'Você poderia repetir, por favor?',
    fr: "Pourriez-vous répéter, s'il vous plaît ?",
    de: 'Könnten Sie das bitte wiederholen?',
    it: 'Potresti ripeterlo, per favore?',
    nl: 'Kun je dat herhalen, alsjeblieft?',
  } },
  { reply: false, text: {
    en: 'I agree with that plan.',
    es: 'Estoy de acuerdo con ese plan.',
    pt: 'Concordo com esse plano.',
    fr: "Je suis d'accord avec ce plan.",
    de: 'Ich bin mit diesem Plan einverstanden.',
    it: "Sono d'accordo con questo piano.",
    nl: 'Ik ben het met dat plan eens.',
  } },
  { reply: false, text: {
    en: "Let's move on to the next item.",
    es: 'Pasemos al siguiente punto.',
    pt: 'Vamos passar para o próximo item.',
    fr: 'Passons au point suivant.',
    de: 'Kommen wir zum nächsten Punkt.',
    it: 'Passiamo al punto successivo.',
    nl: 'Laten we doorgaan naar het volgende punt.',
  } },
  { reply: false, text: {
    en: 'What time works for you tomorrow?',
    es: '¿A qué hora te viene bien mañana?',
    pt: 'Que horário fica bom para você amanhã?',
    fr: 'Quelle heure vous convient demain ?',
    de: 'Welche Uhrzeit passt Ihnen morgen?',
    it: 'A che ora ti va bene domani?',
    nl: 'Hoe laat komt het je morgen uit?',
  } },
  { reply: false, text: {
    en: 'Can we schedule a follow-up meeting next week?',
    es: '¿Podemos programar una reunión de seguimiento la próxima semana?',
    pt: 'Podemos marcar uma reunião de acompanhamento na próxima semana?',
    fr: 'Pouvons-nous prévoir une réunion de suivi la semaine prochaine ?',
    de: 'Können wir nächste Woche ein Folgetreffen ansetzen?',
    it: 'Possiamo fissare un altro incontro la settimana prossima?',
    nl: 'Kunnen we volgende week een vervolgoverleg inplannen?',
  } },
  { reply: false, text: {
    en: "I'm available on Thursday afternoon.",
    es: 'Estoy disponible el jueves por la tarde.',
    pt: 'Estou disponível na quinta-feira à tarde.',
    fr: 'Je suis disponible jeudi après-midi.',
    de: 'Ich habe am Donnerstagnachmittag Zeit.',
    it: 'Sono disponibile giovedì pomeriggio.',
    nl: 'Ik ben donderdagmiddag beschikbaar.',
  } },
  { reply: false, text: {
    en: 'Can we push this to Friday?',
    es: '¿Podemos pasarlo al viernes?',
    pt: 'Podemos adiar isso para sexta-feira?',
    fr: 'Pouvons-nous reporter cela à vendredi ?',
    de: 'Können wir das auf Freitag verschieben?',
    it: 'Possiamo spostarlo a venerdì?',
    nl: 'Kunnen we dit naar vrijdag verschuiven?',
  } },
  { reply: false, text: {
    en: 'The deadline is the end of the month.',
    es: 'La fecha límite es a fin de mes.',
    pt: 'O prazo termina no fim do mês.',
    fr: 'La date limite est la fin du mois.',
    de: 'Die Frist läuft Ende des Monats ab.',
    it: 'La scadenza è a fine mese.',
    nl: 'De deadline is aan het eind van de maand.',
  } },
  { reply: false, text: {
    en: 'Does anyone have any questions?',
    es: '¿Alguien tiene alguna pregunta?',
    pt: 'Alguém tem alguma pergunta?',
    fr: "Est-ce que quelqu'un a des questions ?",
    de: 'Hat jemand Fragen?',
    it: 'Qualcuno ha delle domande?',
    nl: 'Heeft iemand nog vragen?',
  } },
  { reply: false, text: {
    en: 'Let me share my screen.',
    es: 'Voy a compartir mi pantalla.',
    pt: 'Vou compartilhar minha tela.',
    fr: 'Je vais partager mon écran.',
    de: 'Ich teile kurz meinen Bildschirm.',
    it: 'Condivido il mio schermo.',
    nl: 'Ik deel even mijn scherm.',
  } },
  { reply: false, text: {
    en: 'Sorry, I was on mute.',
    es: 'Perdón, tenía el micrófono silenciado.',
    pt: 'Desculpe, eu estava no mudo.',
    fr: 'Désolé, mon micro était coupé.',
    de: 'Entschuldigung, ich war stummgeschaltet.',
    it: 'Scusate, avevo il microfono disattivato.',
    nl: 'Sorry, mijn microfoon stond uit.',
  } },
  { reply: false, text: {
    en: 'Who is taking notes today?',
    es: '¿Quién toma notas hoy?',
    pt: 'Quem vai fazer as anotações hoje?',
    fr: "Qui prend les notes aujourd'hui ?",
    de: 'Wer schreibt heute das Protokoll?',
    it: 'Chi prende appunti oggi?',
    nl: 'Wie notuleert er vandaag?',
  } },
  { reply: false, text: {
    en: 'We are running a bit behind schedule.',
    es: 'Vamos un poco retrasados.',
    pt: 'Estamos um pouco atrasados.',
    fr: 'Nous sommes un peu en retard.',
    de: 'Wir liegen etwas hinter dem Zeitplan.',
    it: "Siamo un po' in ritardo sulla tabella di marcia.",
    nl: 'We lopen een beetje achter op schema.',
  } },
  { reply: false, text: {
    en: 'Who is responsible for this task?',
    es: '¿Quién es responsable de esta tarea?',
    pt: 'Quem é o responsável por esta tarefa?',
    fr: 'Qui est responsable de cette tâche ?',
    de: 'Wer ist für diese Aufgabe zuständig?',
    it: 'Chi è responsabile di questo compito?',
    nl: 'Wie is er verantwoordelijk voor deze taak?',
  } },
  { reply: false, text: {
    en: 'The budget was approved yesterday.',
    es: 'El presupuesto se aprobó ayer.',
    pt: 'O orçamento foi aprovado ontem.',
    fr: 'Le budget a été approuvé hier.',
    de: 'Das Budget wurde gestern genehmigt.',
    it: 'Il budget è stato approvato ieri.',
    nl: 'Het budget is gisteren goedgekeurd.',
  } },
  { reply: false, text: {
    en: 'Could you send the slides after the meeting?',
    es: '¿Podrías enviar las diapositivas después de la reunión?',
    pt: 'Você poderia enviar os slides depois da reunião?',
    fr: 'Pourriez-vous envoyer les diapositives après la réunion ?',
    de: 'Könnten Sie die Folien nach der Besprechung schicken?',
    it: 'Potresti inviare le slide dopo la riunione?',
    nl: 'Kun je de slides na de vergadering sturen?',
  } },
  { reply: false, text: {
    en: "Let's take a five-minute break.",
    es: 'Hagamos una pausa de cinco minutos.',
    pt: 'Vamos fazer uma pausa de cinco minutos.',
    fr: 'Faisons une pause de cinq minutes.',
    de: 'Machen wir fünf Minuten Pause.',
    it: 'Facciamo una pausa di cinque minuti.',
    nl: 'Laten we vijf minuten pauze nemen.',
  } },
  { reply: false, text: {
    en: "I'm sorry, I have to leave a little early.",
    es: 'Lo siento, tengo que irme un poco antes.',
    pt: 'Desculpe, preciso sair um pouco mais cedo.',
    fr: 'Désolé, je dois partir un peu plus tôt.',
    de: 'Tut mir leid, ich muss etwas früher gehen.',
    it: "Mi dispiace, devo andare via un po' prima.",
    nl: 'Sorry, ik moet iets eerder weg.',
  } },
  { reply: false, text: {
    en: "Let's wrap up here for today.",
    es: 'Terminemos aquí por hoy.',
    pt: 'Vamos encerrar por hoje.',
    fr: "Arrêtons-nous là pour aujourd'hui.",
    de: 'Machen wir für heute hier Schluss.',
    it: 'Chiudiamo qui per oggi.',
    nl: 'Laten we het hier voor vandaag bij laten.',
  } },
  { reply: false, text: {
    en: 'Thank you, see you next time.',
    es: 'Gracias, hasta la próxima.',
    pt: 'Obrigado, até a próxima.',
    fr: 'Merci, à la prochaine.',
    de: 'Danke, bis zum nächsten Mal.',
    it: 'Grazie, alla prossima.',
    nl: 'Bedankt, tot de volgende keer.',
  } },
  // Replies: what a robot says back after someone else spoke.
  { reply: true, text: {
    en: 'That sounds good to me.',
    es: 'Me parece bien.',
    pt: 'Por mim, tudo bem.',
    fr: 'Ça me paraît bien.',
    de: 'Das klingt gut.',
    it: 'Per me va bene.',
    nl: 'Dat klinkt goed.',
  } },
  { reply: true, text: {
    en: 'Thanks, noted.',
    es: 'Gracias, tomo nota.',
    pt: 'Obrigado, anotado.',
    fr: "Merci, c'est noté.",
    de: 'Danke, ist notiert.',
    it: 'Grazie, ne prendo nota.',
    nl: 'Bedankt, genoteerd.',
  } },
  { reply: true, text: {
    en: 'Good point, let me think about it.',
    es: 'Buena observación, déjame pensarlo.',
    pt: 'Boa observação, vou pensar nisso.',
    fr: 'Bonne remarque, laissez-moi y réfléchir.',
    de: 'Guter Punkt, lassen Sie mich darüber nachdenken.',
    it: 'Buona osservazione, fammi pensare.',
    nl: 'Goed punt, ik denk er even over na.',
  } },
  { reply: true, text: {
    en: "I'm not sure I understood, could you explain?",
    es: 'No estoy seguro de haberlo entendido, ¿puedes explicarlo?',
    pt: 'Não sei se entendi, você pode explicar?',
    fr: "Je ne suis pas sûr d'avoir compris, pouvez-vous expliquer ?",
    de: 'Ich bin mir nicht sicher, ob ich das verstanden habe – können Sie es erklären?',
    it: 'Non sono sicuro di aver capito, puoi spiegare?',
    nl: 'Ik weet niet zeker of ik het begrijp, kun je het uitleggen?',
  } },
  { reply: true, text: {
    en: "I'll take care of that.",
    es: 'Yo me encargo de eso.',
    pt: 'Eu cuido disso.',
    fr: "Je m'en occupe.",
    de: 'Ich kümmere mich darum.',
    it: 'Me ne occupo io.',
    nl: 'Daar zorg ik voor.',
  } },
  { reply: true, text: {
    en: "Agreed, let's do it that way.",
    es: 'De acuerdo, hagámoslo así.',
    pt: 'Combinado, vamos fazer assim.',
    fr: "D'accord, faisons comme ça.",
    de: 'Einverstanden, machen wir es so.',
    it: "D'accordo, facciamo così.",
    nl: 'Akkoord, laten we het zo doen.',
  } },
  { reply: true, text: {
    en: 'That makes sense, thank you.',
    es: 'Tiene sentido, gracias.',
    pt: 'Faz sentido, obrigado.',
    fr: "C'est logique, merci.",
    de: 'Das ergibt Sinn, danke.',
    it: 'Ha senso, grazie.',
    nl: 'Dat is logisch, dank je.',
  } },
];

/** Every phrase, keyed by language code (each has every SUPPORTED_LANGS key). Replies included. */
export const PHRASES: ReadonlyArray<Readonly<Record<string, string>>> = Object.freeze(ENTRIES.map((e) => Object.freeze({ ...e.text })));

/** Indices into PHRASES of the phrases that make sense as a reply to something just said. */
export const REPLY_INDICES: readonly number[] = Object.freeze(ENTRIES.flatMap((e, i) => (e.reply ? [i] : [])));

/** The reply phrases themselves (the same objects as in PHRASES, at REPLY_INDICES). */
export const REPLY_PHRASES: ReadonlyArray<Readonly<Record<string, string>>> = Object.freeze(REPLY_INDICES.map((i) => PHRASES[i]!));

// --- Language codes and the marked form ----------------------------------

/**
 * The lookup key of a language tag: its primary subtag, lowercased and trimmed
 * (`en-US` → `en`, `pt_BR` → `pt`, `EN` → `en`).
 */
export function normaliseLang(lang: string): string {
  return lang.trim().toLowerCase().split(/[-_]/, 1)[0] ?? '';
}

/** Whether phrases have a real translation in this language (after normalising). */
export function isSupportedLang(lang: string): boolean {
  return (SUPPORTED_LANGS as readonly string[]).includes(normaliseLang(lang));
}

/**
 * The marked form: what the simulator gives for text it cannot translate.
 *
 *     `[${from}→${to}] ${text}`     e.g.  "[en→ja] Good morning, everyone."
 *
 * from and to are the normalised codes (normaliseLang), the arrow is U+2192,
 * one ASCII space follows the closing bracket, and text is the original,
 * byte for byte (untrimmed), so nothing is lost and the result is plainly not
 * a real translation. Deterministic: the same input always gives the same
 * output.
 */
export function markUntranslated(text: string, from: string, to: string): string {
  return `[${normaliseLang(from)}→${normaliseLang(to)}] ${text}`;
}

const MARKED = /^\[([^\s\]→]*)→([^\s\]→]*)\] ([\s\S]*)$/;

/** The parts of a text in the marked form, or null if it is not one. */
export function parseUntranslated(text: string): { from: string; to: string; text: string } | null {
  const m = MARKED.exec(text);
  return m ? { from: m[1]!, to: m[2]!, text: m[3]! } : null;
}

// --- The announcement ----------------------------------------------------

/** "An AI assistant named {name} has joined the room." in every supported language. */
export const ANNOUNCEMENT: Readonly<Record<SupportedLang, string>> = Object.freeze({
  en: 'An AI assistant named {name} has joined the room.',
  es: 'Un asistente de IA llamado {name} se ha unido a la sala.',
  pt: 'Um assistente de IA chamado {name} entrou na sala.',
  fr: 'Un assistant IA nommé {name} a rejoint la salle.',
  de: 'Ein KI-Assistent namens {name} ist dem Raum beigetreten.',
  it: 'Un assistente IA di nome {name} è entrato nella stanza.',
  nl: 'Een AI-assistent genaamd {name} is de ruimte binnengekomen.',
});

/** Puts name in place of `{name}` verbatim (no `$&`-style replacement patterns). */
export function fillName(template: string, name: string): string {
  return template.split('{name}').join(name);
}

/**
 * That an AI assistant named `name` joined, in lang (any tag: `pt-BR` reads
 * the pt wording). For a language the phrasebook lacks it is the English
 * sentence in the marked form, e.g. "[en→ja] An AI assistant named Ada has
 * joined the room.", as SimulatedTranslator.translate would give for it.
 */
export function announcement(name: string, lang: string): string {
  const key = normaliseLang(lang);
  // hasOwn, not `in` or indexing: `constructor` is no language.
  const template = Object.hasOwn(ANNOUNCEMENT, key) ? (ANNOUNCEMENT as Readonly<Record<string, string>>)[key] : undefined;
  return template !== undefined ? fillName(template, name) : markUntranslated(fillName(ANNOUNCEMENT.en, name), 'en', key);
}
