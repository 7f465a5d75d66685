import type { Lang } from './lang.ts';

// What the booking page (the browser's language) and the guest's manage
// page (the guest's `locale`) say, server-rendered and in their script
// (`script`, {placeholders} filled there).

export type BookingTexts = {
  linkNotFound: [heading: string, text: string];
  minutes: (n: number) => string;
  host: (host: string) => string;
  paused: string;
  pickTime: string;
  yourZone: string;
  prevWeek: string;
  nextWeek: string;
  yourDetails: string;
  aboutYou: string;
  yourName: string;
  email: string;
  languages: string;
  languagesHint: string;
  speak: string;
  hear: string;
  book: string;
  booked: string;
  mailed: string;
  yourTime: string;
  hostTime: string;
  meetingLink: string;
  ics: string;
  manageLink: string;
  bookingNotFound: [heading: string, text: string];
  bookingNotFoundShort: string;
  moved: string;
  canceledDone: string;
  /** On a canceled booking's page: the link to the booking page, to pick another time. */
  bookAnother: string;
  statusLabel: string;
  status: Record<'confirmed' | 'rescheduled' | 'canceled' | 'completed', string>;
  line: Record<'canceled' | 'completed' | 'live' | 'ended' | 'meetingCanceled', string>;
  yourTimeIn: (tz: string) => string;
  hostTimeIn: (tz: string) => string;
  duration: string;
  hostLabel: string;
  guest: string;
  change: string;
  reschedule: string;
  cancel: string;
  cancelQuestion: string;
  cancelYes: string;
  cancelNo: string;
  moveTo: string;
  close: string;
  script: {
    taken: string;
    busy: string;
    problem: string; // {status}
    loading: string;
    loadError: string; // {problem}
    loadOffline: string;
    freeOne: string; // {tz}
    freeMany: string; // {n} {tz}
    noneLast: string;
    noneNext: string;
    yourTime: string; // {time}
    noTime: string;
    pickFirst: string;
    booking: string;
    book: string;
    noLongerFree: string;
    checkForm: string;
    invalid: string;
    offline: string;
    newTime: string; // {time}
    pickNew: string;
  };
};

const en: BookingTexts = {
  linkNotFound: ['Booking link not found', 'There is no booking link at this address. Check the link you were given.'],
  minutes: (n) => `${n} minutes`,
  host: (h) => `Host: ${h}`,
  paused: 'Booking on this link is paused right now. Please try again later or contact the host.',
  pickTime: 'Pick a time',
  yourZone: 'Your time zone',
  prevWeek: '← Previous week',
  nextWeek: 'Next week →',
  yourDetails: 'Your details',
  aboutYou: 'About you',
  yourName: 'Your name',
  email: 'E-mail',
  languages: 'Languages',
  languagesHint: 'Everyone speaks and hears their own language: the meeting is translated live.',
  speak: 'Language you speak',
  hear: 'Language you hear',
  book: 'Book',
  booked: 'You are booked',
  mailed: 'We have e-mailed you an invitation with the meeting link.',
  yourTime: 'Your time',
  hostTime: 'Host\'s time',
  meetingLink: 'Meeting link',
  ics: 'Download the calendar file (.ics)',
  manageLink: 'Reschedule or cancel this booking',
  bookingNotFound: ['Booking not found', 'There is no booking at this address. Check the link in your invitation e-mail.'],
  bookingNotFoundShort: 'There is no booking at this address.',
  moved: 'Your booking was moved. Guest and host have been sent the new time.',
  canceledDone: 'Your booking was canceled. Guest and host have been told.',
  bookAnother: 'Book another time',
  statusLabel: 'Status:',
  status: { confirmed: 'Confirmed', rescheduled: 'Confirmed (rescheduled)', canceled: 'Canceled', completed: 'Completed' },
  line: {
    canceled: 'This booking was canceled.',
    completed: 'This meeting has taken place.',
    live: 'The meeting is in progress.',
    ended: 'This meeting has ended.',
    meetingCanceled: 'This meeting was canceled.',
  },
  yourTimeIn: (tz) => `Your time (${tz})`,
  hostTimeIn: (tz) => `Host's time (${tz})`,
  duration: 'Duration',
  hostLabel: 'Host',
  guest: 'Guest',
  change: 'Change this booking',
  reschedule: 'Reschedule',
  cancel: 'Cancel booking',
  cancelQuestion: 'Cancel this meeting? Guest and host will be told.',
  cancelYes: 'Yes, cancel the booking',
  cancelNo: 'No, keep it',
  moveTo: 'Move to this time',
  close: 'Close',
  script: {
    taken: 'Sorry, that time was just booked by someone else. Please pick another time.',
    busy: 'Booking is busy right now. Please try again in a moment.',
    problem: 'Something went wrong ({status}). Please try again.',
    loading: 'Loading free times…',
    loadError: 'Could not load the free times: {problem}',
    loadOffline: 'Could not load the free times. Check your connection and try again.',
    freeOne: '1 free time this week, shown in {tz} time.',
    freeMany: '{n} free times this week, shown in {tz} time.',
    noneLast: 'No free times this week, the last one this link takes bookings for.',
    noneNext: 'No free times this week. Try the next week.',
    yourTime: 'Your time: {time}',
    noTime: 'No time picked: choose one above.',
    pickFirst: 'Pick a time first.',
    booking: 'Booking…',
    book: 'Book',
    noLongerFree: 'That time is no longer free. Please pick another time.',
    checkForm: 'Please check the form.',
    invalid: 'Invalid',
    offline: 'Could not reach the server. Check your connection and try again.',
    newTime: 'New time: {time}',
    pickNew: 'Pick a new time above.',
  },
};

const pt: BookingTexts = {
  linkNotFound: ['Link de agendamento não encontrado', 'Não há nenhum link de agendamento neste endereço. Verifique o link que você recebeu.'],
  minutes: (n) => `${n} minutos`,
  host: (h) => `Anfitrião: ${h}`,
  paused: 'Os agendamentos por este link estão suspensos no momento. Tente de novo mais tarde ou fale com o anfitrião.',
  pickTime: 'Escolha um horário',
  yourZone: 'O seu fuso horário',
  prevWeek: '← Semana anterior',
  nextWeek: 'Próxima semana →',
  yourDetails: 'Os seus dados',
  aboutYou: 'Sobre você',
  yourName: 'O seu nome',
  email: 'E-mail',
  languages: 'Idiomas',
  languagesHint: 'Cada pessoa fala e ouve no seu próprio idioma: a reunião é traduzida em tempo real.',
  speak: 'Idioma em que você fala',
  hear: 'Idioma em que você ouve',
  book: 'Agendar',
  booked: 'Agendamento feito',
  mailed: 'Enviamos por e-mail um convite com o link da reunião.',
  yourTime: 'O seu horário',
  hostTime: 'Horário do anfitrião',
  meetingLink: 'Link da reunião',
  ics: 'Baixar o arquivo de calendário (.ics)',
  manageLink: 'Remarcar ou cancelar este agendamento',
  bookingNotFound: ['Agendamento não encontrado', 'Não há nenhum agendamento neste endereço. Verifique o link no seu e-mail de convite.'],
  bookingNotFoundShort: 'Não há nenhum agendamento neste endereço.',
  moved: 'O seu agendamento foi remarcado. Convidado e anfitrião receberam o novo horário.',
  canceledDone: 'O seu agendamento foi cancelado. Convidado e anfitrião foram avisados.',
  bookAnother: 'Agendar outro horário',
  statusLabel: 'Situação:',
  status: { confirmed: 'Confirmado', rescheduled: 'Confirmado (remarcado)', canceled: 'Cancelado', completed: 'Concluído' },
  line: {
    canceled: 'Este agendamento foi cancelado.',
    completed: 'Esta reunião já aconteceu.',
    live: 'A reunião está em andamento.',
    ended: 'Esta reunião terminou.',
    meetingCanceled: 'Esta reunião foi cancelada.',
  },
  yourTimeIn: (tz) => `O seu horário (${tz})`,
  hostTimeIn: (tz) => `Horário do anfitrião (${tz})`,
  duration: 'Duração',
  hostLabel: 'Anfitrião',
  guest: 'Convidado',
  change: 'Alterar este agendamento',
  reschedule: 'Remarcar',
  cancel: 'Cancelar agendamento',
  cancelQuestion: 'Cancelar esta reunião? Convidado e anfitrião serão avisados.',
  cancelYes: 'Sim, cancelar o agendamento',
  cancelNo: 'Não, manter',
  moveTo: 'Mudar para este horário',
  close: 'Fechar',
  script: {
    taken: 'Desculpe, alguém acabou de reservar esse horário. Escolha outro.',
    busy: 'O agendamento está sobrecarregado agora. Tente de novo daqui a pouco.',
    problem: 'Algo deu errado ({status}). Tente de novo.',
    loading: 'Carregando horários livres…',
    loadError: 'Não foi possível carregar os horários livres: {problem}',
    loadOffline: 'Não foi possível carregar os horários livres. Verifique a sua conexão e tente de novo.',
    freeOne: '1 horário livre nesta semana, no fuso {tz}.',
    freeMany: '{n} horários livres nesta semana, no fuso {tz}.',
    noneLast: 'Não há horários livres nesta semana, a última aberta a agendamentos neste link.',
    noneNext: 'Não há horários livres nesta semana. Tente a próxima.',
    yourTime: 'O seu horário: {time}',
    noTime: 'Nenhum horário escolhido: escolha um acima.',
    pickFirst: 'Escolha um horário primeiro.',
    booking: 'Agendando…',
    book: 'Agendar',
    noLongerFree: 'Esse horário não está mais livre. Escolha outro.',
    checkForm: 'Verifique o formulário.',
    invalid: 'Inválido',
    offline: 'Não foi possível contactar o servidor. Verifique a sua conexão e tente de novo.',
    newTime: 'Novo horário: {time}',
    pickNew: 'Escolha um novo horário acima.',
  },
};

const es: BookingTexts = {
  linkNotFound: ['Enlace de reserva no encontrado', 'No hay ningún enlace de reserva en esta dirección. Comprueba el enlace que te dieron.'],
  minutes: (n) => `${n} minutos`,
  host: (h) => `Anfitrión: ${h}`,
  paused: 'Las reservas con este enlace están en pausa. Vuelve a intentarlo más tarde o contacta con el anfitrión.',
  pickTime: 'Elige una hora',
  yourZone: 'Tu zona horaria',
  prevWeek: '← Semana anterior',
  nextWeek: 'Semana siguiente →',
  yourDetails: 'Tus datos',
  aboutYou: 'Sobre ti',
  yourName: 'Tu nombre',
  email: 'Correo electrónico',
  languages: 'Idiomas',
  languagesHint: 'Cada persona habla y escucha en su propio idioma: la reunión se traduce en directo.',
  speak: 'Idioma que hablas',
  hear: 'Idioma que escuchas',
  book: 'Reservar',
  booked: 'Reserva hecha',
  mailed: 'Te hemos enviado por correo una invitación con el enlace de la reunión.',
  yourTime: 'Tu hora',
  hostTime: 'Hora del anfitrión',
  meetingLink: 'Enlace de la reunión',
  ics: 'Descargar el archivo de calendario (.ics)',
  manageLink: 'Cambiar o cancelar esta reserva',
  bookingNotFound: ['Reserva no encontrada', 'No hay ninguna reserva en esta dirección. Comprueba el enlace de tu correo de invitación.'],
  bookingNotFoundShort: 'No hay ninguna reserva en esta dirección.',
  moved: 'Tu reserva se ha cambiado. Invitado y anfitrión han recibido la nueva hora.',
  canceledDone: 'Tu reserva se ha cancelado. Invitado y anfitrión han sido avisados.',
  bookAnother: 'Reservar otra hora',
  statusLabel: 'Estado:',
  status: { confirmed: 'Confirmada', rescheduled: 'Confirmada (cambiada de hora)', canceled: 'Cancelada', completed: 'Completada' },
  line: {
    canceled: 'Esta reserva se ha cancelado.',
    completed: 'Esta reunión ya se celebró.',
    live: 'La reunión está en curso.',
    ended: 'Esta reunión ha terminado.',
    meetingCanceled: 'Esta reunión se ha cancelado.',
  },
  yourTimeIn: (tz) => `Tu hora (${tz})`,
  hostTimeIn: (tz) => `Hora del anfitrión (${tz})`,
  duration: 'Duración',
  hostLabel: 'Anfitrión',
  guest: 'Invitado',
  change: 'Cambiar esta reserva',
  reschedule: 'Cambiar de hora',
  cancel: 'Cancelar la reserva',
  cancelQuestion: '¿Cancelar esta reunión? Se avisará al invitado y al anfitrión.',
  cancelYes: 'Sí, cancelar la reserva',
  cancelNo: 'No, mantenerla',
  moveTo: 'Pasar a esta hora',
  close: 'Cerrar',
  script: {
    taken: 'Lo sentimos, otra persona acaba de reservar esa hora. Elige otra.',
    busy: 'El sistema de reservas está saturado ahora mismo. Vuelve a intentarlo en un momento.',
    problem: 'Algo ha fallado ({status}). Vuelve a intentarlo.',
    loading: 'Cargando horas libres…',
    loadError: 'No se han podido cargar las horas libres: {problem}',
    loadOffline: 'No se han podido cargar las horas libres. Comprueba tu conexión y vuelve a intentarlo.',
    freeOne: '1 hora libre esta semana, en la zona {tz}.',
    freeMany: '{n} horas libres esta semana, en la zona {tz}.',
    noneLast: 'No hay horas libres esta semana, la última en la que este enlace acepta reservas.',
    noneNext: 'No hay horas libres esta semana. Prueba la siguiente.',
    yourTime: 'Tu hora: {time}',
    noTime: 'No has elegido hora: elige una arriba.',
    pickFirst: 'Elige primero una hora.',
    booking: 'Reservando…',
    book: 'Reservar',
    noLongerFree: 'Esa hora ya no está libre. Elige otra.',
    checkForm: 'Revisa el formulario.',
    invalid: 'No válido',
    offline: 'No se ha podido contactar con el servidor. Comprueba tu conexión y vuelve a intentarlo.',
    newTime: 'Nueva hora: {time}',
    pickNew: 'Elige una nueva hora arriba.',
  },
};

const de: BookingTexts = {
  linkNotFound: ['Buchungslink nicht gefunden', 'Unter dieser Adresse gibt es keinen Buchungslink. Prüfen Sie den Link, den Sie erhalten haben.'],
  minutes: (n) => `${n} Minuten`,
  host: (h) => `Gastgeber: ${h}`,
  paused: 'Buchungen über diesen Link sind gerade pausiert. Bitte versuchen Sie es später erneut oder wenden Sie sich an den Gastgeber.',
  pickTime: 'Wählen Sie einen Termin',
  yourZone: 'Ihre Zeitzone',
  prevWeek: '← Vorherige Woche',
  nextWeek: 'Nächste Woche →',
  yourDetails: 'Ihre Angaben',
  aboutYou: 'Zu Ihrer Person',
  yourName: 'Ihr Name',
  email: 'E-Mail',
  languages: 'Sprachen',
  languagesHint: 'Alle sprechen und hören ihre eigene Sprache: Die Besprechung wird live übersetzt.',
  speak: 'Sprache, die Sie sprechen',
  hear: 'Sprache, die Sie hören',
  book: 'Buchen',
  booked: 'Ihr Termin ist gebucht',
  mailed: 'Wir haben Ihnen eine Einladung mit dem Link zur Besprechung per E-Mail gesendet.',
  yourTime: 'Ihre Zeit',
  hostTime: 'Zeit des Gastgebers',
  meetingLink: 'Link zur Besprechung',
  ics: 'Kalenderdatei herunterladen (.ics)',
  manageLink: 'Diese Buchung verschieben oder absagen',
  bookingNotFound: ['Buchung nicht gefunden', 'Unter dieser Adresse gibt es keine Buchung. Prüfen Sie den Link in Ihrer Einladungs-E-Mail.'],
  bookingNotFoundShort: 'Unter dieser Adresse gibt es keine Buchung.',
  moved: 'Ihre Buchung wurde verschoben. Gast und Gastgeber haben die neue Zeit erhalten.',
  canceledDone: 'Ihre Buchung wurde abgesagt. Gast und Gastgeber wurden benachrichtigt.',
  bookAnother: 'Einen anderen Termin buchen',
  statusLabel: 'Status:',
  status: { confirmed: 'Bestätigt', rescheduled: 'Bestätigt (verschoben)', canceled: 'Abgesagt', completed: 'Abgeschlossen' },
  line: {
    canceled: 'Diese Buchung wurde abgesagt.',
    completed: 'Diese Besprechung hat stattgefunden.',
    live: 'Die Besprechung läuft gerade.',
    ended: 'Diese Besprechung ist beendet.',
    meetingCanceled: 'Diese Besprechung wurde abgesagt.',
  },
  yourTimeIn: (tz) => `Ihre Zeit (${tz})`,
  hostTimeIn: (tz) => `Zeit des Gastgebers (${tz})`,
  duration: 'Dauer',
  hostLabel: 'Gastgeber',
  guest: 'Gast',
  change: 'Diese Buchung ändern',
  reschedule: 'Verschieben',
  cancel: 'Buchung absagen',
  cancelQuestion: 'Diese Besprechung absagen? Gast und Gastgeber werden benachrichtigt.',
  cancelYes: 'Ja, Buchung absagen',
  cancelNo: 'Nein, beibehalten',
  moveTo: 'Auf diesen Termin verschieben',
  close: 'Schließen',
  script: {
    taken: 'Dieser Termin wurde leider gerade von jemand anderem gebucht. Bitte wählen Sie einen anderen.',
    busy: 'Die Buchung ist gerade ausgelastet. Bitte versuchen Sie es gleich noch einmal.',
    problem: 'Etwas ist schiefgegangen ({status}). Bitte versuchen Sie es erneut.',
    loading: 'Freie Termine werden geladen…',
    loadError: 'Die freien Termine konnten nicht geladen werden: {problem}',
    loadOffline: 'Die freien Termine konnten nicht geladen werden. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
    freeOne: '1 freier Termin diese Woche, angezeigt in der Zeitzone {tz}.',
    freeMany: '{n} freie Termine diese Woche, angezeigt in der Zeitzone {tz}.',
    noneLast: 'Keine freien Termine diese Woche, der letzten, für die dieser Link Buchungen annimmt.',
    noneNext: 'Keine freien Termine diese Woche. Versuchen Sie die nächste Woche.',
    yourTime: 'Ihre Zeit: {time}',
    noTime: 'Kein Termin gewählt: Wählen Sie oben einen aus.',
    pickFirst: 'Wählen Sie zuerst einen Termin.',
    booking: 'Wird gebucht…',
    book: 'Buchen',
    noLongerFree: 'Dieser Termin ist nicht mehr frei. Bitte wählen Sie einen anderen.',
    checkForm: 'Bitte prüfen Sie das Formular.',
    invalid: 'Ungültig',
    offline: 'Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
    newTime: 'Neuer Termin: {time}',
    pickNew: 'Wählen Sie oben einen neuen Termin.',
  },
};

const fr: BookingTexts = {
  linkNotFound: ['Lien de réservation introuvable', 'Il n’y a aucun lien de réservation à cette adresse. Vérifiez le lien que l’on vous a donné.'],
  minutes: (n) => `${n} minutes`,
  host: (h) => `Hôte : ${h}`,
  paused: 'Les réservations par ce lien sont suspendues pour le moment. Réessayez plus tard ou contactez l’hôte.',
  pickTime: 'Choisissez un créneau',
  yourZone: 'Votre fuseau horaire',
  prevWeek: '← Semaine précédente',
  nextWeek: 'Semaine suivante →',
  yourDetails: 'Vos coordonnées',
  aboutYou: 'À propos de vous',
  yourName: 'Votre nom',
  email: 'E-mail',
  languages: 'Langues',
  languagesHint: 'Chacun parle et entend sa propre langue : la réunion est traduite en direct.',
  speak: 'Langue que vous parlez',
  hear: 'Langue que vous entendez',
  book: 'Réserver',
  booked: 'Votre réservation est confirmée',
  mailed: 'Nous vous avons envoyé par e-mail une invitation avec le lien de la réunion.',
  yourTime: 'Votre heure',
  hostTime: 'Heure de l’hôte',
  meetingLink: 'Lien de la réunion',
  ics: 'Télécharger le fichier de calendrier (.ics)',
  manageLink: 'Déplacer ou annuler cette réservation',
  bookingNotFound: ['Réservation introuvable', 'Il n’y a aucune réservation à cette adresse. Vérifiez le lien de votre e-mail d’invitation.'],
  bookingNotFoundShort: 'Il n’y a aucune réservation à cette adresse.',
  moved: 'Votre réservation a été déplacée. L’invité et l’hôte ont reçu le nouvel horaire.',
  canceledDone: 'Votre réservation a été annulée. L’invité et l’hôte ont été prévenus.',
  bookAnother: 'Réserver un autre créneau',
  statusLabel: 'État :',
  status: { confirmed: 'Confirmée', rescheduled: 'Confirmée (déplacée)', canceled: 'Annulée', completed: 'Terminée' },
  line: {
    canceled: 'Cette réservation a été annulée.',
    completed: 'Cette réunion a eu lieu.',
    live: 'La réunion est en cours.',
    ended: 'Cette réunion est terminée.',
    meetingCanceled: 'Cette réunion a été annulée.',
  },
  yourTimeIn: (tz) => `Votre heure (${tz})`,
  hostTimeIn: (tz) => `Heure de l’hôte (${tz})`,
  duration: 'Durée',
  hostLabel: 'Hôte',
  guest: 'Invité',
  change: 'Modifier cette réservation',
  reschedule: 'Déplacer',
  cancel: 'Annuler la réservation',
  cancelQuestion: 'Annuler cette réunion ? L’invité et l’hôte seront prévenus.',
  cancelYes: 'Oui, annuler la réservation',
  cancelNo: 'Non, la garder',
  moveTo: 'Déplacer à ce créneau',
  close: 'Fermer',
  script: {
    taken: 'Désolé, ce créneau vient d’être réservé par quelqu’un d’autre. Choisissez-en un autre.',
    busy: 'Le service de réservation est très sollicité. Réessayez dans un instant.',
    problem: 'Un problème est survenu ({status}). Veuillez réessayer.',
    loading: 'Chargement des créneaux libres…',
    loadError: 'Impossible de charger les créneaux libres : {problem}',
    loadOffline: 'Impossible de charger les créneaux libres. Vérifiez votre connexion et réessayez.',
    freeOne: '1 créneau libre cette semaine, affiché à l’heure de {tz}.',
    freeMany: '{n} créneaux libres cette semaine, affichés à l’heure de {tz}.',
    noneLast: 'Aucun créneau libre cette semaine, la dernière ouverte aux réservations sur ce lien.',
    noneNext: 'Aucun créneau libre cette semaine. Essayez la semaine suivante.',
    yourTime: 'Votre heure : {time}',
    noTime: 'Aucun créneau choisi : choisissez-en un ci-dessus.',
    pickFirst: 'Choisissez d’abord un créneau.',
    booking: 'Réservation…',
    book: 'Réserver',
    noLongerFree: 'Ce créneau n’est plus libre. Choisissez-en un autre.',
    checkForm: 'Vérifiez le formulaire.',
    invalid: 'Non valide',
    offline: 'Le serveur est injoignable. Vérifiez votre connexion et réessayez.',
    newTime: 'Nouvel horaire : {time}',
    pickNew: 'Choisissez un nouveau créneau ci-dessus.',
  },
};

export const BOOKING: Record<Lang, BookingTexts> = { en, pt, es, de, fr };
