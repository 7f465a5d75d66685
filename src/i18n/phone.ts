// What a person who dials into a room hears from us (rooms/phone/): the greeting and the PIN
// prompts, before we know their language, said in each language of the organization's rooms;
// then, in the room, what is said to them alone, in the language they hear. Fixed wordings in
// the languages they have been written in; another language hears English.

export type PhoneTexts = {
  /** The greeting, and the ask for the PIN. */
  welcome: string;
  /** A PIN that let nobody in (wrong, expired, another room's: never which). */
  wrongPin: string;
  /** The third wrong PIN, or too many tries: before the BYE. */
  goodbye: string;
  /** In the room: {title}, and {count} people besides them. */
  joined: string;
  /** The AI-translation notice, first in the room (EU AI Act art. 50). */
  notice: string;
  muted: string;
  unmuted: string;
  /** The room ended (or they were removed): before the BYE. */
  ended: string;
  /** The room is full. */
  full: string;
};

const en: PhoneTexts = {
  welcome: 'Welcome to Tolk. Please enter your meeting PIN, then press the pound key.',
  wrongPin: 'That PIN did not work. Please enter it again, then press the pound key.',
  goodbye: 'Sorry, we could not find your meeting. Please check your PIN and call again. Goodbye.',
  joined: 'You are in {title}. {count} others are here.',
  notice: 'What others say is translated for you by artificial intelligence. Press star six to mute or unmute.',
  muted: 'You are muted.',
  unmuted: 'You are unmuted.',
  ended: 'The meeting has ended. Goodbye.',
  full: 'Sorry, this meeting is full. Goodbye.',
};

const es: PhoneTexts = {
  welcome: 'Bienvenido a Tolk. Introduzca el PIN de su reunión y pulse la tecla almohadilla.',
  wrongPin: 'Ese PIN no ha funcionado. Vuelva a introducirlo y pulse la tecla almohadilla.',
  goodbye: 'Lo sentimos, no hemos encontrado su reunión. Compruebe su PIN y vuelva a llamar. Adiós.',
  joined: 'Está en {title}. Hay {count} personas más.',
  notice: 'Lo que dicen los demás se lo traduce una inteligencia artificial. Pulse asterisco seis para silenciar o activar su micrófono.',
  muted: 'Su micrófono está silenciado.',
  unmuted: 'Su micrófono está activado.',
  ended: 'La reunión ha terminado. Adiós.',
  full: 'Lo sentimos, esta reunión está completa. Adiós.',
};

const pt: PhoneTexts = {
  welcome: 'Bem-vindo ao Tolk. Digite o PIN da sua reunião e pressione a tecla cerquilha.',
  wrongPin: 'Esse PIN não funcionou. Digite-o novamente e pressione a tecla cerquilha.',
  goodbye: 'Desculpe, não encontramos sua reunião. Verifique seu PIN e ligue novamente. Até logo.',
  joined: 'Você está em {title}. Há mais {count} pessoas aqui.',
  notice: 'O que os outros dizem é traduzido para você por inteligência artificial. Pressione asterisco seis para silenciar ou ativar o microfone.',
  muted: 'Seu microfone está silenciado.',
  unmuted: 'Seu microfone está ativado.',
  ended: 'A reunião terminou. Até logo.',
  full: 'Desculpe, esta reunião está lotada. Até logo.',
};

const fr: PhoneTexts = {
  welcome: 'Bienvenue sur Tolk. Saisissez le code PIN de votre réunion, puis appuyez sur la touche dièse.',
  wrongPin: "Ce code PIN n'a pas fonctionné. Saisissez-le à nouveau, puis appuyez sur la touche dièse.",
  goodbye: "Désolé, nous n'avons pas trouvé votre réunion. Vérifiez votre code PIN et rappelez. Au revoir.",
  joined: 'Vous êtes dans {title}. {count} autres personnes sont présentes.',
  notice: "Ce que disent les autres est traduit pour vous par une intelligence artificielle. Appuyez sur étoile six pour couper ou rétablir votre micro.",
  muted: 'Votre micro est coupé.',
  unmuted: 'Votre micro est rétabli.',
  ended: 'La réunion est terminée. Au revoir.',
  full: 'Désolé, cette réunion est complète. Au revoir.',
};

const de: PhoneTexts = {
  welcome: 'Willkommen bei Tolk. Bitte geben Sie die PIN Ihres Meetings ein und drücken Sie die Rautetaste.',
  wrongPin: 'Diese PIN hat nicht funktioniert. Bitte geben Sie sie erneut ein und drücken Sie die Rautetaste.',
  goodbye: 'Leider haben wir Ihr Meeting nicht gefunden. Bitte prüfen Sie Ihre PIN und rufen Sie erneut an. Auf Wiederhören.',
  joined: 'Sie sind in {title}. {count} weitere Personen sind hier.',
  notice: 'Was die anderen sagen, wird für Sie von künstlicher Intelligenz übersetzt. Drücken Sie Stern sechs, um Ihr Mikrofon stumm oder wieder laut zu schalten.',
  muted: 'Ihr Mikrofon ist stummgeschaltet.',
  unmuted: 'Ihr Mikrofon ist eingeschaltet.',
  ended: 'Das Meeting ist beendet. Auf Wiederhören.',
  full: 'Leider ist dieses Meeting voll. Auf Wiederhören.',
};

const it: PhoneTexts = {
  welcome: 'Benvenuto su Tolk. Inserisca il PIN della riunione, poi prema il tasto cancelletto.',
  wrongPin: 'Quel PIN non ha funzionato. Lo inserisca di nuovo, poi prema il tasto cancelletto.',
  goodbye: 'Spiacenti, non abbiamo trovato la sua riunione. Controlli il PIN e richiami. Arrivederci.',
  joined: 'È in {title}. Ci sono altre {count} persone.',
  notice: "Ciò che dicono gli altri le viene tradotto da un'intelligenza artificiale. Prema asterisco sei per disattivare o riattivare il microfono.",
  muted: 'Il suo microfono è disattivato.',
  unmuted: 'Il suo microfono è attivo.',
  ended: 'La riunione è terminata. Arrivederci.',
  full: 'Spiacenti, questa riunione è al completo. Arrivederci.',
};

const PHONE: Readonly<Record<string, PhoneTexts>> = Object.freeze({ en, es, pt, fr, de, it });

/** The phone's texts in `lang` (any tag: `pt-BR` reads pt), and the language they are in: English where none was written. */
export function phoneTexts(lang: string): { texts: PhoneTexts; lang: string } {
  const key = lang.trim().toLowerCase().split(/[-_]/, 1)[0] ?? '';
  return Object.hasOwn(PHONE, key) ? { texts: PHONE[key]!, lang: key } : { texts: en, lang: 'en' };
}

/** `{name}` placeholders filled. */
export function fillPhone(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => (Object.hasOwn(values, k) ? String(values[k]) : m));
}
