// Speech: how long text takes to say. Billing counts spoken seconds
// (api.md: say is charged per second spoken), so the estimate is ours and
// the same in test and live mode; a speech provider (text to speech) that
// reports real durations implements Speech and replaces it in Services.speech.

export interface Speech {
  /** Whole seconds it takes to speak text, at least 1. */
  spokenSeconds(text: string): number;
}

/** Speaking rate: 15 characters a second, about 150 words a minute (6 characters a word, space included). */
export const SPEAKING_RATE_CHARS_PER_SECOND = 15;

/** Seconds it takes to speak text at SPEAKING_RATE_CHARS_PER_SECOND: ceil(characters / rate), at least 1. Characters are code points. */
export function spokenSeconds(text: string): number {
  return Math.max(1, Math.ceil([...text].length / SPEAKING_RATE_CHARS_PER_SECOND));
}

/** The estimate at SPEAKING_RATE_CHARS_PER_SECOND, used unless Services.speech replaces it. */
export const textRateSpeech: Speech = { spokenSeconds };
