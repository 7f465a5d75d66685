// The limits of the public pages (config.ts reads them into Config.publicLimits; a test may lift some).

/**
 * What anonymous visitors of the public pages may do (http/quotas.ts), shared
 * by every server process; README "Public pages and their limits" lists them.
 * Windows are fixed: per minute, hour or day.
 */
export type PublicLimits = {
  /** Requests without a credential (pages, 401s, /docs), per client address and minute. */
  anonymousPerMinute: number;
  /** Mail caused by an anonymous request (book, reschedule, cancel, a consent code). */
  mailPerClientHour: number;
  mailPerRecipientHour: number;
  mailPerRecipientDay: number;
  /** Bookings made on one booking page link, per hour. */
  bookingsPerLinkHour: number;
  /** Changes (reschedule, cancel) through one booking's manage link, per day. */
  changesPerBookingDay: number;
  /** The room page. */
  joinsPerClientMinute: number;
  joinsPerRoomMinute: number;
  participantsPerRoom: number;
  /** Distinct languages heard by the people present in a room (each one is translated for). */
  languagesPerRoom: number;
  streamsPerParticipant: number;
  phrasesPerParticipantMinute: number;
  phrasesPerRoomMinute: number;
  /** Seconds of microphone audio one participant may send in a minute (rooms/audio.ts); more closes the socket. */
  audioSecondsPerParticipantMinute: number;
  /** Seconds an audio socket may go without a whole message (audio, `ping` or `end`) before it is closed (rooms/mic-watch.ts). */
  audioIdleSeconds: number;
  /** Phrases read aloud to one participant in a minute (rooms/read-aloud.ts). */
  readAloudPerParticipantMinute: number;
};

export const PUBLIC_LIMITS: PublicLimits = {
  anonymousPerMinute: 6000,
  mailPerClientHour: 20,
  mailPerRecipientHour: 5,
  mailPerRecipientDay: 10,
  bookingsPerLinkHour: 30,
  changesPerBookingDay: 6,
  joinsPerClientMinute: 10,
  joinsPerRoomMinute: 300,
  participantsPerRoom: 500,
  languagesPerRoom: 10,
  streamsPerParticipant: 3,
  phrasesPerParticipantMinute: 20,
  phrasesPerRoomMinute: 120,
  // A minute holds 60 s of speech; the rest is slack for a network that delivers in bursts.
  audioSecondsPerParticipantMinute: 75,
  // The page sends a ping every 20 s while its microphone is muted or push-to-talk is released.
  audioIdleSeconds: 60,
  readAloudPerParticipantMinute: 120,
};
