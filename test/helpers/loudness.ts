/** Loudness of 8 kHz speech: its RMS, the samples clipped, and the 20 ms frames with speech in them (RMS over 300). */
export function measure(pcm: Int16Array): { rms: number; clipped: number; loudFrames: number } {
  let sum = 0;
  let clipped = 0;
  let loudFrames = 0;
  for (let i = 0; i < pcm.length; i++) {
    sum += pcm[i]! ** 2;
    if (Math.abs(pcm[i]!) >= 32_000) clipped++;
  }
  for (let f = 0; f + 160 <= pcm.length; f += 160) {
    let s = 0;
    for (let i = f; i < f + 160; i++) s += pcm[i]! ** 2;
    if (Math.sqrt(s / 160) > 300) loudFrames++;
  }
  return { rms: Math.sqrt(sum / Math.max(1, pcm.length)), clipped, loudFrames };
}
