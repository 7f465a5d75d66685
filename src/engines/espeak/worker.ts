import { parentPort } from 'node:worker_threads';
import { loadResampler, toLineRate } from '../speech/resample.ts';

// eSpeak-NG (GPL-3.0, compiled to JavaScript with Emscripten, the npm
// package @echogarden/espeak-ng-emscripten) in its own thread: how the
// `espeak` engine speaks where Debian's espeak-ng program is not installed
// and the operator installed this package instead (synthesizer.ts). Not a
// dependency of the service. It speaks 22.05 kHz; resample.ts brings it to 8 kHz.

type Espeak = { set_voice(v: string): void; synthesize(text: string, cb: (samples: Int16Array) => number): void; samplerate: number };
let engine: Espeak | null = null;

async function load(): Promise<Espeak> {
  if (engine) return engine;
  // A specifier in a variable: the package may be absent (it is optional), and nothing imports it otherwise.
  const name = '@echogarden/espeak-ng-emscripten';
  const { default: init } = (await import(name)) as { default: () => Promise<{ eSpeakNGWorker: new () => Espeak }> };
  const m = await init();
  engine = new m.eSpeakNGWorker();
  await loadResampler();
  return engine;
}

const port = parentPort!;
port.on('message', async (m: { id: number; voice: string; text: string }) => {
  try {
    const e = await load();
    e.set_voice(m.voice);
    const chunks: Int16Array[] = [];
    // The samples are a view on the engine's memory: copied as they come.
    e.synthesize(m.text, (samples) => { chunks.push(samples.slice()); return 0; });
    const all = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
    let o = 0;
    for (const c of chunks) { all.set(c, o); o += c.length; }
    const pcm = toLineRate(all, e.samplerate);
    port.postMessage({ id: m.id, pcm }, [pcm.buffer as ArrayBuffer]);
  } catch (err) {
    port.postMessage({ id: m.id, error: (err as Error).message });
  }
});
