// What the consent flow checks in a recording: how long it is, and how much
// of it is sound (20 ms frames whose level is above SOUND_DBFS), from the
// decoded samples (probe.ts). Pure.

/** A frame is sound when its RMS level is above this (dBFS); room noise of a quiet room is about -60, speech -35 to -15. */
export const SOUND_DBFS = -45;
const FRAME_MS = 20;

export type AudioMeasure = {
  durationMs: number;
  /** Time spent above SOUND_DBFS, in 20 ms frames. */
  soundMs: number;
  /** The loudest frame's RMS level, dBFS (-Infinity for digital silence). */
  peakDbfs: number;
  sampleRate: number;
  channels: number;
};

export function measure(channels: Float32Array[], sampleRate: number): AudioMeasure {
  const length = channels[0]?.length ?? 0;
  const frame = Math.max(1, Math.round((sampleRate * FRAME_MS) / 1000));
  const threshold = 10 ** (SOUND_DBFS / 20);
  let sound = 0;
  let peak = 0;
  for (let i = 0; i + frame <= length; i += frame) {
    let sum = 0;
    for (const ch of channels) for (let j = i; j < i + frame; j++) sum += ch[j]! * ch[j]!;
    const rms = Math.sqrt(sum / (frame * channels.length));
    if (rms > threshold) sound++;
    if (rms > peak) peak = rms;
  }
  return {
    durationMs: sampleRate > 0 ? Math.round((length / sampleRate) * 1000) : 0,
    soundMs: sound * FRAME_MS,
    peakDbfs: peak > 0 ? Math.round(20 * Math.log10(peak) * 10) / 10 : -Infinity,
    sampleRate,
    channels: channels.length,
  };
}
