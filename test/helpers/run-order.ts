// How the test files are laid out over the run's workers (sequencer.ts,
// real-time-turn.ts). Only the run's length depends on these lists: a file
// missing from them, or one that moved, still runs.

/**
 * Files that hear, speak or time real audio against real peers (PocketSphinx
 * on a call, baresip and a carrier's Kamailio, the room page's audio socket,
 * a recording made in Chromium, two gateways behind Kamailio). Two of them
 * side by side on two cores take the processor each other's real-time work
 * needs (an utterance read late, a call answered late), so they take turns
 * (real-time-turn.ts), and the other files running beside them yield the
 * processor to them. Longest first.
 */
export const REAL_TIME = [
  'test/calls/hearing.test.ts',
  // Barge-in: the callee talks over the agent, and our RTP must stop while they talk.
  'test/calls/barge-in.test.ts',
  'gateway/media/barge-in.test.ts',
  'test/calls/trunks.test.ts',
  // People dialing into rooms through Kamailio: their speech heard by PocketSphinx, the room spoken to them.
  'test/rooms/dial-in.test.ts',
  // Voices live through Janus in Chromium, their levels measured in the pages (and on a phone): at nice 19
  // beside a file that hears and speaks, its service's recognizer timed out and Janus's audio came late.
  'test/rooms/voices-page.test.ts',
  // Two server processes on one operator's Janus, four people in Chromium: at nice 19 beside the voices page,
  // its interpretation came too late and its Janus-destroyed check timed out (both tries).
  'test/rooms/voices-shared.test.ts',
  'test/calls/dispatcher.test.ts',
  // SIP that carriers accept: Timer G's and a refused INVITE's retransmissions, an unreachable
  // destination failing a call within a second.
  'gateway/sip-stack.wire.test.ts',
  'gateway/sip-stack.destination.test.ts',
  'gateway/sip-stack.reinvite.test.ts',
  'test/rooms/audio.test.ts',
  'test/calls/softphone-recipe.test.ts',
  'test/rooms/audio-page.test.ts',
  'test/voices/live-cloning.test.ts',
  'test/calls/baresip.test.ts',
  'test/calls/carrier.test.ts',
  // One person floods PocketSphinx with a dozen sentences while another speaks; a decoder is killed
  // while it reads 30 s of speech: beside a call's audio either takes the processor it needs.
  'test/rooms/audio-fairness.test.ts',
  'test/engines/speech-restart.test.ts',
  // Answering-machine detection tells a greeting from a hello by the audio's timing.
  'gateway/sip-stack.callee.test.ts',
  // Two server processes beat every 0.5 s and judge each other lost after 2 s: at nice 19 beside a
  // busy file, a call through Kamailio was not answered in 20 s (fresh machine, CI).
  'test/calls/trunks-kill.test.ts',
  // Not real-time, but a model's decoding on the processor for minutes against a wall clock: at nice 19
  // beside the voices' Chromium and Janus they got none of it (a 3-recording WER read timed out at
  // 300 s twice, alone it takes under two minutes), so they take their turn too.
  'test/engines/recognizer-wer.test.ts',
  'test/engines/whisper.test.ts',
  // Not real-time itself, but its two `npm ci` runs (half a gigabyte written each, and a copy of
  // the npm cache) take the disk and processor a call's audio needs: it takes its turn with them,
  // and runs at nice 19 like the files beside it (first-steps.test.ts), which it otherwise starved
  // for its seven minutes.
  'test/start/first-steps.test.ts',
];

/**
 * The other files that take longest (20 s or more on two cores, most of it
 * child processes or calls that ring and talk), longest first: started
 * first, they do not end the run alone. vitest orders the rest (the longest
 * of its last run first, else the largest).
 */
export const LONGEST = [
  'test/start/start.test.ts',
  'test/calls/sipp.test.ts',
  'test/calls/outage.test.ts',
  'test/cli.test.ts',
  'test/api/rate-limit.test.ts',
  'test/voices/consent-page.test.ts',
  'test/engines/failures.test.ts',
  'test/cli-first-contact.test.ts',
  'test/calls/calls.test.ts',
  'test/rooms/room-calls.test.ts',
  'test/rooms/room-page.test.ts',
  'test/trunks/operator.test.ts',
  'test/webhooks/kill.test.ts',
  'test/calls/kill.test.ts',
];

const rankIn = (list: string[], file: string) => list.findIndex((f) => file === f || file.endsWith(`/${f}`));

export const realTimeRank = (file: string) => rankIn(REAL_TIME, file);
export const isRealTime = (file: string) => realTimeRank(file) >= 0;
export const longestRank = (file: string) => rankIn(LONGEST, file);
