// Prices in minutes of balance. api.md names the factors; their values are ours.
export const PRICING = {
  /** Minutes charged per minute of API audio (say, calls). */
  apiMinuteFactor: 1,
  /** Minutes charged per minute of speech read as text while listening. */
  listenTextFactor: 0.1,
} as const;
