import type { Lang } from './lang.ts';

// What the room page says (rooms/pages/view.ts): the join form, the room's
// headings and buttons, its audio controls, a meeting not yet started, one
// that is over, and the pages of a bad link. `startsBefore` and `startsAfter`
// frame the start's date and time, which the page's script writes again in
// the reader's zone and in the page's language. `script` is what the page's
// scripts write (room.js, room-audio.js), given to them in data-msgs; its
// {placeholders} are filled there, language names by the browser in the
// page's language (Intl.DisplayNames).

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
  /** The join screen's list of what works for the languages chosen (its label; the script fills it). */
  whatWorks: string;
  /** After a language in the menus that nothing would be translated into (I hear) or from (I speak) in this room. */
  notTranslated: string;
  /** The conversation while it is empty. */
  noPhrases: string;
  /** The audio controls' markup (their changing texts are in `script`). */
  audio: { section: string; holdToTalk: string; micLevel: string; readAloud: string; privacy: string };
  script: RoomScriptTexts;
};

/** What the room page's scripts write; `{name}` placeholders filled there. */
export type RoomScriptTexts = {
  you: string;
  someone: string;
  aiAgent: string;
  youMark: string;
  speaking: string;
  speakingNow: string;
  speaks: string; // {lang}
  hears: string; // {lang}
  notTranslated: string; // {lang}
  me: string; // {speak} {hear}
  meSpeak: string; // {speak}
  busy: string;
  problem: string; // {status}
  offline: string;
  connecting: string;
  reconnecting: string;
  noLonger: string;
  joining: string;
  join: string;
  checkForm: string;
  invalid: string;
  leftHeading: string;
  left: string;
  canceledHeading: string;
  canceled: string;
  endedHeading: string;
  ended: string;
  micUnavailable: string;
  noRecognizer: string; // {lang}
  noVoice: string; // {lang}
  notCaught: string;
  micStopped: string;
  micStoppedWhy: string; // {reason}
  askingMic: string;
  micDenied: string;
  microphone: string;
  micOn: string;
  mute: string;
  unmute: string;
  pause: string;
  resume: string;
  covMic: string; // {engine}
  covNoMic: string; // {lang}
  covVoice: string; // {engine}
  covNoVoice: string; // {lang}
  covRoute: string; // {from} {to} {engine}
  covRouteVia: string; // {from} {to} {via} {engine}
  covRouteNo: string; // {from} {to}
  covTest: string;
  covUnknown: string;
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
  whatWorks: 'What works with these languages',
  notTranslated: 'not translated',
  noPhrases: 'No one has spoken yet.',
  audio: {
    section: 'Speak and hear aloud',
    holdToTalk: 'Hold to talk',
    micLevel: 'Microphone level',
    readAloud: 'Read aloud what the others say, in my language',
    privacy: 'The microphone is used only while it is on. What you say is turned into text; the audio itself is not kept.',
  },
  script: {
    you: 'You',
    someone: 'Someone',
    aiAgent: 'AI agent',
    youMark: ' (you)',
    speaking: 'speaking',
    speakingNow: ' — speaking now',
    speaks: 'speaks {lang}',
    hears: ' · hears {lang}',
    notTranslated: 'Not translated: {lang} as it was said',
    me: 'You speak {speak} and hear {hear}.',
    meSpeak: 'You speak {speak}.',
    busy: 'The room is busy right now. Please try again in a moment.',
    problem: 'Something went wrong ({status}). Please try again.',
    offline: 'Could not reach the server. Check your connection and try again.',
    connecting: 'Connecting…',
    reconnecting: 'Reconnecting…',
    noLonger: 'You are no longer in the room. Join again to continue.',
    joining: 'Joining…',
    join: 'Join',
    checkForm: 'Please check the form.',
    invalid: 'Invalid',
    leftHeading: 'You left',
    left: 'You left the room.',
    canceledHeading: 'Meeting canceled',
    canceled: 'This meeting was canceled.',
    endedHeading: 'Room ended',
    ended: 'This room has ended.',
    micUnavailable: 'Speaking aloud is not available right now; type instead.',
    noRecognizer: 'No speech recognition for {lang} on this service: type what you want to say instead.',
    noVoice: 'No voice on this service speaks {lang}: read aloud is not available.',
    notCaught: 'We did not catch that. Try again, or type it.',
    micStopped: 'The microphone stopped.',
    micStoppedWhy: 'The microphone stopped ({reason}).',
    askingMic: 'Asking for your microphone…',
    micDenied: 'We could not use your microphone. Allow this page to use it (the icon in the address bar) and try again, or type instead.',
    microphone: 'Microphone',
    micOn: 'Microphone on',
    mute: 'Mute',
    unmute: 'Unmute',
    pause: 'Pause',
    resume: 'Resume',
    covMic: 'Microphone: yes ({engine})',
    covNoMic: 'Microphone: no speech recognition for {lang} — type instead',
    covVoice: 'Read aloud: yes ({engine})',
    covNoVoice: 'Read aloud: no voice speaks {lang}',
    covRoute: 'Translation {from} → {to}: yes ({engine})',
    covRouteVia: 'Translation {from} → {to}: via {via} ({engine})',
    covRouteNo: 'Not translated {from} → {to}: shown as it was said',
    covTest: 'Test room: the robots’ lines are always translated.',
    covUnknown: 'What works with these languages could not be checked just now.',
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
  whatWorks: 'O que funciona com estes idiomas',
  notTranslated: 'sem tradução',
  noPhrases: 'Ninguém falou ainda.',
  audio: {
    section: 'Falar e ouvir em voz alta',
    holdToTalk: 'Segure para falar',
    micLevel: 'Nível do microfone',
    readAloud: 'Ler em voz alta o que os outros dizem, no meu idioma',
    privacy: 'O microfone só é usado enquanto está ligado. O que você diz vira texto; o áudio em si não é guardado.',
  },
  script: {
    you: 'Você',
    someone: 'Alguém',
    aiAgent: 'Agente de IA',
    youMark: ' (você)',
    speaking: 'falando',
    speakingNow: ' — falando agora',
    speaks: 'fala {lang}',
    hears: ' · ouve {lang}',
    notTranslated: 'Sem tradução: {lang}, como foi dito',
    me: 'Você fala {speak} e ouve {hear}.',
    meSpeak: 'Você fala {speak}.',
    busy: 'A sala está ocupada agora. Tente de novo daqui a pouco.',
    problem: 'Algo deu errado ({status}). Tente de novo.',
    offline: 'Não foi possível falar com o servidor. Verifique a sua conexão e tente de novo.',
    connecting: 'Conectando…',
    reconnecting: 'Reconectando…',
    noLonger: 'Você não está mais na sala. Entre de novo para continuar.',
    joining: 'Entrando…',
    join: 'Entrar',
    checkForm: 'Verifique o formulário.',
    invalid: 'Inválido',
    leftHeading: 'Você saiu',
    left: 'Você saiu da sala.',
    canceledHeading: 'Reunião cancelada',
    canceled: 'Esta reunião foi cancelada.',
    endedHeading: 'Sala encerrada',
    ended: 'Esta sala foi encerrada.',
    micUnavailable: 'Falar em voz alta não está disponível agora; digite.',
    noRecognizer: 'Não há reconhecimento de fala para {lang} neste serviço: digite o que quer dizer.',
    noVoice: 'Nenhuma voz deste serviço fala {lang}: a leitura em voz alta não está disponível.',
    notCaught: 'Não entendemos. Tente de novo ou digite.',
    micStopped: 'O microfone parou.',
    micStoppedWhy: 'O microfone parou ({reason}).',
    askingMic: 'Pedindo acesso ao seu microfone…',
    micDenied: 'Não conseguimos usar o seu microfone. Permita que esta página o use (o ícone na barra de endereço) e tente de novo, ou digite.',
    microphone: 'Microfone',
    micOn: 'Microfone ligado',
    mute: 'Silenciar',
    unmute: 'Reativar o som',
    pause: 'Pausar',
    resume: 'Continuar',
    covMic: 'Microfone: sim ({engine})',
    covNoMic: 'Microfone: não há reconhecimento de fala para {lang} — digite',
    covVoice: 'Leitura em voz alta: sim ({engine})',
    covNoVoice: 'Leitura em voz alta: nenhuma voz fala {lang}',
    covRoute: 'Tradução {from} → {to}: sim ({engine})',
    covRouteVia: 'Tradução {from} → {to}: via {via} ({engine})',
    covRouteNo: 'Sem tradução {from} → {to}: aparece como foi dito',
    covTest: 'Sala de teste: as falas dos robôs são sempre traduzidas.',
    covUnknown: 'Não foi possível verificar agora o que funciona com estes idiomas.',
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
  whatWorks: 'Qué funciona con estos idiomas',
  notTranslated: 'sin traducción',
  noPhrases: 'Nadie ha hablado todavía.',
  audio: {
    section: 'Hablar y escuchar en voz alta',
    holdToTalk: 'Mantén pulsado para hablar',
    micLevel: 'Nivel del micrófono',
    readAloud: 'Leer en voz alta lo que dicen los demás, en mi idioma',
    privacy: 'El micrófono solo se usa mientras está activado. Lo que dices se convierte en texto; el audio en sí no se guarda.',
  },
  script: {
    you: 'Tú',
    someone: 'Alguien',
    aiAgent: 'Agente de IA',
    youMark: ' (tú)',
    speaking: 'hablando',
    speakingNow: ' — hablando ahora',
    speaks: 'habla {lang}',
    hears: ' · escucha {lang}',
    notTranslated: 'Sin traducir: {lang}, tal como se dijo',
    me: 'Hablas {speak} y escuchas {hear}.',
    meSpeak: 'Hablas {speak}.',
    busy: 'La sala está ocupada ahora mismo. Inténtalo de nuevo en un momento.',
    problem: 'Algo salió mal ({status}). Inténtalo de nuevo.',
    offline: 'No se pudo conectar con el servidor. Comprueba tu conexión e inténtalo de nuevo.',
    connecting: 'Conectando…',
    reconnecting: 'Reconectando…',
    noLonger: 'Ya no estás en la sala. Vuelve a entrar para continuar.',
    joining: 'Entrando…',
    join: 'Entrar',
    checkForm: 'Revisa el formulario.',
    invalid: 'No válido',
    leftHeading: 'Has salido',
    left: 'Has salido de la sala.',
    canceledHeading: 'Reunión cancelada',
    canceled: 'Esta reunión se ha cancelado.',
    endedHeading: 'Sala terminada',
    ended: 'Esta sala ha terminado.',
    micUnavailable: 'Hablar en voz alta no está disponible ahora; escribe en su lugar.',
    noRecognizer: 'Este servicio no tiene reconocimiento de voz para {lang}: escribe lo que quieras decir.',
    noVoice: 'Ninguna voz de este servicio habla {lang}: la lectura en voz alta no está disponible.',
    notCaught: 'No lo hemos entendido. Inténtalo de nuevo o escríbelo.',
    micStopped: 'El micrófono se ha detenido.',
    micStoppedWhy: 'El micrófono se ha detenido ({reason}).',
    askingMic: 'Pidiendo acceso a tu micrófono…',
    micDenied: 'No hemos podido usar tu micrófono. Permite que esta página lo use (el icono de la barra de direcciones) e inténtalo de nuevo, o escribe.',
    microphone: 'Micrófono',
    micOn: 'Micrófono activado',
    mute: 'Silenciar',
    unmute: 'Activar sonido',
    pause: 'Pausa',
    resume: 'Reanudar',
    covMic: 'Micrófono: sí ({engine})',
    covNoMic: 'Micrófono: no hay reconocimiento de voz para {lang}; escribe',
    covVoice: 'Lectura en voz alta: sí ({engine})',
    covNoVoice: 'Lectura en voz alta: ninguna voz habla {lang}',
    covRoute: 'Traducción {from} → {to}: sí ({engine})',
    covRouteVia: 'Traducción {from} → {to}: a través del {via} ({engine})',
    covRouteNo: 'Sin traducción {from} → {to}: se muestra tal como se dijo',
    covTest: 'Sala de prueba: las frases de los robots siempre se traducen.',
    covUnknown: 'Ahora mismo no se ha podido comprobar qué funciona con estos idiomas.',
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
  whatWorks: 'Was mit diesen Sprachen funktioniert',
  notTranslated: 'nicht übersetzt',
  noPhrases: 'Noch hat niemand gesprochen.',
  audio: {
    section: 'Sprechen und vorlesen lassen',
    holdToTalk: 'Zum Sprechen gedrückt halten',
    micLevel: 'Mikrofonpegel',
    readAloud: 'Vorlesen, was die anderen sagen, in meiner Sprache',
    privacy: 'Das Mikrofon wird nur verwendet, solange es an ist. Was Sie sagen, wird zu Text; der Ton selbst wird nicht gespeichert.',
  },
  script: {
    you: 'Sie',
    someone: 'Jemand',
    aiAgent: 'KI-Agent',
    youMark: ' (Sie)',
    speaking: 'spricht',
    speakingNow: ' — spricht gerade',
    speaks: 'spricht {lang}',
    hears: ' · hört {lang}',
    notTranslated: 'Nicht übersetzt: {lang}, wie es gesagt wurde',
    me: 'Sie sprechen {speak} und hören {hear}.',
    meSpeak: 'Sie sprechen {speak}.',
    busy: 'Der Raum ist gerade ausgelastet. Bitte versuchen Sie es gleich noch einmal.',
    problem: 'Etwas ist schiefgegangen ({status}). Bitte versuchen Sie es noch einmal.',
    offline: 'Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es noch einmal.',
    connecting: 'Verbindung wird hergestellt…',
    reconnecting: 'Verbindung wird wiederhergestellt…',
    noLonger: 'Sie sind nicht mehr im Raum. Treten Sie erneut bei, um fortzufahren.',
    joining: 'Beitreten…',
    join: 'Beitreten',
    checkForm: 'Bitte prüfen Sie das Formular.',
    invalid: 'Ungültig',
    leftHeading: 'Raum verlassen',
    left: 'Sie haben den Raum verlassen.',
    canceledHeading: 'Besprechung abgesagt',
    canceled: 'Diese Besprechung wurde abgesagt.',
    endedHeading: 'Raum beendet',
    ended: 'Dieser Raum ist beendet.',
    micUnavailable: 'Sprechen ist gerade nicht möglich; schreiben Sie stattdessen.',
    noRecognizer: 'Keine Spracherkennung für {lang} auf diesem Dienst: Schreiben Sie stattdessen, was Sie sagen möchten.',
    noVoice: 'Keine Stimme auf diesem Dienst spricht {lang}: Vorlesen ist nicht verfügbar.',
    notCaught: 'Das haben wir nicht verstanden. Versuchen Sie es noch einmal oder schreiben Sie es.',
    micStopped: 'Das Mikrofon ist aus.',
    micStoppedWhy: 'Das Mikrofon ist aus ({reason}).',
    askingMic: 'Zugriff auf Ihr Mikrofon wird angefragt…',
    micDenied: 'Wir konnten Ihr Mikrofon nicht verwenden. Erlauben Sie dieser Seite den Zugriff (das Symbol in der Adressleiste) und versuchen Sie es noch einmal, oder schreiben Sie stattdessen.',
    microphone: 'Mikrofon',
    micOn: 'Mikrofon an',
    mute: 'Stummschalten',
    unmute: 'Stummschaltung aufheben',
    pause: 'Pause',
    resume: 'Fortsetzen',
    covMic: 'Mikrofon: ja ({engine})',
    covNoMic: 'Mikrofon: keine Spracherkennung für {lang} — bitte schreiben',
    covVoice: 'Vorlesen: ja ({engine})',
    covNoVoice: 'Vorlesen: keine Stimme spricht {lang}',
    covRoute: 'Übersetzung {from} → {to}: ja ({engine})',
    covRouteVia: 'Übersetzung {from} → {to}: über {via} ({engine})',
    covRouteNo: 'Nicht übersetzt {from} → {to}: so angezeigt, wie es gesagt wurde',
    covTest: 'Testraum: Die Sätze der Roboter werden immer übersetzt.',
    covUnknown: 'Was mit diesen Sprachen funktioniert, ließ sich gerade nicht prüfen.',
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
  whatWorks: 'Ce qui fonctionne avec ces langues',
  notTranslated: 'non traduit',
  noPhrases: 'Personne n’a encore parlé.',
  audio: {
    section: 'Parler et écouter à voix haute',
    holdToTalk: 'Maintenir pour parler',
    micLevel: 'Niveau du micro',
    readAloud: 'Lire à voix haute ce que disent les autres, dans ma langue',
    privacy: 'Le micro n’est utilisé que lorsqu’il est activé. Ce que vous dites devient du texte ; l’audio lui-même n’est pas conservé.',
  },
  script: {
    you: 'Vous',
    someone: 'Quelqu’un',
    aiAgent: 'Agent IA',
    youMark: ' (vous)',
    speaking: 'parle',
    speakingNow: ' — parle en ce moment',
    speaks: 'parle {lang}',
    hears: ' · entend {lang}',
    notTranslated: 'Non traduit : {lang}, tel que dit',
    me: 'Vous parlez {speak} et entendez {hear}.',
    meSpeak: 'Vous parlez {speak}.',
    busy: 'La salle est occupée pour le moment. Réessayez dans un instant.',
    problem: 'Une erreur s’est produite ({status}). Veuillez réessayer.',
    offline: 'Impossible de joindre le serveur. Vérifiez votre connexion et réessayez.',
    connecting: 'Connexion…',
    reconnecting: 'Reconnexion…',
    noLonger: 'Vous n’êtes plus dans la salle. Rejoignez-la à nouveau pour continuer.',
    joining: 'Entrée dans la salle…',
    join: 'Rejoindre',
    checkForm: 'Veuillez vérifier le formulaire.',
    invalid: 'Non valide',
    leftHeading: 'Vous êtes sorti',
    left: 'Vous avez quitté la salle.',
    canceledHeading: 'Réunion annulée',
    canceled: 'Cette réunion a été annulée.',
    endedHeading: 'Salle terminée',
    ended: 'Cette salle est terminée.',
    micUnavailable: 'Parler à voix haute n’est pas disponible pour le moment ; écrivez plutôt.',
    noRecognizer: 'Pas de reconnaissance vocale pour {lang} sur ce service : écrivez plutôt ce que vous voulez dire.',
    noVoice: 'Aucune voix de ce service ne parle {lang} : la lecture à voix haute n’est pas disponible.',
    notCaught: 'Nous n’avons pas compris. Réessayez ou écrivez-le.',
    micStopped: 'Le micro s’est arrêté.',
    micStoppedWhy: 'Le micro s’est arrêté ({reason}).',
    askingMic: 'Demande d’accès à votre micro…',
    micDenied: 'Impossible d’utiliser votre micro. Autorisez cette page à l’utiliser (l’icône dans la barre d’adresse) et réessayez, ou écrivez plutôt.',
    microphone: 'Micro',
    micOn: 'Micro activé',
    mute: 'Couper le son',
    unmute: 'Réactiver le son',
    pause: 'Pause',
    resume: 'Reprendre',
    covMic: 'Micro : oui ({engine})',
    covNoMic: 'Micro : pas de reconnaissance vocale pour {lang} — écrivez plutôt',
    covVoice: 'Lecture à voix haute : oui ({engine})',
    covNoVoice: 'Lecture à voix haute : aucune voix ne parle {lang}',
    covRoute: 'Traduction {from} → {to} : oui ({engine})',
    covRouteVia: 'Traduction {from} → {to} : via {via} ({engine})',
    covRouteNo: 'Non traduit {from} → {to} : affiché tel que dit',
    covTest: 'Salle de test : les phrases des robots sont toujours traduites.',
    covUnknown: 'Impossible de vérifier pour l’instant ce qui fonctionne avec ces langues.',
  },
};

export const ROOM: Record<Lang, RoomTexts> = { en, pt, es, de, fr };
