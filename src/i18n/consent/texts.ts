// The shape of every language's table (i18n/consent.ts).

export type ConsentTexts = {
  title: string;
  meta: (org: string, person: string) => string;
  askHeading: string;
  whoAsks: string;
  why: string;
  purposeNone: string;
  voiceName: string;
  language: string;
  linkUntil: string;
  /** What a cloned voice is used for, said before the person agrees. */
  voiceUse: string;
  nothingHappens: string;
  step1: string;
  /** HTML: `email` is already escaped markup. */
  codeSentToHtml: (email: string) => string;
  sendCode: string;
  codeLabel: string;
  confirm: string;
  resend: string;
  step2: string;
  recordHint: string;
  record: string;
  stop: string;
  agree: (org: string) => string;
  submit: string;
  step3: string;
  notFound: [heading: string, text: string];
  expired: (until: string) => [heading: string, text: string];
  requestWithdrawn: [heading: string, text: string];
  usedHeading: string;
  used: string;
  usedFailed: string;
  revokeTitle: string;
  revokeAgreed: (org: string, voice: string) => string;
  revokeWarning: string;
  revokeButton: string;
  revokedHeading: string;
  revoked: (voice: string, org: string, before: boolean) => string;
  nothingHeading: string;
  nothing: (voice: string) => string;
  /** The page's script: {placeholders} filled there. */
  script: {
    sending: string;
    sent: string; // {to} {minutes}
    offline: string;
    unreachable: string;
    problem: string; // {status}
    noRecorder: string;
    askingMic: string;
    recordAgain: string;
    tooShort: string; // {seconds} {min}
    recorded: string; // {seconds}
    recording: string;
    micDenied: string;
    uploading: string;
    thanks: string;
    ready: string;
    failed: string;
    revoked: string;
    stillPreparing: string;
    seconds: string; // {n}
  };
  /** The consent flow's errors (what the service says in English, said again). */
  errors: {
    codeDigits: string;
    wrongCode: (left: number) => string;
    wrongCodeLast: string;
    askFirst: string;
    codeExpired: string;
    tooManyCodes: (n: number) => string;
    codeWait: (seconds: number) => string;
    confirmFirst: string;
    linkUsed: string;
    linkWithdrawn: string;
    linkExpired: string;
    linkClosed: string;
    notAudio: string;
    tooShort: (seconds: string, min: number) => string;
    tooLong: (seconds: string, max: number) => string;
    silence: string;
    notSaid: string;
    tooManyRecordings: (n: number) => string;
    recordingType: string;
    tooMany: string;
    other: string;
  };
  mail: {
    hello: (person: string) => string;
    requestSubject: (org: string) => string;
    requestAsks: (org: string, voice: string) => string;
    requestWhy: (purpose: string) => string;
    requestHow: string;
    requestUntil: (until: string, org: string) => string;
    codeSubject: (code: string) => string;
    codeIntro: (org: string) => string;
    codeWorks: (minutes: number) => string;
    confirmationSubject: (org: string) => string;
    confirmationAgreed: (at: string, org: string, voice: string) => string;
    confirmationWithdraw: string;
    confirmationAfter: string;
    revokedSubject: (org: string) => string;
    revokedByPerson: (voice: string) => string;
    revokedByOrg: (org: string, voice: string) => string;
    revokedAfter: string;
  };
};
