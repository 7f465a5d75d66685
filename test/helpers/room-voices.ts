import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { decodeWav, encodeWav } from '../../src/engines/speech/wav.ts';
import type { Netns } from './netns.ts';
import { until } from './wait.ts';

// Room pages with live voices in Chromium, in a test's network namespace (netns.ts): the
// browsers, and what a page receives measured in it with Web Audio on the tracks it plays.

/** A 16 kHz WAV Chromium plays as a microphone, over and over: the recording `wav`, then `silence` seconds of silence. */
export function microphoneFile(dir: string, wav: string, silence: number): string {
  const speech = decodeWav(fs.readFileSync(wav)).samples;
  const pcm = new Int16Array(speech.length + 16_000 * silence);
  pcm.set(speech);
  const p = path.join(dir, 'speech.wav');
  fs.writeFileSync(p, encodeWav(pcm, 16_000));
  return p;
}

/** Chromium in the namespace, its audio not muted (what the page plays is what is measured). */
export function launchIn(ns: Netns, args: string[]): Promise<Browser> {
  return chromium.launch({
    executablePath: ns.chromium,
    ignoreDefaultArgs: ['--mute-audio'],
    args: ['--no-sandbox', '--allow-loopback-in-peer-connection', '--disable-features=WebRtcHideLocalIpsWithMdns', '--autoplay-policy=no-user-gesture-required', ...args],
  });
}

/** A person joins the room at `url` (its page, as they fill it) and their voices link is live. */
export async function joinRoom(browser: Browser, contexts: BrowserContext[], url: string, name: string, speak: string, hear: string): Promise<Page> {
  const ctx = await browser.newContext({ permissions: ['microphone'] });
  contexts.push(ctx);
  const p = await ctx.newPage();
  await p.goto(url);
  await p.getByLabel('Your name').fill(name);
  await p.getByLabel('I speak').selectOption(speak);
  await p.getByLabel('I hear').selectOption(hear);
  await p.getByRole('button', { name: 'Join' }).click();
  await p.locator('#room').waitFor({ state: 'visible' });
  await until(`${name} linked to the voices`, async () => p.evaluate<boolean>('Boolean(window.tolkVoices && window.tolkVoices.live)'), 20_000);
  return p;
}

/**
 * The level (RMS, 0-1) of each voice the page plays, every 100 ms for `ms`: measured with Web Audio
 * on the tracks themselves. Keyed by whose voice it is (participant id).
 */
export async function levels(p: Page, ms: number): Promise<Record<string, number[]>> {
  // (A script in the page, as text: this project's types have no DOM.)
  return p.evaluate<Record<string, number[]>>(`(async () => {
    const voices = window.tolkVoices.voices();
    const ctx = new AudioContext();
    const meters = voices.map((v) => {
      const an = ctx.createAnalyser();
      ctx.createMediaStreamSource(v.stream).connect(an);
      return { who: v.participant_id, an, buf: new Float32Array(an.fftSize), out: [] };
    });
    for (let t = 0; t < ${ms}; t += 100) {
      await new Promise((r) => setTimeout(r, 100));
      for (const m of meters) {
        m.an.getFloatTimeDomainData(m.buf);
        m.out.push(Math.sqrt(m.buf.reduce((s, x) => s + x * x, 0) / m.buf.length));
      }
    }
    await ctx.close();
    return Object.fromEntries(meters.map((m) => [m.who, m.out]));
  })()`);
}

/** The interpretation channel in the page, every 100 ms for `ms`: its level, and how loud the original voices play then. */
export async function interpretation(p: Page, ms: number): Promise<Array<{ level: number; voices: number[]; ducked: boolean }>> {
  return p.evaluate<Array<{ level: number; voices: number[]; ducked: boolean }>>(`(async () => {
    const ctx = new AudioContext();
    const an = ctx.createAnalyser();
    ctx.createMediaStreamSource(window.tolkVoices.interpretation()).connect(an);
    const buf = new Float32Array(an.fftSize);
    const out = [];
    for (let t = 0; t < ${ms}; t += 100) {
      await new Promise((r) => setTimeout(r, 100));
      an.getFloatTimeDomainData(buf);
      out.push({ level: Math.sqrt(buf.reduce((s, x) => s + x * x, 0) / buf.length), voices: window.tolkVoices.volumes().voices, ducked: window.tolkVoices.ducked() });
    }
    await ctx.close();
    return out;
  })()`);
}

/** Until the page has its interpretation channel. */
export const interpretationLinked = (p: Page) =>
  until('the interpretation channel linked', async () => p.evaluate<boolean>('Boolean(window.tolkVoices.interpretation())'), 20_000);

export const me = (p: Page) => p.evaluate<string>('window.tolkRoom.me.id');
/** Whose voices the page receives (participant ids). */
export const heardFrom = (p: Page) => p.evaluate<string[]>('window.tolkVoices.voices().map((v) => v.participant_id)');
