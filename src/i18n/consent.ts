import type { Lang } from './lang.ts';

// What the person whose voice is asked for reads, in their language (the
// voice's `language`): the consent page, its script's texts, its errors, and
// the mails of the consent flow. The consent sentence itself is in
// voices/texts.ts. Texts with {name} placeholders are filled by the page's
// script (lang.ts fill() on the server).

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

const en: ConsentTexts = {
  title: 'Consent to copy your voice',
  meta: (org, person) => `${org} asks ${person} for permission to create a synthetic copy of their voice.`,
  askHeading: 'What you are asked',
  whoAsks: 'Who asks',
  why: 'Why',
  purposeNone: 'They did not say. Ask them before you agree.',
  voiceName: 'Name of the voice',
  language: 'Language',
  linkUntil: 'This link works until',
  voiceUse:
    'A synthetic copy of your voice can say any text the organization sends, in live translated conversations: its AI agents in rooms and its translated phone calls. ' +
    'Every agent that speaks with it tells the people it talks to that it is an AI.',
  nothingHappens:
    'Nothing happens unless you finish the steps below. Your recording is kept as the proof of your consent and to make the voice. ' +
    'You can withdraw at any time with the link in the receipt we e-mail you; the voice then stops working at once and the recording is deleted.',
  step1: '1. Confirm your e-mail address',
  codeSentToHtml: (email) => `We send a 6-digit code to <strong>${email}</strong>, the address the request names.`,
  sendCode: 'Send me a code',
  codeLabel: 'Code from the e-mail',
  confirm: 'Confirm',
  resend: 'Send a new code',
  step2: '2. Read this sentence aloud',
  recordHint: 'Press Record, read the whole sentence in your normal voice, then press Stop. You can listen to it and record again before you send it.',
  record: 'Record',
  stop: 'Stop',
  agree: (org) => `I agree that ${org} may create and use a synthetic copy of my voice, as described above.`,
  submit: 'Give my consent',
  step3: '3. Thank you',
  notFound: ['Link not found', 'This consent link does not exist. Check that you opened the whole link from the e-mail.'],
  expired: (until) => ['This link has expired', `Consent links work for 7 days; this one lapsed on ${until}. Nothing was recorded. If you still want to give your consent, ask the requester for a new link.`],
  requestWithdrawn: ['This request was withdrawn', 'This voice was withdrawn. The link no longer works, and nothing more will be done with it.'],
  usedHeading: 'Consent already given',
  used: 'You already gave your consent with this link; it cannot be used again. The receipt we e-mailed you has the link to withdraw your consent at any time.',
  usedFailed: 'You already gave your consent with this link, but the voice could not be made from the recording. The recording was deleted; the requester can send you a new link.',
  revokeTitle: 'Withdraw your consent',
  revokeAgreed: (org, voice) => `You agreed that ${org} may create and use a synthetic copy of your voice, called "${voice}".`,
  revokeWarning: 'If you withdraw, the voice stops working at once, also in conversations already under way, and your recording is deleted. This cannot be undone.',
  revokeButton: 'Withdraw my consent',
  revokedHeading: 'Consent withdrawn',
  revoked: (voice, org, before) => `Your consent for the voice "${voice}" of ${org} is withdrawn.${before ? ' It was withdrawn before.' : ''} The voice can no longer be used and your recording was deleted. We e-mailed you a receipt.`,
  nothingHeading: 'Nothing to withdraw',
  nothing: (voice) => `The voice "${voice}" was never made, so it cannot be used; your recording was deleted.`,
  script: {
    sending: 'Sending…',
    sent: 'We sent a code to {to}. It works for {minutes} minutes.',
    offline: 'The service could not be reached; check your connection and try again.',
    unreachable: 'The service could not be reached; try again.',
    problem: 'Something went wrong ({status}); please try again.',
    noRecorder: 'This browser cannot record audio. Please open the link in a current version of Firefox, Chrome, Edge or Safari.',
    askingMic: 'Asking for your microphone…',
    recordAgain: 'Record again',
    tooShort: 'That was only {seconds} s. Read the whole sentence (at least {min} s).',
    recorded: 'Recorded {seconds} s. Listen to it if you like, then tick the box and give your consent.',
    recording: 'Recording. Read the sentence, then press Stop.',
    micDenied: 'We could not use your microphone. Allow this page to use it (the icon in the address bar) and press Record again.',
    uploading: 'Sending your recording…',
    thanks: 'Thank you: your consent is recorded. Your voice is being prepared…',
    ready: 'Your voice is ready. We e-mailed you a receipt with a link to withdraw your consent at any time.',
    failed: 'We could not make a voice from this recording (too little speech). The recording was deleted; the requester can send you a new link.',
    revoked: 'This voice was withdrawn.',
    stillPreparing: 'Your consent is recorded. The voice is still being prepared; you can close this page.',
    seconds: '{n} s',
  },
  errors: {
    codeDigits: 'enter the 6 digits of the code we e-mailed you',
    wrongCode: (left) => `wrong code; ${left} ${left === 1 ? 'try' : 'tries'} left`,
    wrongCodeLast: 'wrong code; too many tries, ask for a new code',
    askFirst: 'ask for a code first',
    codeExpired: 'this code has expired; ask for a new one',
    tooManyCodes: (n) => `${n} codes were sent for this link already; ask the requester for a new link`,
    codeWait: (s) => `a code was sent moments ago; wait ${s} s before asking for another`,
    confirmFirst: 'confirm your e-mail address with a code first (or again: the confirmation lapsed)',
    linkUsed: 'This consent was already given; the link cannot be used again.',
    linkWithdrawn: 'This request was withdrawn; the link no longer works.',
    linkExpired: 'This link has expired; ask for a new one.',
    linkClosed: 'This link no longer works.',
    notAudio: 'this is not audio we can read; record again',
    tooShort: (s, min) => `${s} long; record at least ${min} s (the whole sentence)`,
    tooLong: (s, max) => `${s} long; at most ${max} s`,
    silence: 'we heard only silence; check that the right microphone is on and not muted, and record again',
    notSaid: 'we could not hear the consent sentence in it; read the whole sentence aloud, clearly, and record again',
    tooManyRecordings: (n) => `${n} recordings were sent for this link already`,
    recordingType: 'send the audio as the browser recorded it (audio/webm, audio/ogg or audio/mp4)',
    tooMany: 'Too many attempts for now; please try again later.',
    other: 'Something went wrong; please try again.',
  },
  mail: {
    hello: (person) => `Hello ${person},`,
    requestSubject: (org) => `${org} asks for your consent to copy your voice`,
    requestAsks: (org, voice) => `${org} asks for your permission to create a synthetic copy of your voice, called "${voice}".`,
    requestWhy: (purpose) => `They say why: ${purpose}`,
    requestHow: 'Nothing happens without you. If you agree, open this link, confirm this address with a code we send to it, and read one sentence aloud:',
    requestUntil: (until, org) => `The link works until ${until}. If you do not know ${org} or do not want this, ignore this mail: the request lapses by itself.`,
    codeSubject: (code) => `Your code: ${code}`,
    codeIntro: (org) => `Your code to continue the voice consent asked for by ${org} is:`,
    codeWorks: (minutes) => `It works for ${minutes} minutes, once. If you did not ask for it, ignore this mail: nobody can continue without it.`,
    confirmationSubject: (org) => `You gave ${org} consent to copy your voice`,
    confirmationAgreed: (at, org, voice) => `On ${at} you agreed that ${org} may create and use a synthetic copy of your voice, called "${voice}", by reading:`,
    confirmationWithdraw: 'You can withdraw this consent at any time, without an account, by opening this link and confirming:',
    confirmationAfter: 'Once withdrawn, the voice stops working at once, also in conversations already under way, and your recording is deleted. Keep this mail.',
    revokedSubject: (org) => `The copy of your voice for ${org} was withdrawn`,
    revokedByPerson: (voice) => `As you asked, your consent for the voice "${voice}" is withdrawn.`,
    revokedByOrg: (org, voice) => `${org} withdrew the voice "${voice}" it had made with your consent.`,
    revokedAfter: 'The voice can no longer be used, and your recording was deleted.',
  },
};

const pt: ConsentTexts = {
  title: 'Autorização para copiar a sua voz',
  meta: (org, person) => `${org} pede a ${person} autorização para criar uma cópia sintética da sua voz.`,
  askHeading: 'O que lhe pedem',
  whoAsks: 'Quem pede',
  why: 'Para quê',
  purposeNone: 'Não disseram. Pergunte antes de aceitar.',
  voiceName: 'Nome da voz',
  language: 'Idioma',
  linkUntil: 'Este link vale até',
  voiceUse:
    'Uma cópia sintética da sua voz pode dizer qualquer texto que a organização enviar, em conversas com tradução ao vivo: os agentes de IA dela em salas e as chamadas telefônicas traduzidas. ' +
    'Todo agente que fala com ela avisa às pessoas com quem conversa que é uma IA.',
  nothingHappens:
    'Nada acontece se você não concluir as etapas abaixo. A sua gravação fica guardada como prova da sua autorização e para criar a voz. ' +
    'Você pode retirar a autorização a qualquer momento pelo link do comprovante que lhe enviamos por e-mail; a voz deixa de funcionar na hora e a gravação é apagada.',
  step1: '1. Confirme o seu endereço de e-mail',
  codeSentToHtml: (email) => `Enviamos um código de 6 dígitos para <strong>${email}</strong>, o endereço indicado no pedido.`,
  sendCode: 'Enviar código',
  codeLabel: 'Código recebido por e-mail',
  confirm: 'Confirmar',
  resend: 'Enviar outro código',
  step2: '2. Leia esta frase em voz alta',
  recordHint: 'Clique em Gravar, leia a frase inteira com a sua voz de sempre e depois clique em Parar. Antes de enviar, você pode ouvir a gravação e gravar de novo.',
  record: 'Gravar',
  stop: 'Parar',
  agree: (org) => `Autorizo ${org} a criar e usar uma cópia sintética da minha voz, como descrito acima.`,
  submit: 'Dar a minha autorização',
  step3: '3. Obrigado',
  notFound: ['Link não encontrado', 'Este link de autorização não existe. Verifique se abriu o link completo do e-mail.'],
  expired: (until) => ['Este link expirou', `Os links de autorização valem 7 dias; este expirou em ${until}. Nada foi gravado. Se ainda quiser dar a sua autorização, peça um novo link a quem fez o pedido.`],
  requestWithdrawn: ['Este pedido foi retirado', 'Esta voz foi retirada. O link já não funciona e nada mais será feito com ele.'],
  usedHeading: 'Autorização já concedida',
  used: 'Você já deu a sua autorização com este link; ele não pode ser usado de novo. O comprovante que lhe enviamos por e-mail tem o link para retirar a autorização a qualquer momento.',
  usedFailed: 'Você já deu a sua autorização com este link, mas não foi possível criar a voz a partir da gravação. A gravação foi apagada; quem fez o pedido pode lhe enviar um novo link.',
  revokeTitle: 'Retirar a sua autorização',
  revokeAgreed: (org, voice) => `Você autorizou ${org} a criar e usar uma cópia sintética da sua voz, chamada "${voice}".`,
  revokeWarning: 'Se retirar a autorização, a voz deixa de funcionar na hora, inclusive em conversas em andamento, e a sua gravação é apagada. Não é possível desfazer.',
  revokeButton: 'Retirar a minha autorização',
  revokedHeading: 'Autorização retirada',
  revoked: (voice, org, before) => `A sua autorização para a voz "${voice}" de ${org} foi retirada.${before ? ' Ela já tinha sido retirada antes.' : ''} A voz não pode mais ser usada e a sua gravação foi apagada. Enviamos um comprovante por e-mail.`,
  nothingHeading: 'Nada a retirar',
  nothing: (voice) => `A voz "${voice}" nunca chegou a ser criada, então não pode ser usada; a sua gravação foi apagada.`,
  script: {
    sending: 'Enviando…',
    sent: 'Enviamos um código para {to}. Ele vale por {minutes} minutos.',
    offline: 'Não foi possível contactar o serviço; verifique a sua conexão e tente de novo.',
    unreachable: 'Não foi possível contactar o serviço; tente de novo.',
    problem: 'Algo deu errado ({status}); tente de novo.',
    noRecorder: 'Este navegador não consegue gravar áudio. Abra o link numa versão atual do Firefox, Chrome, Edge ou Safari.',
    askingMic: 'Pedindo acesso ao microfone…',
    recordAgain: 'Gravar de novo',
    tooShort: 'Foram só {seconds} s. Leia a frase inteira (pelo menos {min} s).',
    recorded: 'Gravação de {seconds} s. Ouça se quiser, depois marque a caixa e dê a sua autorização.',
    recording: 'Gravando. Leia a frase e depois clique em Parar.',
    micDenied: 'Não conseguimos usar o seu microfone. Permita que esta página o use (o ícone na barra de endereço) e clique em Gravar de novo.',
    uploading: 'Enviando a sua gravação…',
    thanks: 'Obrigado: a sua autorização foi registrada. A sua voz está sendo preparada…',
    ready: 'A sua voz está pronta. Enviamos por e-mail um comprovante com um link para retirar a autorização a qualquer momento.',
    failed: 'Não conseguimos criar uma voz a partir desta gravação (há pouca fala nela). A gravação foi apagada; quem fez o pedido pode lhe enviar um novo link.',
    revoked: 'Esta voz foi retirada.',
    stillPreparing: 'A sua autorização foi registrada. A voz ainda está sendo preparada; você já pode fechar esta página.',
    seconds: '{n} s',
  },
  errors: {
    codeDigits: 'digite os 6 dígitos do código que enviamos por e-mail',
    wrongCode: (left) => `código errado; ${left === 1 ? 'resta 1 tentativa' : `restam ${left} tentativas`}`,
    wrongCodeLast: 'código errado; tentativas demais, peça um novo código',
    askFirst: 'peça um código primeiro',
    codeExpired: 'este código expirou; peça um novo',
    tooManyCodes: (n) => `já foram enviados ${n} códigos para este link; peça um novo link a quem fez o pedido`,
    codeWait: (s) => `um código acabou de ser enviado; espere ${s} s antes de pedir outro`,
    confirmFirst: 'confirme primeiro o seu endereço de e-mail com um código (ou de novo: a confirmação expirou)',
    linkUsed: 'Esta autorização já foi dada; o link não pode ser usado de novo.',
    linkWithdrawn: 'Este pedido foi retirado; o link já não funciona.',
    linkExpired: 'Este link expirou; peça um novo.',
    linkClosed: 'Este link já não funciona.',
    notAudio: 'não conseguimos ler este áudio; grave de novo',
    tooShort: (s, min) => `a gravação tem ${s}; grave pelo menos ${min} s (a frase inteira)`,
    tooLong: (s, max) => `a gravação tem ${s}; no máximo ${max} s`,
    silence: 'só ouvimos silêncio; verifique se o microfone certo está ligado e sem mudo, e grave de novo',
    notSaid: 'não conseguimos ouvir a frase de autorização na gravação; leia a frase inteira em voz alta, com clareza, e grave de novo',
    tooManyRecordings: (n) => `já foram enviadas ${n} gravações para este link`,
    recordingType: 'envie o áudio tal como o navegador o gravou (audio/webm, audio/ogg ou audio/mp4)',
    tooMany: 'Tentativas demais por agora; tente de novo mais tarde.',
    other: 'Algo deu errado; tente de novo.',
  },
  mail: {
    hello: (person) => `Olá, ${person},`,
    requestSubject: (org) => `${org} pede a sua autorização para copiar a sua voz`,
    requestAsks: (org, voice) => `${org} pede a sua permissão para criar uma cópia sintética da sua voz, chamada "${voice}".`,
    requestWhy: (purpose) => `O motivo, nas palavras deles: ${purpose}`,
    requestHow: 'Nada acontece sem você. Se concordar, abra este link, confirme este endereço com um código que enviaremos para ele e leia uma frase em voz alta:',
    requestUntil: (until, org) => `O link vale até ${until}. Se não conhece ${org} ou não quer isso, ignore este e-mail: o pedido expira sozinho.`,
    codeSubject: (code) => `O seu código: ${code}`,
    codeIntro: (org) => `O seu código para continuar a autorização de voz pedida por ${org} é:`,
    codeWorks: (minutes) => `Ele vale por ${minutes} minutos e só pode ser usado uma vez. Se não foi você que pediu, ignore este e-mail: ninguém consegue continuar sem ele.`,
    confirmationSubject: (org) => `Você autorizou ${org} a copiar a sua voz`,
    confirmationAgreed: (at, org, voice) => `Em ${at}, você autorizou ${org} a criar e usar uma cópia sintética da sua voz, chamada "${voice}", lendo:`,
    confirmationWithdraw: 'Você pode retirar esta autorização a qualquer momento, sem precisar de conta, abrindo este link e confirmando:',
    confirmationAfter: 'Depois de retirada, a voz deixa de funcionar na hora, inclusive em conversas em andamento, e a sua gravação é apagada. Guarde este e-mail.',
    revokedSubject: (org) => `A cópia da sua voz para ${org} foi retirada`,
    revokedByPerson: (voice) => `Como você pediu, a sua autorização para a voz "${voice}" foi retirada.`,
    revokedByOrg: (org, voice) => `${org} retirou a voz "${voice}" que tinha criado com a sua autorização.`,
    revokedAfter: 'A voz não pode mais ser usada e a sua gravação foi apagada.',
  },
};

const es: ConsentTexts = {
  title: 'Autorización para copiar tu voz',
  meta: (org, person) => `${org} pide a ${person} permiso para crear una copia sintética de su voz.`,
  askHeading: 'Qué se te pide',
  whoAsks: 'Quién lo pide',
  why: 'Para qué',
  purposeNone: 'No lo han dicho. Pregúntales antes de aceptar.',
  voiceName: 'Nombre de la voz',
  language: 'Idioma',
  linkUntil: 'Este enlace vale hasta',
  voiceUse:
    'Una copia sintética de tu voz puede decir cualquier texto que envíe la organización, en conversaciones con traducción en directo: sus agentes de IA en salas y sus llamadas telefónicas traducidas. ' +
    'Todo agente que habla con ella avisa a las personas con las que conversa de que es una IA.',
  nothingHappens:
    'No pasa nada si no completas los pasos de abajo. Tu grabación se guarda como prueba de tu autorización y para crear la voz. ' +
    'Puedes retirarla cuando quieras con el enlace del justificante que te enviamos por correo; la voz deja de funcionar al momento y la grabación se borra.',
  step1: '1. Confirma tu dirección de correo',
  codeSentToHtml: (email) => `Enviamos un código de 6 cifras a <strong>${email}</strong>, la dirección que indica la solicitud.`,
  sendCode: 'Enviarme un código',
  codeLabel: 'Código del correo',
  confirm: 'Confirmar',
  resend: 'Enviar otro código',
  step2: '2. Lee esta frase en voz alta',
  recordHint: 'Pulsa Grabar, lee la frase entera con tu voz normal y luego pulsa Detener. Antes de enviarla puedes escucharla y volver a grabar.',
  record: 'Grabar',
  stop: 'Detener',
  agree: (org) => `Acepto que ${org} cree y use una copia sintética de mi voz, tal como se describe arriba.`,
  submit: 'Dar mi autorización',
  step3: '3. Gracias',
  notFound: ['Enlace no encontrado', 'Este enlace de autorización no existe. Comprueba que has abierto el enlace completo del correo.'],
  expired: (until) => ['Este enlace ha caducado', `Los enlaces de autorización valen 7 días; este caducó el ${until}. No se ha grabado nada. Si aún quieres dar tu autorización, pide un enlace nuevo a quien te lo solicitó.`],
  requestWithdrawn: ['Esta solicitud se ha retirado', 'Esta voz se ha retirado. El enlace ya no funciona y no se hará nada más con él.'],
  usedHeading: 'Autorización ya dada',
  used: 'Ya diste tu autorización con este enlace; no se puede volver a usar. El justificante que te enviamos por correo tiene el enlace para retirarla cuando quieras.',
  usedFailed: 'Ya diste tu autorización con este enlace, pero no se pudo crear la voz a partir de la grabación. La grabación se ha borrado; quien te lo solicitó puede enviarte un enlace nuevo.',
  revokeTitle: 'Retirar tu autorización',
  revokeAgreed: (org, voice) => `Aceptaste que ${org} creara y usara una copia sintética de tu voz, llamada "${voice}".`,
  revokeWarning: 'Si la retiras, la voz deja de funcionar al momento, también en conversaciones en curso, y tu grabación se borra. No se puede deshacer.',
  revokeButton: 'Retirar mi autorización',
  revokedHeading: 'Autorización retirada',
  revoked: (voice, org, before) => `Tu autorización para la voz "${voice}" de ${org} está retirada.${before ? ' Ya se había retirado antes.' : ''} La voz ya no se puede usar y tu grabación se ha borrado. Te hemos enviado un justificante por correo.`,
  nothingHeading: 'Nada que retirar',
  nothing: (voice) => `La voz "${voice}" nunca llegó a crearse, así que no se puede usar; tu grabación se ha borrado.`,
  script: {
    sending: 'Enviando…',
    sent: 'Hemos enviado un código a {to}. Vale durante {minutes} minutos.',
    offline: 'No se ha podido contactar con el servicio; comprueba tu conexión y vuelve a intentarlo.',
    unreachable: 'No se ha podido contactar con el servicio; vuelve a intentarlo.',
    problem: 'Algo ha fallado ({status}); vuelve a intentarlo.',
    noRecorder: 'Este navegador no puede grabar audio. Abre el enlace en una versión actual de Firefox, Chrome, Edge o Safari.',
    askingMic: 'Pidiendo acceso al micrófono…',
    recordAgain: 'Volver a grabar',
    tooShort: 'Solo han sido {seconds} s. Lee la frase entera (al menos {min} s).',
    recorded: 'Grabados {seconds} s. Escúchala si quieres, marca la casilla y da tu autorización.',
    recording: 'Grabando. Lee la frase y luego pulsa Detener.',
    micDenied: 'No hemos podido usar tu micrófono. Permite que esta página lo use (el icono de la barra de direcciones) y vuelve a pulsar Grabar.',
    uploading: 'Enviando tu grabación…',
    thanks: 'Gracias: tu autorización ha quedado registrada. Estamos preparando tu voz…',
    ready: 'Tu voz está lista. Te hemos enviado por correo un justificante con un enlace para retirar tu autorización cuando quieras.',
    failed: 'No hemos podido crear una voz con esta grabación (hay muy poca voz en ella). La grabación se ha borrado; quien te lo solicitó puede enviarte un enlace nuevo.',
    revoked: 'Esta voz se ha retirado.',
    stillPreparing: 'Tu autorización ha quedado registrada. La voz todavía se está preparando; puedes cerrar esta página.',
    seconds: '{n} s',
  },
  errors: {
    codeDigits: 'escribe las 6 cifras del código que te enviamos por correo',
    wrongCode: (left) => `código incorrecto; ${left === 1 ? 'queda 1 intento' : `quedan ${left} intentos`}`,
    wrongCodeLast: 'código incorrecto; demasiados intentos, pide un código nuevo',
    askFirst: 'pide primero un código',
    codeExpired: 'este código ha caducado; pide uno nuevo',
    tooManyCodes: (n) => `ya se han enviado ${n} códigos para este enlace; pide un enlace nuevo a quien te lo solicitó`,
    codeWait: (s) => `se acaba de enviar un código; espera ${s} s antes de pedir otro`,
    confirmFirst: 'confirma primero tu dirección de correo con un código (o de nuevo: la confirmación ha caducado)',
    linkUsed: 'Esta autorización ya se dio; el enlace no se puede volver a usar.',
    linkWithdrawn: 'Esta solicitud se ha retirado; el enlace ya no funciona.',
    linkExpired: 'Este enlace ha caducado; pide uno nuevo.',
    linkClosed: 'Este enlace ya no funciona.',
    notAudio: 'no podemos leer este audio; vuelve a grabar',
    tooShort: (s, min) => `la grabación dura ${s}; graba al menos ${min} s (la frase entera)`,
    tooLong: (s, max) => `la grabación dura ${s}; como máximo ${max} s`,
    silence: 'solo hemos oído silencio; comprueba que el micrófono correcto está encendido y sin silenciar, y vuelve a grabar',
    notSaid: 'no hemos oído la frase de autorización en la grabación; lee la frase entera en voz alta y con claridad, y vuelve a grabar',
    tooManyRecordings: (n) => `ya se han enviado ${n} grabaciones para este enlace`,
    recordingType: 'envía el audio tal como lo grabó el navegador (audio/webm, audio/ogg o audio/mp4)',
    tooMany: 'Demasiados intentos por ahora; vuelve a intentarlo más tarde.',
    other: 'Algo ha fallado; vuelve a intentarlo.',
  },
  mail: {
    hello: (person) => `Hola, ${person}:`,
    requestSubject: (org) => `${org} te pide autorización para copiar tu voz`,
    requestAsks: (org, voice) => `${org} te pide permiso para crear una copia sintética de tu voz, llamada "${voice}".`,
    requestWhy: (purpose) => `El motivo, en sus palabras: ${purpose}`,
    requestHow: 'No pasa nada sin ti. Si estás de acuerdo, abre este enlace, confirma esta dirección con un código que te enviaremos y lee una frase en voz alta:',
    requestUntil: (until, org) => `El enlace vale hasta el ${until}. Si no conoces a ${org} o no quieres hacerlo, ignora este correo: la solicitud caduca sola.`,
    codeSubject: (code) => `Tu código: ${code}`,
    codeIntro: (org) => `Tu código para continuar con la autorización de voz que pide ${org} es:`,
    codeWorks: (minutes) => `Vale durante ${minutes} minutos y una sola vez. Si no lo has pedido tú, ignora este correo: nadie puede continuar sin él.`,
    confirmationSubject: (org) => `Has autorizado a ${org} a copiar tu voz`,
    confirmationAgreed: (at, org, voice) => `El ${at} aceptaste que ${org} cree y use una copia sintética de tu voz, llamada "${voice}", leyendo:`,
    confirmationWithdraw: 'Puedes retirar esta autorización cuando quieras, sin necesidad de cuenta, abriendo este enlace y confirmando:',
    confirmationAfter: 'Una vez retirada, la voz deja de funcionar al momento, también en conversaciones en curso, y tu grabación se borra. Guarda este correo.',
    revokedSubject: (org) => `La copia de tu voz para ${org} se ha retirado`,
    revokedByPerson: (voice) => `Como pediste, tu autorización para la voz "${voice}" está retirada.`,
    revokedByOrg: (org, voice) => `${org} ha retirado la voz "${voice}" que había creado con tu autorización.`,
    revokedAfter: 'La voz ya no se puede usar y tu grabación se ha borrado.',
  },
};

const de: ConsentTexts = {
  title: 'Einwilligung zur Kopie Ihrer Stimme',
  meta: (org, person) => `${org} bittet ${person} um die Erlaubnis, eine synthetische Kopie der eigenen Stimme zu erstellen.`,
  askHeading: 'Worum Sie gebeten werden',
  whoAsks: 'Wer fragt',
  why: 'Wozu',
  purposeNone: 'Das wurde nicht angegeben. Fragen Sie nach, bevor Sie zustimmen.',
  voiceName: 'Name der Stimme',
  language: 'Sprache',
  linkUntil: 'Dieser Link gilt bis',
  voiceUse:
    'Eine synthetische Kopie Ihrer Stimme kann jeden Text sprechen, den die Organisation sendet, in live übersetzten Gesprächen: ihre KI-Agenten in Räumen und ihre übersetzten Telefonate. ' +
    'Jeder Agent, der mit dieser Stimme spricht, sagt seinen Gesprächspartnern, dass er eine KI ist.',
  nothingHappens:
    'Es geschieht nichts, solange Sie die Schritte unten nicht abschließen. Ihre Aufnahme wird als Nachweis Ihrer Einwilligung und zum Erstellen der Stimme aufbewahrt. ' +
    'Sie können jederzeit über den Link in der Bestätigung widerrufen, die wir Ihnen per E-Mail senden; die Stimme funktioniert dann sofort nicht mehr und die Aufnahme wird gelöscht.',
  step1: '1. Bestätigen Sie Ihre E-Mail-Adresse',
  codeSentToHtml: (email) => `Wir senden einen 6-stelligen Code an <strong>${email}</strong>, die Adresse aus der Anfrage.`,
  sendCode: 'Code senden',
  codeLabel: 'Code aus der E-Mail',
  confirm: 'Bestätigen',
  resend: 'Neuen Code senden',
  step2: '2. Lesen Sie diesen Satz laut vor',
  recordHint: 'Drücken Sie auf Aufnehmen, lesen Sie den ganzen Satz mit Ihrer normalen Stimme und drücken Sie dann auf Stopp. Vor dem Senden können Sie sich die Aufnahme anhören und neu aufnehmen.',
  record: 'Aufnehmen',
  stop: 'Stopp',
  agree: (org) => `Ich willige ein, dass ${org} eine synthetische Kopie meiner Stimme wie oben beschrieben erstellen und verwenden darf.`,
  submit: 'Einwilligung geben',
  step3: '3. Vielen Dank',
  notFound: ['Link nicht gefunden', 'Diesen Einwilligungslink gibt es nicht. Prüfen Sie, ob Sie den vollständigen Link aus der E-Mail geöffnet haben.'],
  expired: (until) => ['Dieser Link ist abgelaufen', `Einwilligungslinks gelten 7 Tage; dieser ist am ${until} abgelaufen. Es wurde nichts aufgenommen. Wenn Sie Ihre Einwilligung noch geben möchten, bitten Sie den Anfragenden um einen neuen Link.`],
  requestWithdrawn: ['Diese Anfrage wurde zurückgezogen', 'Diese Stimme wurde zurückgezogen. Der Link funktioniert nicht mehr, und es geschieht nichts weiter damit.'],
  usedHeading: 'Einwilligung bereits gegeben',
  used: 'Sie haben mit diesem Link bereits eingewilligt; er kann nicht noch einmal verwendet werden. In der Bestätigung, die wir Ihnen per E-Mail gesendet haben, finden Sie den Link zum Widerruf.',
  usedFailed: 'Sie haben mit diesem Link bereits eingewilligt, aber aus der Aufnahme ließ sich keine Stimme erstellen. Die Aufnahme wurde gelöscht; der Anfragende kann Ihnen einen neuen Link senden.',
  revokeTitle: 'Einwilligung widerrufen',
  revokeAgreed: (org, voice) => `Sie haben eingewilligt, dass ${org} eine synthetische Kopie Ihrer Stimme mit dem Namen „${voice}“ erstellen und verwenden darf.`,
  revokeWarning: 'Wenn Sie widerrufen, funktioniert die Stimme sofort nicht mehr, auch in laufenden Gesprächen, und Ihre Aufnahme wird gelöscht. Das lässt sich nicht rückgängig machen.',
  revokeButton: 'Einwilligung widerrufen',
  revokedHeading: 'Einwilligung widerrufen',
  revoked: (voice, org, before) => `Ihre Einwilligung für die Stimme „${voice}“ von ${org} ist widerrufen.${before ? ' Sie war bereits zuvor widerrufen worden.' : ''} Die Stimme kann nicht mehr verwendet werden, und Ihre Aufnahme wurde gelöscht. Wir haben Ihnen eine Bestätigung per E-Mail gesendet.`,
  nothingHeading: 'Nichts zu widerrufen',
  nothing: (voice) => `Die Stimme „${voice}“ wurde nie erstellt und kann daher nicht verwendet werden; Ihre Aufnahme wurde gelöscht.`,
  script: {
    sending: 'Wird gesendet…',
    sent: 'Wir haben einen Code an {to} gesendet. Er gilt {minutes} Minuten.',
    offline: 'Der Dienst ist nicht erreichbar; prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
    unreachable: 'Der Dienst ist nicht erreichbar; versuchen Sie es erneut.',
    problem: 'Etwas ist schiefgegangen ({status}); bitte versuchen Sie es erneut.',
    noRecorder: 'Dieser Browser kann keinen Ton aufnehmen. Öffnen Sie den Link bitte in einer aktuellen Version von Firefox, Chrome, Edge oder Safari.',
    askingMic: 'Zugriff auf Ihr Mikrofon wird angefragt…',
    recordAgain: 'Neu aufnehmen',
    tooShort: 'Das waren nur {seconds} s. Lesen Sie den ganzen Satz (mindestens {min} s).',
    recorded: '{seconds} s aufgenommen. Hören Sie sie sich an, wenn Sie möchten, setzen Sie dann das Häkchen und geben Sie Ihre Einwilligung.',
    recording: 'Aufnahme läuft. Lesen Sie den Satz und drücken Sie dann auf Stopp.',
    micDenied: 'Wir konnten Ihr Mikrofon nicht verwenden. Erlauben Sie dieser Seite den Zugriff (das Symbol in der Adressleiste) und drücken Sie erneut auf Aufnehmen.',
    uploading: 'Ihre Aufnahme wird gesendet…',
    thanks: 'Vielen Dank: Ihre Einwilligung ist erfasst. Ihre Stimme wird vorbereitet…',
    ready: 'Ihre Stimme ist bereit. Wir haben Ihnen eine Bestätigung mit einem Link zum jederzeitigen Widerruf per E-Mail gesendet.',
    failed: 'Aus dieser Aufnahme ließ sich keine Stimme erstellen (zu wenig Sprache). Die Aufnahme wurde gelöscht; der Anfragende kann Ihnen einen neuen Link senden.',
    revoked: 'Diese Stimme wurde zurückgezogen.',
    stillPreparing: 'Ihre Einwilligung ist erfasst. Die Stimme wird noch vorbereitet; Sie können diese Seite schließen.',
    seconds: '{n} s',
  },
  errors: {
    codeDigits: 'geben Sie die 6 Ziffern des Codes aus unserer E-Mail ein',
    wrongCode: (left) => `falscher Code; noch ${left} ${left === 1 ? 'Versuch' : 'Versuche'}`,
    wrongCodeLast: 'falscher Code; zu viele Versuche, fordern Sie einen neuen Code an',
    askFirst: 'fordern Sie zuerst einen Code an',
    codeExpired: 'dieser Code ist abgelaufen; fordern Sie einen neuen an',
    tooManyCodes: (n) => `für diesen Link wurden bereits ${n} Codes gesendet; bitten Sie den Anfragenden um einen neuen Link`,
    codeWait: (s) => `gerade wurde ein Code gesendet; warten Sie ${s} s, bevor Sie einen weiteren anfordern`,
    confirmFirst: 'bestätigen Sie zuerst Ihre E-Mail-Adresse mit einem Code (oder erneut: die Bestätigung ist abgelaufen)',
    linkUsed: 'Diese Einwilligung wurde bereits gegeben; der Link kann nicht noch einmal verwendet werden.',
    linkWithdrawn: 'Diese Anfrage wurde zurückgezogen; der Link funktioniert nicht mehr.',
    linkExpired: 'Dieser Link ist abgelaufen; fordern Sie einen neuen an.',
    linkClosed: 'Dieser Link funktioniert nicht mehr.',
    notAudio: 'diese Aufnahme können wir nicht lesen; nehmen Sie neu auf',
    tooShort: (s, min) => `die Aufnahme ist ${s} lang; nehmen Sie mindestens ${min} s auf (den ganzen Satz)`,
    tooLong: (s, max) => `die Aufnahme ist ${s} lang; höchstens ${max} s`,
    silence: 'wir haben nur Stille gehört; prüfen Sie, ob das richtige Mikrofon eingeschaltet und nicht stummgeschaltet ist, und nehmen Sie neu auf',
    notSaid: 'wir konnten den Einwilligungssatz in der Aufnahme nicht hören; lesen Sie den ganzen Satz deutlich vor und nehmen Sie neu auf',
    tooManyRecordings: (n) => `für diesen Link wurden bereits ${n} Aufnahmen gesendet`,
    recordingType: 'senden Sie den Ton so, wie der Browser ihn aufgenommen hat (audio/webm, audio/ogg oder audio/mp4)',
    tooMany: 'Zu viele Versuche; bitte versuchen Sie es später erneut.',
    other: 'Etwas ist schiefgegangen; bitte versuchen Sie es erneut.',
  },
  mail: {
    hello: (person) => `Hallo ${person},`,
    requestSubject: (org) => `${org} bittet um Ihre Einwilligung, Ihre Stimme zu kopieren`,
    requestAsks: (org, voice) => `${org} bittet Sie um die Erlaubnis, eine synthetische Kopie Ihrer Stimme mit dem Namen „${voice}“ zu erstellen.`,
    requestWhy: (purpose) => `Als Grund wird genannt: ${purpose}`,
    requestHow: 'Ohne Sie geschieht nichts. Wenn Sie einverstanden sind, öffnen Sie diesen Link, bestätigen Sie diese Adresse mit einem Code, den wir an sie senden, und lesen Sie einen Satz laut vor:',
    requestUntil: (until, org) => `Der Link gilt bis ${until}. Wenn Sie ${org} nicht kennen oder das nicht möchten, ignorieren Sie diese E-Mail: Die Anfrage verfällt von selbst.`,
    codeSubject: (code) => `Ihr Code: ${code}`,
    codeIntro: (org) => `Ihr Code, um mit der von ${org} erbetenen Einwilligung fortzufahren, lautet:`,
    codeWorks: (minutes) => `Er gilt ${minutes} Minuten und nur einmal. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail: Ohne ihn kann niemand fortfahren.`,
    confirmationSubject: (org) => `Sie haben ${org} erlaubt, Ihre Stimme zu kopieren`,
    confirmationAgreed: (at, org, voice) => `Am ${at} haben Sie eingewilligt, dass ${org} eine synthetische Kopie Ihrer Stimme mit dem Namen „${voice}“ erstellen und verwenden darf, indem Sie vorgelesen haben:`,
    confirmationWithdraw: 'Sie können diese Einwilligung jederzeit ohne Konto widerrufen, indem Sie diesen Link öffnen und bestätigen:',
    confirmationAfter: 'Nach dem Widerruf funktioniert die Stimme sofort nicht mehr, auch in laufenden Gesprächen, und Ihre Aufnahme wird gelöscht. Bewahren Sie diese E-Mail auf.',
    revokedSubject: (org) => `Die Kopie Ihrer Stimme für ${org} wurde widerrufen`,
    revokedByPerson: (voice) => `Wie gewünscht ist Ihre Einwilligung für die Stimme „${voice}“ widerrufen.`,
    revokedByOrg: (org, voice) => `${org} hat die Stimme „${voice}“ zurückgezogen, die mit Ihrer Einwilligung erstellt worden war.`,
    revokedAfter: 'Die Stimme kann nicht mehr verwendet werden, und Ihre Aufnahme wurde gelöscht.',
  },
};

const fr: ConsentTexts = {
  title: 'Consentement à la copie de votre voix',
  meta: (org, person) => `${org} demande à ${person} l’autorisation de créer une copie synthétique de sa voix.`,
  askHeading: 'Ce qui vous est demandé',
  whoAsks: 'Qui le demande',
  why: 'Dans quel but',
  purposeNone: 'Ce n’est pas précisé. Posez la question avant d’accepter.',
  voiceName: 'Nom de la voix',
  language: 'Langue',
  linkUntil: 'Ce lien est valable jusqu’au',
  voiceUse:
    'Une copie synthétique de votre voix peut dire tout texte que l’organisation envoie, dans des conversations traduites en direct : ses agents IA dans des salles et ses appels téléphoniques traduits. ' +
    'Chaque agent qui parle avec cette voix indique à ses interlocuteurs qu’il est une IA.',
  nothingHappens:
    'Rien ne se passe tant que vous n’avez pas terminé les étapes ci-dessous. Votre enregistrement est conservé comme preuve de votre consentement et pour créer la voix. ' +
    'Vous pouvez retirer votre consentement à tout moment grâce au lien du reçu que nous vous envoyons par e-mail ; la voix cesse alors aussitôt de fonctionner et l’enregistrement est supprimé.',
  step1: '1. Confirmez votre adresse e-mail',
  codeSentToHtml: (email) => `Nous envoyons un code à 6 chiffres à <strong>${email}</strong>, l’adresse indiquée dans la demande.`,
  sendCode: 'M’envoyer un code',
  codeLabel: 'Code reçu par e-mail',
  confirm: 'Confirmer',
  resend: 'Envoyer un nouveau code',
  step2: '2. Lisez cette phrase à voix haute',
  recordHint: 'Appuyez sur Enregistrer, lisez toute la phrase avec votre voix habituelle, puis appuyez sur Arrêter. Avant de l’envoyer, vous pouvez l’écouter et recommencer.',
  record: 'Enregistrer',
  stop: 'Arrêter',
  agree: (org) => `J’accepte que ${org} crée et utilise une copie synthétique de ma voix, comme décrit ci-dessus.`,
  submit: 'Donner mon consentement',
  step3: '3. Merci',
  notFound: ['Lien introuvable', 'Ce lien de consentement n’existe pas. Vérifiez que vous avez ouvert le lien complet de l’e-mail.'],
  expired: (until) => ['Ce lien a expiré', `Les liens de consentement sont valables 7 jours ; celui-ci a expiré le ${until}. Rien n’a été enregistré. Si vous souhaitez toujours donner votre consentement, demandez un nouveau lien à l’auteur de la demande.`],
  requestWithdrawn: ['Cette demande a été retirée', 'Cette voix a été retirée. Le lien ne fonctionne plus et rien d’autre ne sera fait avec.'],
  usedHeading: 'Consentement déjà donné',
  used: 'Vous avez déjà donné votre consentement avec ce lien ; il ne peut pas être réutilisé. Le reçu que nous vous avons envoyé par e-mail contient le lien pour le retirer à tout moment.',
  usedFailed: 'Vous avez déjà donné votre consentement avec ce lien, mais la voix n’a pas pu être créée à partir de l’enregistrement. L’enregistrement a été supprimé ; l’auteur de la demande peut vous envoyer un nouveau lien.',
  revokeTitle: 'Retirer votre consentement',
  revokeAgreed: (org, voice) => `Vous avez accepté que ${org} crée et utilise une copie synthétique de votre voix, appelée « ${voice} ».`,
  revokeWarning: 'Si vous le retirez, la voix cesse aussitôt de fonctionner, y compris dans les conversations en cours, et votre enregistrement est supprimé. C’est irréversible.',
  revokeButton: 'Retirer mon consentement',
  revokedHeading: 'Consentement retiré',
  revoked: (voice, org, before) => `Votre consentement pour la voix « ${voice} » de ${org} est retiré.${before ? ' Il avait déjà été retiré.' : ''} La voix ne peut plus être utilisée et votre enregistrement a été supprimé. Nous vous avons envoyé un reçu par e-mail.`,
  nothingHeading: 'Rien à retirer',
  nothing: (voice) => `La voix « ${voice} » n’a jamais été créée, elle ne peut donc pas être utilisée ; votre enregistrement a été supprimé.`,
  script: {
    sending: 'Envoi…',
    sent: 'Nous avons envoyé un code à {to}. Il est valable {minutes} minutes.',
    offline: 'Le service est injoignable ; vérifiez votre connexion et réessayez.',
    unreachable: 'Le service est injoignable ; réessayez.',
    problem: 'Un problème est survenu ({status}) ; veuillez réessayer.',
    noRecorder: 'Ce navigateur ne peut pas enregistrer de son. Ouvrez le lien dans une version récente de Firefox, Chrome, Edge ou Safari.',
    askingMic: 'Demande d’accès à votre micro…',
    recordAgain: 'Recommencer',
    tooShort: 'Seulement {seconds} s. Lisez toute la phrase (au moins {min} s).',
    recorded: '{seconds} s enregistrées. Écoutez-les si vous le souhaitez, puis cochez la case et donnez votre consentement.',
    recording: 'Enregistrement en cours. Lisez la phrase, puis appuyez sur Arrêter.',
    micDenied: 'Nous n’avons pas pu utiliser votre micro. Autorisez cette page à l’utiliser (l’icône dans la barre d’adresse) et appuyez à nouveau sur Enregistrer.',
    uploading: 'Envoi de votre enregistrement…',
    thanks: 'Merci : votre consentement est enregistré. Votre voix est en préparation…',
    ready: 'Votre voix est prête. Nous vous avons envoyé par e-mail un reçu avec un lien pour retirer votre consentement à tout moment.',
    failed: 'Nous n’avons pas pu créer de voix à partir de cet enregistrement (trop peu de parole). L’enregistrement a été supprimé ; l’auteur de la demande peut vous envoyer un nouveau lien.',
    revoked: 'Cette voix a été retirée.',
    stillPreparing: 'Votre consentement est enregistré. La voix est encore en préparation ; vous pouvez fermer cette page.',
    seconds: '{n} s',
  },
  errors: {
    codeDigits: 'saisissez les 6 chiffres du code que nous vous avons envoyé par e-mail',
    wrongCode: (left) => `code incorrect ; ${left === 1 ? 'encore 1 essai' : `encore ${left} essais`}`,
    wrongCodeLast: 'code incorrect ; trop d’essais, demandez un nouveau code',
    askFirst: 'demandez d’abord un code',
    codeExpired: 'ce code a expiré ; demandez-en un nouveau',
    tooManyCodes: (n) => `${n} codes ont déjà été envoyés pour ce lien ; demandez un nouveau lien à l’auteur de la demande`,
    codeWait: (s) => `un code vient d’être envoyé ; attendez ${s} s avant d’en demander un autre`,
    confirmFirst: 'confirmez d’abord votre adresse e-mail avec un code (ou à nouveau : la confirmation a expiré)',
    linkUsed: 'Ce consentement a déjà été donné ; le lien ne peut pas être réutilisé.',
    linkWithdrawn: 'Cette demande a été retirée ; le lien ne fonctionne plus.',
    linkExpired: 'Ce lien a expiré ; demandez-en un nouveau.',
    linkClosed: 'Ce lien ne fonctionne plus.',
    notAudio: 'nous ne pouvons pas lire cet enregistrement ; recommencez',
    tooShort: (s, min) => `l’enregistrement dure ${s} ; enregistrez au moins ${min} s (toute la phrase)`,
    tooLong: (s, max) => `l’enregistrement dure ${s} ; ${max} s au maximum`,
    silence: 'nous n’avons entendu que du silence ; vérifiez que le bon micro est allumé et pas en sourdine, puis recommencez',
    notSaid: 'nous n’avons pas entendu la phrase de consentement dans l’enregistrement ; lisez toute la phrase à voix haute, distinctement, puis recommencez',
    tooManyRecordings: (n) => `${n} enregistrements ont déjà été envoyés pour ce lien`,
    recordingType: 'envoyez le son tel que le navigateur l’a enregistré (audio/webm, audio/ogg ou audio/mp4)',
    tooMany: 'Trop de tentatives pour le moment ; veuillez réessayer plus tard.',
    other: 'Un problème est survenu ; veuillez réessayer.',
  },
  mail: {
    hello: (person) => `Bonjour ${person},`,
    requestSubject: (org) => `${org} vous demande votre consentement pour copier votre voix`,
    requestAsks: (org, voice) => `${org} vous demande l’autorisation de créer une copie synthétique de votre voix, appelée « ${voice} ».`,
    requestWhy: (purpose) => `Le motif indiqué : ${purpose}`,
    requestHow: 'Rien ne se fait sans vous. Si vous êtes d’accord, ouvrez ce lien, confirmez cette adresse avec un code que nous y enverrons, et lisez une phrase à voix haute :',
    requestUntil: (until, org) => `Le lien est valable jusqu’au ${until}. Si vous ne connaissez pas ${org} ou ne le souhaitez pas, ignorez cet e-mail : la demande expirera d’elle-même.`,
    codeSubject: (code) => `Votre code : ${code}`,
    codeIntro: (org) => `Votre code pour poursuivre le consentement vocal demandé par ${org} est :`,
    codeWorks: (minutes) => `Il est valable ${minutes} minutes, une seule fois. Si vous ne l’avez pas demandé, ignorez cet e-mail : personne ne peut continuer sans lui.`,
    confirmationSubject: (org) => `Vous avez autorisé ${org} à copier votre voix`,
    confirmationAgreed: (at, org, voice) => `Le ${at}, vous avez accepté que ${org} crée et utilise une copie synthétique de votre voix, appelée « ${voice} », en lisant :`,
    confirmationWithdraw: 'Vous pouvez retirer ce consentement à tout moment, sans compte, en ouvrant ce lien et en confirmant :',
    confirmationAfter: 'Une fois le consentement retiré, la voix cesse aussitôt de fonctionner, y compris dans les conversations en cours, et votre enregistrement est supprimé. Conservez cet e-mail.',
    revokedSubject: (org) => `La copie de votre voix pour ${org} a été retirée`,
    revokedByPerson: (voice) => `Comme vous l’avez demandé, votre consentement pour la voix « ${voice} » est retiré.`,
    revokedByOrg: (org, voice) => `${org} a retiré la voix « ${voice} » créée avec votre consentement.`,
    revokedAfter: 'La voix ne peut plus être utilisée et votre enregistrement a été supprimé.',
  },
};

export const CONSENT: Record<Lang, ConsentTexts> = { en, pt, es, de, fr };
