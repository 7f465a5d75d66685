import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { loadBergamot, loadModel, translateWith, Wasm } from './wasm.ts';

// One language pair's translator, in a worker thread of its own (translate.ts
// starts it): the runtime translates synchronously, and a phrase must not hold
// the service's event loop. It loads the pair's model at start and translates
// a word at once (the runtime builds its graph at the first translation, where
// a broken model shows), then answers { id, texts } with { id, out }.
// A failure of the runtime itself (an abort, a trap: its state is then unsure)
// ends the thread, which is started again; a JavaScript error only fails the
// request.

const dir = (workerData as { dir: string }).dir;
const said: string[] = [];
const M = await loadBergamot((line) => { said.push(line); if (said.length > 20) said.shift(); });
const read = (name: string) => fs.readFileSync(path.join(dir, name));
const shortlistFile = path.join(dir, 'lex.s2t.bin');

function fatal(err: unknown): never {
  // Marian says why before it aborts: `[...] Error: <why>`.
  const why = said.map((l) => /\bError: (.*)$/.exec(l)?.[1]).filter((l) => l && !l.startsWith('Aborted from')).at(-1);
  const what = typeof err === 'number' ? 'the runtime stopped' : ((err as Error)?.message ?? String(err)).split('. Build with')[0];
  parentPort!.postMessage({ fatal: why ? `${why.trim()} (${what})` : what });
  process.exit(1);
}

/** Whether an error is the runtime's own (its state is then unsure), not a JavaScript one. */
const runtimeFailure = (err: unknown) => M.aborted || err instanceof Wasm.RuntimeError || typeof err === 'number';

let tm: unknown;
let service: unknown;
try {
  tm = loadModel(M, { model: read('model.bin'), shortlist: fs.existsSync(shortlistFile) ? read('lex.s2t.bin') : null, vocab: read('vocab.spm') });
  service = new M.BlockingService({ cacheSize: 0 });
  translateWith(M, service, tm, ['x']);
} catch (err) {
  fatal(err);
}
parentPort!.postMessage({ ready: true });

parentPort!.on('message', (m: { id: number; texts: string[] }) => {
  try {
    parentPort!.postMessage({ id: m.id, out: translateWith(M, service, tm, m.texts) });
  } catch (err) {
    if (runtimeFailure(err)) fatal(err);
    parentPort!.postMessage({ id: m.id, error: (err as Error).message });
  }
});
