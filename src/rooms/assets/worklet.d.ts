// What the scripts here use beyond the DOM, for tsconfig.assets.json: the
// AudioWorklet's globals (mic-worklet.js runs in AudioWorkletGlobalScope), and
// what room.js tells room-audio.js about the person in the room.

declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(name: string, processor: new () => AudioWorkletProcessor): void;

interface Window {
  /** Set by room.js while the person is in the room. */
  tolkRoom: { me: { id: string; secret: string; name: string; speak_lang: string; hear_lang: string } } | null;
}
