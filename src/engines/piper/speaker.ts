import { createRequire } from 'node:module';
import path from 'node:path';
import { loadResampler, toLineRate } from '../speech/resample.ts';

// A Piper speaker process (synthesizer.ts starts it: ../model-process.ts):
// sherpa-onnx's runtime with the voices loaded as they are first asked for
// (each a VITS model, its tokens, and eSpeak NG's data to phonemize with),
// answering each text with its speech at the line's 8 kHz.
//
// Messages in:  { id, dir (the voice's folder), text }
// Messages out: { ready: true }; { id, pcm: Int16Array (8 kHz), ms } or { id, error }.

type Setup = { espeakData: string; threads: number };
type Tts = { sampleRate: number; generateAsync(o: object): Promise<{ samples: Float32Array; sampleRate: number }> };

const require = createRequire(import.meta.url);
const sherpa = require('sherpa-onnx-node') as { OfflineTts: { createAsync(config: object): Promise<Tts> } };

const setup = JSON.parse(process.argv[2] ?? '{}') as Setup;
const send = (m: object) => process.send?.(m);
process.on('disconnect', () => process.exit(0));

const voices = new Map<string, Promise<Tts>>();

function voice(dir: string): Promise<Tts> {
  let v = voices.get(dir);
  if (!v) {
    v = sherpa.OfflineTts.createAsync({
      model: {
        vits: { model: path.join(dir, 'voice.onnx'), tokens: path.join(dir, 'tokens.txt'), dataDir: setup.espeakData, lexicon: '' },
        numThreads: setup.threads, debug: false, provider: 'cpu',
      },
      maxNumSentences: 1,
    });
    // A voice that did not load is tried again at its next request.
    v.catch(() => voices.delete(dir));
    voices.set(dir, v);
  }
  return v;
}

await loadResampler();
let queue: Promise<void> = Promise.resolve();
process.on('message', (m: { id: number; dir: string; text: string }) => {
  queue = queue.then(() => speak(m));
});
send({ ready: true });

async function speak(m: { id: number; dir: string; text: string }): Promise<void> {
  try {
    const tts = await voice(m.dir);
    const audio = await tts.generateAsync({ text: m.text, sid: 0, speed: 1 });
    const pcm16 = new Int16Array(audio.samples.length);
    for (let i = 0; i < pcm16.length; i++) pcm16[i] = Math.max(-32768, Math.min(32767, Math.round(audio.samples[i]! * 32767)));
    const pcm = toLineRate(pcm16, audio.sampleRate);
    send({ id: m.id, pcm, ms: Math.round(pcm.length / 8) });
  } catch (err) {
    send({ id: m.id, error: (err as Error).message });
  }
}
