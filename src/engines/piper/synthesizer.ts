import fs from 'node:fs';
import os from 'node:os';
import { EngineError } from '../errors.ts';
import { startModelProcess, type ModelProcess, type ModelReply } from '../model-process.ts';
import type { InstalledModel } from '../models/store.ts';
import { SpeechError, type Speech, type SpeechSynthesizer } from '../speech/synthesizer.ts';
import { Supervisor, type BackoffOptions } from '../supervisor.ts';
import { baseLang } from '../translate/engine.ts';

// The embedded neural voices: Piper's (rhasspy/piper, MIT; each voice under
// its recordings' licence), run by sherpa-onnx's runtime in a process of its
// own (speaker.ts; model-process.ts says why), with Debian's eSpeak NG data
// to turn text into phonemes. The voices are those installed (`npx tolk
// models pull piper-…`): a language is spoken by the voice of its exact
// locale (pt-BR), else by the first of its language. A synthesis that does
// not end in time (the runtime can hang on a broken model) ends the process,
// which is started again.

/** Where Debian's espeak-ng-data package puts eSpeak NG's data. */
export const ESPEAK_DATA = '/usr/lib/x86_64-linux-gnu/espeak-ng-data';
const SYNTHESIS_TIMEOUT_MS = 30_000;

type Reply = ModelReply & { pcm: Int16Array; ms: number };

export class PiperSynthesizer implements SpeechSynthesizer {
  readonly name = 'piper';
  private readonly voices: InstalledModel[];
  private readonly supervisor: Supervisor<ModelProcess>;
  private starting: Promise<unknown> | null = null;
  private closed = false;

  constructor(voices: InstalledModel[], o: { espeakData?: string; threads?: number; backoff?: BackoffOptions } = {}) {
    const espeakData = o.espeakData ?? ESPEAK_DATA;
    if (!fs.existsSync(`${espeakData}/phontab`)) {
      throw new Error(`piper needs eSpeak NG's data in ${espeakData}: apt-get install espeak-ng-data`);
    }
    this.voices = voices;
    const setup = { espeakData, threads: Math.max(1, o.threads ?? Math.min(2, os.availableParallelism() - 1)) };
    this.supervisor = new Supervisor<ModelProcess>({
      what: 'piper speaker', kind: 'speech', engine: this.name,
      start: () => startModelProcess(new URL('./speaker.ts', import.meta.url), setup, 'piper'),
      ...(o.backoff ? { backoff: o.backoff } : {}),
    });
  }

  /** The installed voice for a language tag: its exact locale, else the first of its language. */
  voiceFor(lang: string, voice?: string): InstalledModel | undefined {
    if (voice) {
      const named = this.voices.find((v) => v.name === voice || v.name === `piper-${voice}` || String(v.settings?.locale).toLowerCase() === voice.toLowerCase());
      if (named) return named;
    }
    const tag = lang.toLowerCase();
    return this.voices.find((v) => String(v.settings?.locale).toLowerCase() === tag) ?? this.voices.find((v) => v.languages.includes(baseLang(tag)));
  }

  speaks(lang: string): boolean {
    return this.voiceFor(lang) !== undefined;
  }

  languages(): string[] {
    return [...new Set(this.voices.flatMap((v) => [...v.languages, String(v.settings?.locale ?? '')]).filter(Boolean))];
  }

  async synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    if (this.closed) throw new SpeechError('piper: closed');
    if (!text.trim()) throw new SpeechError('piper: nothing to say');
    const v = this.voiceFor(lang, voice);
    if (!v) throw new SpeechError(`piper has no voice for ${lang} (installed: ${this.voices.map((x) => x.name).join(', ') || 'none'})`);
    this.starting ??= this.supervisor.start().catch((err: Error) => { this.starting = null; throw err; });
    try {
      await this.starting;
    } catch (err) {
      throw new SpeechError((err as Error).message, { cause: new EngineError((err as Error).message) });
    }
    const p = this.supervisor.child;
    if (!p) throw new SpeechError('piper: its process is being started again', { cause: new EngineError('piper: restarting') });
    const timeout = AbortSignal.timeout(SYNTHESIS_TIMEOUT_MS);
    try {
      const r = await p.ask<Reply>({ dir: v.dir, text }, timeout);
      return { pcm: r.pcm, ms: r.ms };
    } catch (err) {
      // A synthesis that never ends holds the process: it is ended, and another started.
      if (timeout.aborted) void p.stop();
      throw new SpeechError((err as Error).message, { cause: err });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.supervisor.stop();
  }
}
