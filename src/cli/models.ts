import type { Command } from 'commander';
import { prepareModel } from '../engines/models/prepare.ts';
import { pullModels, type PullProgress } from '../engines/models/pull.ts';
import { listModels, removeModel } from '../engines/models/store.ts';

// `tolk models list | pull NAME... | remove NAME` (operator.md, Models): the
// offline engines' models in TOLK_MODELS_DIR. One JSON object on stdout as
// every command; pull draws its progress on stderr: a bar redrawn in place on
// a terminal, else a line each tenth of a file (a log keeps them).

export type ModelsSettings = { modelsDir: string; modelsMirror: string | undefined };

export function registerModels(program: Command, s: ModelsSettings, print: (o: unknown) => void): void {
  const models = program.command('models').description(`the offline engines' models, in TOLK_MODELS_DIR (${s.modelsDir})`);
  models.command('list').description('the models that can be pulled and those installed: size, languages, licence and source')
    .action(() => print({ data: listModels(s.modelsDir) }));
  models.command('pull').argument('<names...>')
    .description('download models from their publishers (TOLK_MODELS_MIRROR: a copy of them), check each file\'s SHA-256, install them')
    .action(async (names: string[]) => {
      const bar = progressBar(process.stderr);
      try {
        print({ installed: await pullModels(names, { dir: s.modelsDir, mirror: s.modelsMirror, onProgress: bar.draw, prepare: prepareModel }) });
      } finally {
        bar.done();
      }
    });
  models.command('remove').argument('<name>').description('delete an installed model')
    .action(async (name: string) => {
      await removeModel(s.modelsDir, name);
      print({ removed: name });
    });
}

const MB = 1024 * 1024;

/** Progress of downloads on a stream: redrawn in place on a terminal, a line each tenth otherwise. */
export function progressBar(out: NodeJS.WriteStream): { draw: (p: PullProgress) => void; done: () => void } {
  const tty = Boolean(out.isTTY);
  let current = '';
  let shownTenth = -1;
  let last = 0;
  let started = Date.now();
  let startBytes = 0;
  let drawn = false;
  return {
    draw(p) {
      const key = `${p.model}/${p.file}`;
      if (key !== current) {
        if (drawn && tty) out.write('\n');
        current = key;
        shownTenth = -1;
        started = Date.now();
        startBytes = p.received;
      }
      const fraction = p.total > 0 ? p.received / p.total : 1;
      const secs = (Date.now() - started) / 1000;
      const rate = secs > 0.5 ? (p.received - startBytes) / MB / secs : 0;
      const figures = `${(p.received / MB).toFixed(1)}/${(p.total / MB).toFixed(1)} MB${rate > 0 ? ` ${rate.toFixed(1)} MB/s` : ''}`;
      if (tty) {
        const now = Date.now();
        if (now - last < 100 && p.received < p.total) return;
        last = now;
        const width = 30;
        const filled = Math.round(fraction * width);
        out.write(`\r${key} [${'='.repeat(filled)}${' '.repeat(width - filled)}] ${Math.floor(fraction * 100)}% ${figures}\x1b[K`);
        drawn = true;
      } else {
        const tenth = Math.floor(fraction * 10);
        if (tenth === shownTenth) return;
        shownTenth = tenth;
        out.write(`${key} ${tenth * 10}% ${figures}\n`);
      }
    },
    done() {
      if (drawn && tty) out.write('\n');
    },
  };
}
