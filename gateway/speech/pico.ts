import { Worker } from 'node:worker_threads';
import { SpeechError, type Speech, type SpeechSynthesizer } from './synthesizer.ts';

// The embedded engine: SVOX Pico in a worker thread (pico-worker.ts), with its
// lingware in pico-lang/ (Apache-2.0, see its NOTICE). It speaks English (US
// and GB), German, Spanish, French and Italian; other languages (Portuguese
// among them) need another provider.

/** Voices by language, a base tag naming its main voice. */
const VOICE_OF: Record<string, string> = {
  en: 'en-US', 'en-us': 'en-US', 'en-gb': 'en-GB',
  de: 'de-DE', 'de-de': 'de-DE',
  es: 'es-ES', 'es-es': 'es-ES',
  fr: 'fr-FR', 'fr-fr': 'fr-FR',
  it: 'it-IT', 'it-it': 'it-IT',
};

/** The Pico voice for a language tag, or undefined: the exact tag first, then its base language. */
export function picoVoice(lang: string): string | undefined {
  const tag = lang.toLowerCase();
  return VOICE_OF[tag] ?? VOICE_OF[tag.split('-')[0]!];
}

export class PicoSynthesizer implements SpeechSynthesizer {
  readonly name = 'svox-pico';
  /** Its thread, started by the first synthesis (a process that never speaks never loads the engine). */
  private thread: Worker | null = null;
  private closed = false;
  private next = 1;
  private pending = new Map<number, { ok: (s: Speech) => void; fail: (e: Error) => void }>();
  private dead: Error | null = null;

  private get worker(): Worker {
    if (this.thread) return this.thread;
    const worker = new Worker(new URL('./pico-worker.ts', import.meta.url));
    this.thread = worker;
    worker.unref();
    worker.on('message', (m: { id: number; pcm?: Int16Array; error?: string }) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref();
      if (!p) return;
      if (m.error || !m.pcm) p.fail(new SpeechError(`${this.name}: ${m.error ?? 'no audio'}`));
      else p.ok({ pcm: m.pcm, ms: Math.round(m.pcm.length / 8) });
    });
    const die = (err: Error) => {
      this.dead ??= err;
      for (const p of this.pending.values()) p.fail(err);
      this.pending.clear();
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`${this.name}: its thread exited (${code})`)));
    return worker;
  }

  speaks(lang: string): boolean {
    return picoVoice(lang) !== undefined;
  }

  synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    const v = voice && picoVoice(voice) ? picoVoice(voice)! : picoVoice(lang);
    if (!v) return Promise.reject(new SpeechError(`${this.name} does not speak ${lang} (it speaks en, de, es, fr, it)`));
    if (!text.trim()) return Promise.reject(new SpeechError(`${this.name}: nothing to say`));
    if (this.dead) return Promise.reject(this.dead);
    if (this.closed) return Promise.reject(new SpeechError(`${this.name}: closed`));
    const id = this.next++;
    return new Promise<Speech>((ok, fail) => {
      this.pending.set(id, { ok, fail });
      this.worker.ref();
      this.worker.postMessage({ id, voice: v, text });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.thread?.terminate();
  }
}
