// The room page's microphone (room-audio.js): an AudioWorklet that turns what
// the microphone hears into 16 kHz 16-bit mono PCM, in chunks of 100 ms, and
// measures its level for the meter. The page's AudioContext runs at 16 kHz
// where the browser allows it (the browser resamples, with its own filter);
// otherwise each chunk is averaged down here.
// @ts-check (its globals, those of an AudioWorklet, are declared in worklet.d.ts)
'use strict';

const TARGET = 16000;
const CHUNK = TARGET / 10;

class TolkMic extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / TARGET;
    this.pos = 0;
    this.acc = 0;
    this.accN = 0;
    this.out = new Int16Array(CHUNK);
    this.n = 0;
    this.sq = 0;
  }

  process(inputs) {
    const ch = inputs[0] && inputs[0][0];
    if (!ch) return true;
    for (let i = 0; i < ch.length; i++) {
      const x = ch[i];
      this.acc += x;
      this.accN += 1;
      this.pos += 1;
      if (this.pos < this.step) continue;
      this.pos -= this.step;
      const v = Math.max(-1, Math.min(1, this.acc / this.accN));
      this.acc = 0;
      this.accN = 0;
      this.sq += v * v;
      this.out[this.n++] = v < 0 ? v * 0x8000 : v * 0x7fff;
      if (this.n === CHUNK) {
        const pcm = this.out.buffer.slice(0);
        this.port.postMessage({ pcm, rms: Math.sqrt(this.sq / CHUNK) }, [pcm]);
        this.n = 0;
        this.sq = 0;
      }
    }
    return true;
  }
}

registerProcessor('tolk-mic', TolkMic);
