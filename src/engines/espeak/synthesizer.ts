import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { SpeechError, type Speech, type SpeechSynthesizer } from '../speech/synthesizer.ts';
import { ThreadedSynthesizer } from '../speech/threaded.ts';
import { loadResampler, toLineRate } from '../speech/resample.ts';
import { decodeWav } from '../speech/wav.ts';
import { engineLog } from '../supervisor.ts';

// eSpeak NG for the languages SVOX Pico lacks (Portuguese, Dutch, Japanese
// and a hundred more). It is GPL-3.0, so the service does not ship it; it
// runs what the operator installed, in this order:
//
//  - Debian's program (`apt-get install espeak-ng`, /usr/bin/espeak-ng): a
//    process per phrase, the text on its standard input (never an argument,
//    so no text is ever read as an option), a 22.05 kHz WAV on its standard
//    output, resampled to the line's 8 kHz. 5 s of Portuguese take about
//    40 ms, its start included, the first phrase as well. Where it is
//    installed, TOLK_SPEECH_ENGINES defaults to pico,espeak (config.ts). Its
//    voices are the ones its `--voices` lists, read once per process.
//  - else the npm package @echogarden/espeak-ng-emscripten (the same engine
//    compiled to WebAssembly) in a worker thread: its first phrase takes
//    0.5 to 0.8 s (loading and compiling), the next ones about 25 ms.
//
// Its voice is plainly synthetic: Pico's is used wherever Pico speaks.

export const ESPEAK_PACKAGE = '@echogarden/espeak-ng-emscripten';
/** Debian's espeak-ng (the package of the same name). */
export const ESPEAK_PROGRAM = '/usr/bin/espeak-ng';

/** The language tags the npm package's voices cover (its list_voices, lower case). */
const PACKAGE_LANGS = new Set(`af am an ar as az ba be bg bn bpy bs ca cmn cs cv cy da de el en en-029 en-gb en-us eo es es-419 es-mx
  et eu fa fi fo fr fr-be fr-ch fr-fr ga gd gn grc gu hak haw he hi hr ht hu hy hyw ia id io is it ja jbo ka kaa kk kl kn ko kok
  ku ky la lb lfn lt ltg lv mi mk ml mr ms mt my nb nci ne nl no nog om or pa pap pl pt pt-br pt-pt py qu quc ro ru sd shn si sk
  sl smj sq sr sv sw ta te th ti tk tn tr tt ug uk ur uz vi yue zh`.split(/\s+/).filter(Boolean));

/** A voice for a language tag out of `voices` (tag → voice): the exact tag, else its base language; undefined when none. */
function voiceIn(voices: ReadonlyMap<string, string>, lang: string): string | undefined {
  const tag = lang.toLowerCase().replaceAll('_', '-');
  return voices.get(tag) ?? voices.get(tag.split('-')[0]!);
}

/** The npm package's voice for a language tag: the exact tag, else its base language; undefined when it has none. */
export function espeakVoice(lang: string): string | undefined {
  const tag = lang.toLowerCase();
  if (PACKAGE_LANGS.has(tag)) return tag;
  const base = tag.split('-')[0]!;
  return PACKAGE_LANGS.has(base) ? base : undefined;
}

/** Whether the npm package is installed where the service can load it. */
export function espeakInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve(`${ESPEAK_PACKAGE}/package.json`);
    return true;
  } catch {
    return false;
  }
}

/** Whether Debian's espeak-ng program is installed (TOLK_SPEECH_ENGINES's default then has it). */
export function espeakProgramInstalled(program = ESPEAK_PROGRAM): boolean {
  try {
    accessSync(program, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The voices of `espeak-ng --voices` as language tag → the voice to ask for
 * (`-v`): each voice's own language, then the other languages it lists with
 * their priority (`(pt-pt 5)`, `(en 2)`; the lowest number wins), so that
 * `en` is en-gb and `zh` is cmn, as eSpeak itself would choose.
 */
export function parseVoiceList(listing: string): Map<string, string> {
  const voices = new Map<string, string>();
  const others: Array<{ tag: string; voice: string; priority: number }> = [];
  for (const line of listing.split('\n').slice(1)) {
    // Pty Language Age/Gender VoiceName File Other Languages
    const m = /^\s*\d+\s+(\S+)\s+\S+\s+\S+\s+\S+\s*(.*)$/.exec(line);
    if (!m) continue;
    const voice = m[1]!.toLowerCase();
    if (!voices.has(voice)) voices.set(voice, voice);
    for (const o of m[2]!.matchAll(/\((\S+)\s+(\d+)\)/g)) others.push({ tag: o[1]!.toLowerCase(), voice, priority: Number(o[2]) });
  }
  others.sort((a, b) => a.priority - b.priority);
  for (const o of others) if (!voices.has(o.tag)) voices.set(o.tag, o.voice);
  return voices;
}

const listed = new Map<string, Map<string, string>>();

/** The program's voices, asked once per process (a few milliseconds). Throws when it cannot list them. */
function programVoices(program: string): Map<string, string> {
  let voices = listed.get(program);
  if (!voices) {
    voices = parseVoiceList(execFileSync(program, ['--voices'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] }));
    if (voices.size === 0) throw new Error(`${program} --voices lists no voice`);
    listed.set(program, voices);
  }
  return voices;
}

/** eSpeak NG as the npm package, in a worker thread (worker.ts). */
class EspeakPackage extends ThreadedSynthesizer {
  readonly name = 'espeak-ng';

  constructor() {
    super(new URL('./worker.ts', import.meta.url));
  }

  speaks(lang: string): boolean {
    return espeakVoice(lang) !== undefined;
  }

  synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    const v = (voice && espeakVoice(voice)) || espeakVoice(lang);
    if (!v) return Promise.reject(new SpeechError(`${this.name} does not speak ${lang}`));
    return this.request(v, text);
  }
}

/** How long one phrase may take before its process is killed (5 s of speech take 40 ms). */
const PHRASE_LIMIT_MS = 20_000;

/**
 * eSpeak NG as Debian's program: a process per phrase, at most one per
 * processor at a time (the others wait their turn).
 */
class EspeakProgram implements SpeechSynthesizer {
  readonly name = 'espeak-ng';
  readonly voices: Map<string, string>;
  private readonly program: string;
  private readonly slots = Math.max(2, os.availableParallelism());
  private readonly running = new Set<ChildProcess>();
  private readonly waiting: Array<() => void> = [];
  private busy = 0;
  private closed = false;

  constructor(program: string) {
    this.program = program;
    this.voices = programVoices(program);
  }

  speaks(lang: string): boolean {
    return voiceIn(this.voices, lang) !== undefined;
  }

  async synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    const v = (voice && voiceIn(this.voices, voice)) || voiceIn(this.voices, lang);
    if (!v) throw new SpeechError(`${this.name} does not speak ${lang}`);
    if (!text.trim()) throw new SpeechError(`${this.name}: nothing to say`);
    await this.turn();
    let wav: Buffer;
    try {
      wav = await this.run(v, text);
    } finally {
      this.release();
    }
    let samples: Int16Array;
    let rate: number;
    try {
      ({ samples, rate } = decodeWav(wav));
    } catch (err) {
      throw new SpeechError(`${this.name}: ${(err as Error).message}`);
    }
    await loadResampler();
    const pcm = toLineRate(samples, rate);
    if (pcm.length === 0) throw new SpeechError(`${this.name}: no audio`);
    return { pcm, ms: Math.round(pcm.length / 8) };
  }

  /** Takes a slot, or waits for one. */
  private async turn(): Promise<void> {
    if (this.closed) throw new SpeechError(`${this.name}: closed`);
    // A slot given up is handed to the next in line as it is (busy unchanged).
    if (this.busy < this.slots) this.busy++;
    else await new Promise<void>((go) => this.waiting.push(go));
    if (this.closed) throw new SpeechError(`${this.name}: closed`);
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy--;
  }

  /** The program's WAV for `text` spoken with `voice`. */
  private run(voice: string, text: string): Promise<Buffer> {
    return new Promise((ok, fail) => {
      // -b 1: the text is UTF-8. No -m: markup (SSML) in the text is read as text.
      const child = spawn(this.program, ['-v', voice, '-b', '1', '--stdout'], { stdio: ['pipe', 'pipe', 'pipe'] });
      this.running.add(child);
      const out: Buffer[] = [];
      let err = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), PHRASE_LIMIT_MS);
      child.stdout!.on('data', (d: Buffer) => out.push(d));
      child.stderr!.setEncoding('utf8').on('data', (d: string) => { if (err.length < 1000) err += d; });
      child.on('error', (e) => { clearTimeout(timer); this.running.delete(child); fail(new SpeechError(`${this.name}: ${e.message}`)); });
      const started = Date.now();
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        this.running.delete(child);
        // Killed from outside (not by its limit or a close): that phrase fails, logged; the next phrase is a new process.
        if (signal && !this.closed && Date.now() - started < PHRASE_LIMIT_MS) {
          engineLog().warn({ engine: this.name, kind: 'speech', pid: child.pid, signal, lived_ms: Date.now() - started }, `espeak-ng (pid ${child.pid}) died (${signal}) while speaking; that phrase is silent, the next one runs anew`);
        }
        if (code === 0) ok(Buffer.concat(out));
        else fail(new SpeechError(`${this.name}: ${err.trim() || (signal ? `stopped (${signal})` : `exit ${code}`)}`));
      });
      // A broken pipe (the process died first) is reported by 'close'.
      child.stdin!.on('error', () => {});
      // `[[...]]` would be read as phoneme codes: apart, the brackets are only brackets.
      child.stdin!.end(text.replace(/\[(?=\[)/g, '[ '));
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const go of this.waiting.splice(0)) go();
    for (const child of this.running) child.kill('SIGKILL');
  }
}

export class EspeakSynthesizer implements SpeechSynthesizer {
  readonly name = 'espeak-ng';
  /** What speaks: Debian's program (its path) or the npm package (its name). */
  readonly runs: string;
  private readonly inner: EspeakProgram | EspeakPackage;

  /** `program`: Debian's espeak-ng, used where it is installed (tests point it elsewhere to try the package). */
  constructor(o: { program?: string } = {}) {
    const program = o.program ?? ESPEAK_PROGRAM;
    let broken = '';
    if (espeakProgramInstalled(program)) {
      try {
        this.inner = new EspeakProgram(program);
        this.runs = program;
        return;
      } catch (err) {
        broken = `${program} does not list its voices (${(err as Error).message.split('\n')[0]}): reinstall espeak-ng`;
      }
    }
    if (!espeakInstalled()) {
      throw new Error(broken ? `eSpeak NG cannot run: ${broken}, or leave espeak out of TOLK_SPEECH_ENGINES`
        : `eSpeak NG is not installed: apt-get install espeak-ng (or npm install ${ESPEAK_PACKAGE}; GPL-3.0), or leave espeak out of TOLK_SPEECH_ENGINES`);
    }
    this.inner = new EspeakPackage();
    this.runs = ESPEAK_PACKAGE;
  }

  speaks(lang: string): boolean {
    return this.inner.speaks(lang);
  }

  /** The language tags it has a voice for. */
  languages(): string[] {
    return this.inner instanceof EspeakProgram ? [...this.inner.voices.keys()] : [...PACKAGE_LANGS];
  }

  synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    return this.inner.synthesize(text, lang, voice);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
