import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadConfig } from '../src/config.ts';
import { makeRecognizer } from '../src/engines/speech/index.ts';
import type { SpeechRecognizer } from '../src/engines/speech/recognizer.ts';
import { decodeWav } from '../src/engines/speech/wav.ts';
import { loadResampler, resample } from '../src/engines/speech/resample.ts';
import { corpusWer } from '../src/engines/speech/wer.ts';

// `npm run recognizer-wer [-- --engine NAME] [--langs en,es,fr,it] [--max N] [--json]`:
// how well a recognizer of this machine reads recorded speech at a phone
// line's 8 kHz, by language: the word error rate over the recordings
// (corpusWer: edits over the references' words), and how long it took per
// second of audio. The engine is the first of TOLK_RECOGNIZE (so a Whisper
// model just pulled is the one measured), or --engine names one.
//
// The recordings are Debian's, real people reading:
//   en  pocketsphinx-testdata: 5 sentences of LibriVox's "Sense and Sensibility" (16 kHz, brought to 8 kHz);
//   es, fr, it  asterisk-core-sounds-{es,fr,it}-wav: the telephone prompts of a PBX (8 kHz), with
//       their texts (core-sounds-*.txt), the --max (default 30) longest.
// Numbers and punctuation are compared as words are (wer.ts: lowercase, letters and digits).

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const PROMPTS: Record<string, { dir: string; texts: string }> = {
  es: { dir: '/usr/share/asterisk/sounds/es_MX_f_Allison', texts: '/usr/share/doc/asterisk-core-sounds-es/core-sounds-es.txt.gz' },
  fr: { dir: '/usr/share/asterisk/sounds/fr_CA_f_June', texts: '/usr/share/doc/asterisk-core-sounds-fr/core-sounds-fr.txt.gz' },
  it: { dir: '/usr/share/asterisk/sounds/it_IT_m_Carlo', texts: '/usr/share/doc/asterisk-core-sounds-it/core-sounds-it.txt.gz' },
};

export type Recording = { name: string; pcm: Int16Array; reference: string };

/** The recordings of a language (8 kHz), or [] where its package is not installed. */
export async function recordings(lang: string, max = 30): Promise<Recording[]> {
  await loadResampler();
  if (lang === 'en') {
    if (!fs.existsSync(LIBRIVOX)) return [];
    const lines = fs.readFileSync(path.join(LIBRIVOX, 'transcription'), 'utf8').split('\n');
    const out: Recording[] = [];
    for (const line of lines) {
      const m = /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)/.exec(line.trim());
      if (!m || !fs.existsSync(path.join(LIBRIVOX, `${m[2]}.wav`))) continue;
      const wav = decodeWav(fs.readFileSync(path.join(LIBRIVOX, `${m[2]}.wav`)));
      out.push({ name: m[2]!, pcm: wav.rate === 8000 ? wav.samples : resample(wav.samples, wav.rate, 8000), reference: m[1]! });
    }
    return out.slice(0, max);
  }
  const p = PROMPTS[lang];
  if (!p || !fs.existsSync(p.texts) || !fs.existsSync(p.dir)) return [];
  const texts = gunzipSync(fs.readFileSync(p.texts)).toString('latin1').split('\n')
    .map((l) => /^([a-z0-9-]+):\s*(.+)$/i.exec(l.trim()))
    .filter((m): m is RegExpExecArray => m !== null && fs.existsSync(path.join(p.dir, `${m[1]}.wav`)))
    .map((m) => ({ name: m[1]!, reference: m[2]!.replace(/\[[^\]]*\]/g, '').trim() }))
    .filter((t) => t.reference.split(/\s+/).length >= 3)
    .sort((a, b) => b.reference.length - a.reference.length || a.name.localeCompare(b.name))
    .slice(0, max);
  return texts.map((t) => {
    const wav = decodeWav(fs.readFileSync(path.join(p.dir, `${t.name}.wav`)));
    return { ...t, pcm: wav.rate === 8000 ? wav.samples : resample(wav.samples, wav.rate, 8000) };
  });
}

export type LanguageWer = { lang: string; recordings: number; audio_s: number; wer: number | null; seconds_per_audio_second: number; unread: number; hypotheses: Array<{ name: string; reference: string; hypothesis: string }> };

/** The recognizer's word error rate on each language's recordings, read one at a time. */
export async function measureWer(r: SpeechRecognizer, langs: string[], max = 30): Promise<LanguageWer[]> {
  const out: LanguageWer[] = [];
  for (const lang of langs) {
    if (!r.hears(lang)) continue;
    const recs = await recordings(lang, max);
    if (recs.length === 0) continue;
    const pairs: LanguageWer['hypotheses'] = [];
    let unread = 0;
    const started = performance.now();
    for (const rec of recs) {
      const { text } = await r.recognize({ key: rec.name, pcm: rec.pcm, rate: 8000, audioMs: rec.pcm.length / 8, lang, at: Date.now() }).catch(() => ({ text: null }));
      if (text === null) unread++;
      pairs.push({ name: rec.name, reference: rec.reference, hypothesis: text ?? '' });
    }
    const audio = recs.reduce((s, x) => s + x.pcm.length / 8000, 0);
    out.push({
      lang, recordings: recs.length, audio_s: Math.round(audio * 10) / 10, wer: Math.round(corpusWer(pairs) * 1000) / 1000,
      seconds_per_audio_second: Math.round(((performance.now() - started) / 1000 / audio) * 1000) / 1000, unread, hypotheses: pairs,
    });
  }
  return out;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const config = loadConfig();
  const name = opt('engine') ?? config.recognize[0]?.name;
  const spec = config.recognize.find((e) => e.name === name) ?? (name ? { name } : undefined);
  if (!spec) {
    process.stderr.write('no recognizer: set TOLK_RECOGNIZE, pull a Whisper model (npx tolk models pull whisper-base-int8), or name one with --engine\n');
    process.exit(2);
  }
  const r = makeRecognizer(spec, config);
  try {
    const results = await measureWer(r, (opt('langs') ?? 'en,es,fr,it').split(','), Number(opt('max') ?? 30));
    if (args.includes('--json')) process.stdout.write(`${JSON.stringify({ engine: spec.name, model: (r as { modelName?: string }).modelName ?? null, results })}\n`);
    else {
      process.stdout.write(`| language | recordings | audio s | WER | s per s of audio |\n|---|---|---|---|---|\n`);
      for (const x of results) process.stdout.write(`| ${x.lang} | ${x.recordings} | ${x.audio_s} | ${x.wer === null ? '-' : `${(x.wer * 100).toFixed(1)} %`} | ${x.seconds_per_audio_second} |\n`);
    }
  } finally {
    await r.close();
  }
}
