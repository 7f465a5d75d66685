// The shape of every language's table (i18n/booking.ts).

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
