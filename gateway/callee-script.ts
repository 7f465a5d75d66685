import type { SpeechSynthesizer } from '../src/engines/speech/synthesizer.ts';

// What the simulated callee (callee.ts) does and says: the outcome a dialed
// number asks for (its last four digits), the hello a person says when it
// picks up, and a voicemail's recording (a greeting, then a beep).

/** What the callee says when it picks up, per language. */
export const HELLO: Record<string, string> = { en: 'Hello?', es: '¿Diga?', pt: 'Alô?', fr: 'Allô ?', de: 'Hallo?', it: 'Pronto?', nl: 'Hallo?' };
/** Its voicemail's greeting, long enough to be a recording. */
export const GREETING: Record<string, string> = {
  en: 'Hi, you have reached the voicemail of Alex. I cannot take your call right now. Please leave a message after the tone.',
  es: 'Hola, ha llamado al buzón de voz de Alex. Ahora no puedo atenderle. Deje su mensaje después de la señal.',
  pt: 'Olá, ligou para a caixa de correio de Alex. Não posso atender agora. Deixe a sua mensagem depois do sinal.',
  fr: 'Bonjour, vous êtes sur la messagerie d’Alex. Je ne peux pas répondre pour le moment. Laissez un message après le bip.',
  de: 'Hallo, Sie sind mit der Mailbox von Alex verbunden. Ich kann gerade nicht rangehen. Bitte sprechen Sie nach dem Signalton.',
  it: 'Ciao, hai raggiunto la segreteria di Alex. Non posso rispondere adesso. Lascia un messaggio dopo il segnale acustico.',
  nl: 'Hallo, u spreekt met de voicemail van Alex. Ik kan nu niet opnemen. Spreek een bericht in na de pieptoon.',
};
const BEEP_HZ = 1000;
/** The pause after each phrase, longer than the silence that ends an utterance the gateway hears. */
export const PAUSE_MS = 1000;
const BEEP_MS = 500;

/** A voicemail's beep: a 1 kHz tone, 8 kHz PCM, after a short pause. */
export function beep(): Int16Array {
  const pause = 8 * 300;
  const pcm = new Int16Array(pause + 8 * BEEP_MS);
  for (let i = 0; i < 8 * BEEP_MS; i++) pcm[pause + i] = Math.round(8000 * Math.sin((2 * Math.PI * BEEP_HZ * i) / 8000));
  return pcm;
}

/** The voicemail's recording: its greeting in `lang` (as the engine says it), then the beep. */
export async function voicemailAudio(speech: SpeechSynthesizer, lang: string): Promise<Int16Array> {
  const { pcm } = await speech.synthesize(GREETING[baseLang(lang)] ?? GREETING.en!, speech.speaks(lang) ? lang : 'en');
  const b = beep();
  const out = new Int16Array(pcm.length + b.length);
  out.set(pcm);
  out.set(b, pcm.length);
  return out;
}

export const baseLang = (lang: string) => lang.toLowerCase().split('-')[0]!;

export type Outcome =
  | { kind: 'reject'; status: number; reason: string }
  | { kind: 'ring_then_reject'; afterMs: number; status: number; reason: string }
  | { kind: 'answer'; afterMs: number; voicemail: boolean };

/** The behaviour for a dialed user part: its last four digits ('+' and other non-digits ignored). */
export function outcomeFor(user: string): Outcome {
  const last4 = user.replace(/\D/g, '').slice(-4);
  switch (last4) {
    case '0100':
      return { kind: 'reject', status: 486, reason: 'Busy Here' };
    case '0101':
      return { kind: 'ring_then_reject', afterMs: 5_000, status: 480, reason: 'Temporarily Unavailable' };
    case '0102':
      return { kind: 'answer', afterMs: 1_000, voicemail: true };
    case '0103':
      return { kind: 'reject', status: 503, reason: 'Service Unavailable' };
    default:
      return { kind: 'answer', afterMs: 1_000, voicemail: false };
  }
}
