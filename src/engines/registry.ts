import { apertium } from './apertium/index.ts';
import { bergamot } from './bergamot/index.ts';
import { deepgram } from './deepgram/index.ts';
import { deepl } from './deepl/index.ts';
import type { EngineDescriptor, EngineKindName, EngineSpec, OwnServer, SpeechSettings, TranslateSettings } from './descriptor.ts';
import { elevenlabs } from './elevenlabs/index.ts';
import { espeak } from './espeak/index.ts';
import { libretranslate } from './libretranslate/index.ts';
import { openai } from './openai/index.ts';
import { pico } from './pico/index.ts';
import { piper } from './piper/index.ts';
import { pocketsphinx } from './pocketsphinx/index.ts';
import type { SpeechRecognizer } from './speech/recognizer.ts';
import type { SpeechSynthesizer } from './speech/synthesizer.ts';
import type { TranslationEngine } from './translate/engine.ts';
import { sim } from './sim/index.ts';
import { vosk } from './vosk/index.ts';
import { whisper } from './whisper/index.ts';

// Every engine the service knows, one folder each (engines/<name>/index.ts
// exports its descriptor, descriptor.ts). The configuration reads the names
// an operator may list, and whether each takes a URL, from here (config.ts);
// the start makes each listed engine by its create() (translate/index.ts,
// speech/index.ts). Adding an engine is its folder and a line here.

export const ENGINES: readonly EngineDescriptor[] = [
  bergamot, apertium, libretranslate, deepl, openai, whisper, pocketsphinx, deepgram, vosk, piper, pico, espeak, elevenlabs, sim,
];

/** The environment variable that lists the engines of a kind. */
export const LIST_OF: Readonly<Record<EngineKindName, string>> = {
  translate: 'TOLK_TRANSLATE', recognize: 'TOLK_RECOGNIZE', speak: 'TOLK_SPEECH_ENGINES',
};

/** The engines an operator may list for a kind (test mode's own left out), in the registry's order. */
export function engineNames(kind: EngineKindName): string[] {
  return ENGINES.filter((d) => d[kind] && !d.testModeOnly).map((d) => d.name);
}

/** How the known engines of a kind are written: `apertium[=URL], libretranslate=URL, deepl[=URL], ...`. */
export function knownEntries(kind: EngineKindName): string {
  return ENGINES.filter((d) => d[kind] && !d.testModeOnly)
    .map((d) => (d[kind]!.url === 'required' ? `${d.name}=URL` : d[kind]!.url === 'optional' ? `${d.name}[=URL]` : d.name))
    .join(', ');
}

/** The descriptor of an engine an operator may list for a kind, or undefined. */
export function engineOf(kind: EngineKindName, name: string): EngineDescriptor | undefined {
  return ENGINES.find((d) => d.name === name && d[kind] && !d.testModeOnly);
}

/** The descriptor of a list entry; an unknown name throws (config.ts lets none through). */
function known(kind: EngineKindName, spec: EngineSpec): EngineDescriptor {
  const d = engineOf(kind, spec.name);
  if (!d) throw new Error(`${LIST_OF[kind]} names an unknown engine '${spec.name}': the known ones are ${knownEntries(kind)}`);
  return d;
}

/** The translation engine of a TOLK_TRANSLATE entry, made by its folder. */
export function createTranslationEngine(spec: EngineSpec, s: TranslateSettings): TranslationEngine {
  return known('translate', spec).translate!.create(spec, s);
}

/** The server a TOLK_TRANSLATE entry without a URL has this process run for its engine (descriptor.ts, ownServer), or undefined. */
export function ownServerOf(spec: EngineSpec): OwnServer | undefined {
  return spec.url ? undefined : known('translate', spec).translate!.ownServer;
}

/** The recognizer of a TOLK_RECOGNIZE entry, made by its folder. */
export function createRecognizer(spec: EngineSpec, s: SpeechSettings): SpeechRecognizer {
  return known('recognize', spec).recognize!.create(spec, s);
}

/** The synthesizer of a TOLK_SPEECH_ENGINES entry, made by its folder. */
export function createSynthesizer(spec: EngineSpec, s: SpeechSettings): SpeechSynthesizer {
  return known('speak', spec).speak!.create(spec, s);
}
