// The shape of the room page's texts (room.ts), one table per language beside this file.

export type RoomTexts = {
  room: string;
  liveNow: string;
  needsScript: string;
  yourName: string;
  iSpeak: string;
  iHear: string;
  join: string;
  leave: string;
  showOriginals: string;
  conversation: string;
  newest: string;
  saySomething: string;
  send: string;
  inTheRoom: string;
  joinAgain: string;
  ended: string;
  canceled: string;
  startsBefore: string;
  startsAfter: string;
  notStarted: string;
  keepOpen: string;
  problems: Record<'not_found' | 'bad_link' | 'private', [heading: string, text: string]>;
  /** The join screen's list of what works for the languages chosen (its label; the script fills it). */
  whatWorks: string;
  /** After a language in the menus that nothing would be translated into (I hear) or from (I speak) in this room. */
  notTranslated: string;
  /** The conversation while it is empty. */
  noPhrases: string;
  /** The audio controls' markup (their changing texts are in `script`). */
  audio: { section: string; holdToTalk: string; micLevel: string; readAloud: string; privacy: string; balance: string };
  script: RoomScriptTexts;
};

/** What the room page's scripts write; `{name}` placeholders filled there. */
export type RoomScriptTexts = {
  you: string;
  someone: string;
  aiAgent: string;
  /** The badge of a participant in the room by phone. */
  byPhone: string;
  youMark: string;
  speaking: string;
  speakingNow: string;
  speaks: string; // {lang}
  hears: string; // {lang}
  notTranslated: string; // {lang}
  me: string; // {speak} {hear}
  meSpeak: string; // {speak}
  busy: string;
  problem: string; // {status}
  offline: string;
  connecting: string;
  reconnecting: string;
  noLonger: string;
  joining: string;
  join: string;
  checkForm: string;
  invalid: string;
  leftHeading: string;
  left: string;
  canceledHeading: string;
  canceled: string;
  endedHeading: string;
  ended: string;
  micUnavailable: string;
  noRecognizer: string; // {lang}
  noVoice: string; // {lang}
  notCaught: string;
  voicesLive: string;
  voicesOff: string; // {reason}
  voicesGone: string; // {reason}
  voicesLinking: string;
  micStopped: string;
  micStoppedWhy: string; // {reason}
  askingMic: string;
  micDenied: string;
  microphone: string;
  micOn: string;
  mute: string;
  unmute: string;
  pause: string;
  resume: string;
  covMic: string; // {engine}
  covNoMic: string; // {lang}
  covVoice: string; // {engine}
  covNoVoice: string; // {lang}
  covRoute: string; // {from} {to} {engine}
  covRouteVia: string; // {from} {to} {via} {engine}
  covRouteNo: string; // {from} {to}
  covTest: string;
  covUnknown: string;
};
