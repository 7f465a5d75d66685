import { createRequire } from 'node:module';

// A Whisper decoder process (recognizer.ts starts it: ../model-process.ts):
// sherpa-onnx's native runtime with one model loaded, reading utterances from
// its parent one at a time and answering each with its text, the language it
// was read in and how long it took.
//
// Messages in:  { id, samples: Float32Array (-1..1), rate, language ('' to detect it) }
// Messages out: { ready: true } once loaded, or { fatal } and exit 1;
//               { id, text, lang, ms } or { id, error }.

type Setup = { encoder: string; decoder: string; tokens: string; threads: number };
type Request = { id: number; samples: Float32Array; rate: number; language: string };

const require = createRequire(import.meta.url);
const sherpa = require('sherpa-onnx-node') as {
  OfflineRecognizer: {
    createAsync(config: object): Promise<{
      setConfig(config: object): void;
      createStream(): { acceptWaveform(w: { samples: Float32Array; sampleRate: number }): void };
      decodeAsync(stream: unknown): Promise<{ text: string; lang: string }>;
    }>;
  };
};

const setup = JSON.parse(process.argv[2] ?? '{}') as Setup;
const send = (m: object) => process.send?.(m);
// The parent gone: nothing more to do.
process.on('disconnect', () => process.exit(0));

const config = (language: string) => ({
  modelConfig: {
    whisper: { encoder: setup.encoder, decoder: setup.decoder, language, task: 'transcribe', tailPaddings: -1 },
    tokens: setup.tokens, numThreads: setup.threads, debug: false, provider: 'cpu',
  },
  decodingMethod: 'greedy_search',
});

let recognizer: Awaited<ReturnType<typeof sherpa.OfflineRecognizer.createAsync>>;
try {
  recognizer = await sherpa.OfflineRecognizer.createAsync(config('en'));
} catch (err) {
  send({ fatal: `the model did not load: ${(err as Error).message}` });
  process.exit(1);
}

let language = 'en';
let queue: Promise<void> = Promise.resolve();

process.on('message', (m: Request) => {
  queue = queue.then(() => decode(m));
});
send({ ready: true });

async function decode(m: Request): Promise<void> {
  try {
    // The language is the recognizer's setting, not the stream's: set before each decoding that needs another.
    if (m.language !== language) {
      recognizer.setConfig(config(m.language));
      language = m.language;
    }
    const stream = recognizer.createStream();
    stream.acceptWaveform({ samples: m.samples, sampleRate: m.rate });
    const started = performance.now();
    const r = await recognizer.decodeAsync(stream);
    send({ id: m.id, text: r.text.trim(), lang: r.lang, ms: Math.round(performance.now() - started) });
  } catch (err) {
    send({ id: m.id, error: (err as Error).message });
  }
}
