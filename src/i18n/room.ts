import type { Lang } from './lang.ts';

// What the room page says before its script takes over (rooms/page-view.ts):
// the join form, the room's headings and buttons, a meeting not yet started,
// one that is over, and the pages of a bad link. `startsBefore` and
// `startsAfter` frame the start's date and time, which the page's script
// writes again in the reader's zone and in the page's language.

export type RoomTexts = {
  room: string;
  liveNow: string;
  needsScript: string;
  yourName: string;
  iSpeak: string;
  iHear: string;
  join: string;
  leave: string;
  showOriginals: string;
  conversation: string;
  newest: string;
  saySomething: string;
  send: string;
  inTheRoom: string;
  joinAgain: string;
  ended: string;
  canceled: string;
  startsBefore: string;
  startsAfter: string;
  notStarted: string;
  keepOpen: string;
  problems: Record<'not_found' | 'bad_link' | 'private', [heading: string, text: string]>;
};

const en: RoomTexts = {
  room: 'Room',
  liveNow: 'Live now. Everyone speaks and hears their own language: the conversation is translated live.',
  needsScript: 'This page needs JavaScript to join the room.',
  yourName: 'Your name',
  iSpeak: 'I speak',
  iHear: 'I hear',
  join: 'Join',
  leave: 'Leave',
  showOriginals: 'Show what was said in its original language',
  conversation: 'Conversation',
  newest: 'Show the newest phrases ↓',
  saySomething: 'Say something',
  send: 'Send',
  inTheRoom: 'In the room',
  joinAgain: 'Join again',
  ended: 'This room has ended.',
  canceled: 'This meeting was canceled.',
  startsBefore: 'This meeting starts at ',
  startsAfter: '.',
  notStarted: 'This meeting has not started yet.',
  keepOpen: 'Keep this page open: it opens the meeting when it starts.',
  problems: {
    not_found: ['Room not found', 'There is no room at this address. Check the link you were given.'],
    bad_link: ['This join link does not work', 'The link is incomplete, was altered, or has expired. Ask the person who invited you for a new link.'],
    private: ['This room is private', 'You need a join link to enter this room. Ask the person who invited you for one.'],
  },
};

const pt: RoomTexts = {
  room: 'Sala',
  liveNow: 'Ao vivo. Cada pessoa fala e ouve no seu próprio idioma: a conversa é traduzida em tempo real.',
  needsScript: 'Esta página precisa de JavaScript para entrar na sala.',
  yourName: 'O seu nome',
  iSpeak: 'Eu falo',
  iHear: 'Eu ouço',
  join: 'Entrar',
  leave: 'Sair',
  showOriginals: 'Mostrar o que foi dito no idioma original',
  conversation: 'Conversa',
  newest: 'Mostrar as frases mais recentes ↓',
  saySomething: 'Diga algo',
  send: 'Enviar',
  inTheRoom: 'Na sala',
  joinAgain: 'Entrar de novo',
  ended: 'Esta sala foi encerrada.',
  canceled: 'Esta reunião foi cancelada.',
  startsBefore: 'Início da reunião: ',
  startsAfter: '.',
  notStarted: 'Esta reunião ainda não começou.',
  keepOpen: 'Deixe esta página aberta: ela abre a reunião quando começar.',
  problems: {
    not_found: ['Sala não encontrada', 'Não há nenhuma sala neste endereço. Verifique o link que você recebeu.'],
    bad_link: ['Este link de acesso não funciona', 'O link está incompleto, foi alterado ou expirou. Peça um novo link a quem fez o convite.'],
    private: ['Esta sala é privada', 'Você precisa de um link de acesso para entrar nesta sala. Peça um a quem fez o convite.'],
  },
};

const es: RoomTexts = {
  room: 'Sala',
  liveNow: 'En directo. Cada persona habla y escucha en su propio idioma: la conversación se traduce en directo.',
  needsScript: 'Esta página necesita JavaScript para entrar en la sala.',
  yourName: 'Tu nombre',
  iSpeak: 'Hablo',
  iHear: 'Escucho',
  join: 'Entrar',
  leave: 'Salir',
  showOriginals: 'Mostrar lo que se dijo en el idioma original',
  conversation: 'Conversación',
  newest: 'Ver las frases más recientes ↓',
  saySomething: 'Di algo',
  send: 'Enviar',
  inTheRoom: 'En la sala',
  joinAgain: 'Volver a entrar',
  ended: 'Esta sala ha terminado.',
  canceled: 'Esta reunión se ha cancelado.',
  startsBefore: 'La reunión empieza el ',
  startsAfter: '.',
  notStarted: 'Esta reunión todavía no ha empezado.',
  keepOpen: 'Deja esta página abierta: abrirá la reunión cuando empiece.',
  problems: {
    not_found: ['Sala no encontrada', 'No hay ninguna sala en esta dirección. Comprueba el enlace que te dieron.'],
    bad_link: ['Este enlace de acceso no funciona', 'El enlace está incompleto, se ha modificado o ha caducado. Pide un enlace nuevo a quien te invitó.'],
    private: ['Esta sala es privada', 'Necesitas un enlace de acceso para entrar en esta sala. Pídeselo a quien te invitó.'],
  },
};

const de: RoomTexts = {
  room: 'Raum',
  liveNow: 'Jetzt live. Alle sprechen und hören ihre eigene Sprache: Das Gespräch wird live übersetzt.',
  needsScript: 'Diese Seite braucht JavaScript, um den Raum zu betreten.',
  yourName: 'Ihr Name',
  iSpeak: 'Ich spreche',
  iHear: 'Ich höre',
  join: 'Beitreten',
  leave: 'Verlassen',
  showOriginals: 'Gesagtes in der Originalsprache zeigen',
  conversation: 'Gespräch',
  newest: 'Neueste Sätze zeigen ↓',
  saySomething: 'Etwas sagen',
  send: 'Senden',
  inTheRoom: 'Im Raum',
  joinAgain: 'Erneut beitreten',
  ended: 'Dieser Raum ist beendet.',
  canceled: 'Diese Besprechung wurde abgesagt.',
  startsBefore: 'Die Besprechung beginnt am ',
  startsAfter: '.',
  notStarted: 'Diese Besprechung hat noch nicht begonnen.',
  keepOpen: 'Lassen Sie diese Seite geöffnet: Sie öffnet die Besprechung, sobald sie beginnt.',
  problems: {
    not_found: ['Raum nicht gefunden', 'Unter dieser Adresse gibt es keinen Raum. Prüfen Sie den Link, den Sie erhalten haben.'],
    bad_link: ['Dieser Beitrittslink funktioniert nicht', 'Der Link ist unvollständig, wurde verändert oder ist abgelaufen. Bitten Sie die Person, die Sie eingeladen hat, um einen neuen Link.'],
    private: ['Dieser Raum ist privat', 'Sie brauchen einen Beitrittslink, um diesen Raum zu betreten. Bitten Sie die Person, die Sie eingeladen hat, darum.'],
  },
};

const fr: RoomTexts = {
  room: 'Salle',
  liveNow: 'En direct. Chacun parle et entend sa propre langue : la conversation est traduite en direct.',
  needsScript: 'Cette page a besoin de JavaScript pour rejoindre la salle.',
  yourName: 'Votre nom',
  iSpeak: 'Je parle',
  iHear: 'J’entends',
  join: 'Rejoindre',
  leave: 'Quitter',
  showOriginals: 'Afficher ce qui a été dit dans la langue d’origine',
  conversation: 'Conversation',
  newest: 'Voir les phrases les plus récentes ↓',
  saySomething: 'Dire quelque chose',
  send: 'Envoyer',
  inTheRoom: 'Dans la salle',
  joinAgain: 'Rejoindre à nouveau',
  ended: 'Cette salle est terminée.',
  canceled: 'Cette réunion a été annulée.',
  startsBefore: 'La réunion commence le ',
  startsAfter: '.',
  notStarted: 'Cette réunion n’a pas encore commencé.',
  keepOpen: 'Gardez cette page ouverte : elle ouvrira la réunion dès qu’elle commencera.',
  problems: {
    not_found: ['Salle introuvable', 'Il n’y a aucune salle à cette adresse. Vérifiez le lien que l’on vous a donné.'],
    bad_link: ['Ce lien d’accès ne fonctionne pas', 'Le lien est incomplet, a été modifié ou a expiré. Demandez un nouveau lien à la personne qui vous a invité.'],
    private: ['Cette salle est privée', 'Il vous faut un lien d’accès pour entrer dans cette salle. Demandez-en un à la personne qui vous a invité.'],
  },
};

export const ROOM: Record<Lang, RoomTexts> = { en, pt, es, de, fr };
