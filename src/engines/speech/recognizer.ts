// Hearing the line: an utterance of the far end (cut by voice activity,
// gateway/media/hearing.ts) in, its text out. An engine is a provider behind
// this interface. Without one that can read the language, the answer is
// null: the gateway reports that something was said and for how long, and
// never invents words.

export type HeardUtterance = {
  /** The call (the dialog's key). */
  key: string;
  /** 16-bit mono PCM, at `rate` (a call's line: 8 kHz). */
  pcm: Int16Array;
  /** Its sample rate; 8000 (a phone line) when left out. A microphone's recording may keep 16 kHz. */
  rate?: number;
  /** Milliseconds of audio from its first voiced frame to its last. */
  audioMs: number;
  /** The language the far end is expected to speak (the call's remote_lang). */
  lang: string;
  /** When its closing silence ended it (epoch ms). */
  at: number;
};

export interface SpeechRecognizer {
  /** Its name in TOLK_RECOGNIZE (`openai`, `deepgram`, `vosk`, `pocketsphinx`), for logs. */
  readonly name: string;
  /** Whether it reads this language (a BCP 47 tag: `en`, `pt-BR`; by its primary language). */
  hears(lang: string): boolean;
  /**
   * What was said; `text` null when the engine heard no words (silence, noise).
   * Rejects with EngineError (engines/errors.ts: status, Retry-After,
   * permanent) when the engine failed: the recognizers' chain retries, or falls
   * through to the next engine, and in the end reports the utterance with no text.
   */
  recognize(u: HeardUtterance, signal?: AbortSignal): Promise<{ text: string | null }>;
  /** Requests sent to the engine (benchmarks, tests). */
  readonly requests?: number;
  /**
   * Whether its stream (open()) hears this language as the audio comes, on the provider's side
   * (Deepgram live, vosk-server, OpenAI realtime): partials and endpointing at the cost of the
   * audio itself. Absent or false: its stream reads again or waits for the end (PocketSphinx's
   * re-reads, whole utterances), which a call's line does not use (calls/line-hearing.ts).
   */
  streamsAsSpoken?(lang: string): boolean;
  close(): Promise<void>;
}

/** No recognition engine: every utterance is reported with its length and no text. */
export class NoRecognizer implements SpeechRecognizer {
  readonly name = 'none';
  hears(): boolean {
    return false;
  }
  async recognize(): Promise<{ text: string | null }> {
    return { text: null };
  }
  async close(): Promise<void> {}
}
