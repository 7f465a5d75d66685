import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { EngineError } from './errors.ts';
import type { Child } from './supervisor.ts';

// A process of its own that runs an offline model with sherpa-onnx's native
// runtime (whisper/decoder.ts, piper/speaker.ts): the runtime ends its
// process on some errors (sherpa-onnx/csrc/macros.h, SHERPA_ONNX_EXIT) and
// can hang on others, and neither may take the service with it. Its owner
// keeps it running with a Supervisor (supervisor.ts), which starts another
// after a pause when it dies.
//
// The script is forked with Node's structured-clone messages (typed arrays
// travel whole): it answers { ready: true } once its model is loaded, or
// { fatal } and ends; then each { id, ... } asked with { id, ... } or
// { id, error }. It runs at low priority (nice 10, or its parent's if lower): a
// model at full tilt on every core must not take the CPU from the media thread.

export type ModelReply = { id: number; error?: string } & Record<string, unknown>;

export type ModelProcess = Child & {
  /** Sends `message` with a fresh id; resolves with its answer, rejects with an EngineError (its error, the process's end, the signal). */
  ask<R extends ModelReply>(message: Record<string, unknown>, signal?: AbortSignal): Promise<R>;
  /** Answers awaited now. */
  readonly pending: number;
};

let nextId = 1;

/** Forks `script` with `setup` (its first argument); resolves once it is ready, rejects (and it is ended) when it is not. */
export function startModelProcess(script: URL, setup: unknown, what: string): Promise<ModelProcess> {
  const child: ChildProcess = fork(script, [JSON.stringify(setup)], {
    serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'], execArgv: [],
  });
  try {
    // Never above this process's own priority (a service started at nice 19 keeps its models there).
    if (child.pid !== undefined) os.setPriority(child.pid, Math.max(10, os.getPriority()));
  } catch {
    // Not allowed here: it runs at the service's priority.
  }
  // A message sent as it dies fails with EPIPE: that request fails (below), and the process's end is its exit.
  child.on('error', () => {});
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => { stderr = (stderr + s).slice(-2000); });
  const lastLine = () => stderr.trim().split('\n').at(-1) ?? '';
  const waiting = new Map<number, { ok: (r: ModelReply) => void; fail: (e: Error) => void }>();
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => {
    const err = new EngineError(`${what}: its process stopped (${signal ?? `exit ${code}`})${lastLine() ? `: ${lastLine()}` : ''}`);
    for (const w of waiting.values()) w.fail(err);
    waiting.clear();
    resolve({ code, signal });
  }));
  const p: ModelProcess = {
    pid: child.pid,
    exited,
    get pending() {
      return waiting.size;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    ask<R extends ModelReply>(message: Record<string, unknown>, signal?: AbortSignal): Promise<R> {
      const id = nextId++;
      return new Promise<R>((resolve, reject) => {
        const onAbort = () => {
          waiting.delete(id);
          reject(new EngineError(`${what}: no answer in time`));
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.set(id, {
          ok: (r) => {
            signal?.removeEventListener('abort', onAbort);
            if (r.error !== undefined) reject(new EngineError(`${what}: ${r.error}`));
            else resolve(r as R);
          },
          fail: (e) => {
            signal?.removeEventListener('abort', onAbort);
            reject(e);
          },
        });
        child.send({ ...message, id }, (err) => {
          if (!err) return;
          const w = waiting.get(id);
          waiting.delete(id);
          w?.fail(new EngineError(`${what}: its process stopped (${err.message})`));
        });
      });
    },
  };
  return new Promise<ModelProcess>((resolve, reject) => {
    child.on('message', (m: ModelReply & { ready?: boolean; fatal?: string }) => {
      if (m.ready) return resolve(p);
      if (m.fatal) return reject(new Error(`${what}: ${m.fatal}`));
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      w?.ok(m);
    });
    void exited.then((e) => reject(new Error(`${what}: its process ended before its model was loaded (${e.signal ?? `exit ${e.code}`})${lastLine() ? `: ${lastLine()}` : ''}`)));
  });
}
