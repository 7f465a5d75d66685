import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import SvoxPico from '@echogarden/svoxpico-wasm';
import { loadResampler, toLineRate } from '../speech/resample.ts';

// SVOX Pico (Apache-2.0, compiled to WebAssembly) in its own thread: a
// sentence takes tens of milliseconds to synthesize, which the API's event
// loop should not wait through. Pico speaks 16 kHz; the Speex resampler
// (BSD-3, resample.ts) brings it to 8 kHz with a proper low-pass filter.

/** The lingware of each voice: text analysis, then signal generation (lang/NOTICE). */
export const PICO_VOICES: Record<string, [string, string]> = {
  'en-US': ['en-US_ta.bin', 'en-US_lh0_sg.bin'],
  'en-GB': ['en-GB_ta.bin', 'en-GB_kh0_sg.bin'],
  'de-DE': ['de-DE_ta.bin', 'de-DE_gl0_sg.bin'],
  'es-ES': ['es-ES_ta.bin', 'es-ES_zl0_sg.bin'],
  'fr-FR': ['fr-FR_ta.bin', 'fr-FR_nk0_sg.bin'],
  'it-IT': ['it-IT_ta.bin', 'it-IT_cm0_sg.bin'],
};

const LANG_DIR = new URL('./lang/', import.meta.url);
const PICO_RATE = 16_000;
/** Pico's memory area per voice: one area holds one language's lingware. */
const PICO_MEMORY = 2_500_000;
const PICO_STEP_IDLE = 200;
const PICO_STEP_BUSY = 201;

type Wasm = any;
let pico: Wasm;
const engines = new Map<string, number>();

function cString(s: string): { ptr: number; len: number } {
  const b = Buffer.from(`${s}\0`, 'utf8');
  const ptr = pico._malloc(b.length);
  pico.HEAPU8.set(b, ptr);
  return { ptr, len: b.length };
}

function check(system: number, rc: number, what: string, ok: number[] = [0]): void {
  if (ok.includes(rc)) return;
  const msg = pico._malloc(200);
  pico._pico_getSystemStatusMessage(system, rc, msg);
  let end = msg;
  while (pico.HEAPU8[end]) end++;
  const text = Buffer.from(pico.HEAPU8.subarray(msg, end)).toString('utf8');
  pico._free(msg);
  throw new Error(`pico: ${what} failed (${rc}): ${text}`);
}

function engineFor(voice: string): number {
  const known = engines.get(voice);
  if (known !== undefined) return known;
  const files = PICO_VOICES[voice];
  if (!files) throw new Error(`pico: no voice ${voice}`);
  const mem = pico._malloc(PICO_MEMORY);
  const sysRef = pico._malloc(4);
  const rc = pico._pico_initialize(mem, PICO_MEMORY, sysRef);
  const system = pico.getValue(sysRef, 'i32');
  check(system, rc, 'initialize');
  const name = cString(`V_${voice}`);
  check(system, pico._pico_createVoiceDefinition(system, name.ptr), 'createVoiceDefinition');
  for (const file of files) {
    pico.FS.writeFile(`/${file}`, readFileSync(new URL(file, LANG_DIR)));
    const path = cString(`/${file}`);
    const resRef = pico._malloc(4);
    check(system, pico._pico_loadResource(system, path.ptr, resRef), `loadResource ${file}`);
    const resName = pico._malloc(32);
    check(system, pico._pico_getResourceName(system, pico.getValue(resRef, 'i32'), resName), 'getResourceName');
    check(system, pico._pico_addResourceToVoiceDefinition(system, name.ptr, resName), 'addResourceToVoiceDefinition');
    // Pico keeps its own copy of the resource.
    pico.FS.unlink(`/${file}`);
  }
  const engRef = pico._malloc(4);
  check(system, pico._pico_newEngine(system, name.ptr, engRef), 'newEngine');
  const engine = pico.getValue(engRef, 'i32');
  engines.set(voice, engine);
  return engine;
}

/** Pico reads markup in its input: the text is escaped, and spoken at 60 % volume (full volume clips). */
function markup(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<volume level="60">${escaped}</volume>`;
}

function synthesize16k(voice: string, text: string): Int16Array {
  const engine = engineFor(voice);
  const input = cString(markup(text));
  const written = pico._malloc(4);
  const out = pico._malloc(16_384);
  const outCount = pico._malloc(2);
  const outType = pico._malloc(2);
  const parts: Uint8Array[] = [];
  try {
    for (let offset = 0; offset < input.len;) {
      pico.setValue(written, 0, 'i32');
      check(0, pico._pico_putTextUtf8(engine, input.ptr + offset, input.len - offset, written), 'putTextUtf8');
      const put = pico.getValue(written, 'i16');
      if (put <= 0) break;
      offset += put;
      let rc: number;
      do {
        rc = pico._pico_getData(engine, out, 16_384, outCount, outType);
        check(0, rc, 'getData', [PICO_STEP_IDLE, PICO_STEP_BUSY]);
        const n = pico.getValue(outCount, 'i16');
        if (n > 0) parts.push(pico.HEAPU8.slice(out, out + n));
      } while (rc === PICO_STEP_BUSY);
    }
  } finally {
    for (const p of [input.ptr, written, out, outCount, outType]) pico._free(p);
  }
  const bytes = Buffer.concat(parts);
  return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1).slice();
}

const port = parentPort!;
const ready = Promise.all([SvoxPico(), loadResampler()]).then(([p]) => { pico = p; });

port.on('message', async (m: { id: number; voice: string; text: string }) => {
  try {
    await ready;
    const pcm = toLineRate(synthesize16k(m.voice, m.text), PICO_RATE);
    port.postMessage({ id: m.id, pcm }, [pcm.buffer as ArrayBuffer]);
  } catch (err) {
    port.postMessage({ id: m.id, error: (err as Error).message });
  }
});
