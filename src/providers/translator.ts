// Machine translation, as a provider implements it. Test mode uses the
// simulator's (src/sim/translator.ts); Services.translator replaces it.

/**
 * Turns text from one language into another. A real machine-translation
 * provider implements the same interface (Services.translator replaces the
 * simulator's, src/sim/translator.ts).
 *
 * Synchronous on purpose: its callers (publishSegment, transcripts) run
 * inside database transactions and translate for every listener language at
 * once. A real provider is a network call, so it is async; to plug one in,
 * translate before the transaction (the listener languages are known up
 * front: `await Promise.all(langs.map((l) => provider.translate(text, from, l)))`)
 * and hand the results over as a synchronous lookup (Segment.textIn in
 * src/sessions/publish.ts), or, if that is not enough, turn this method
 * into `Promise<string>` and await it in those callers.
 *
 * from and to are language tags in any case and with any region (`en`,
 * `en-US`, `pt-BR`, `EN`); same language after normalising means the text
 * comes back unchanged.
 */
export interface Translator {
  translate(text: string, from: string, to: string): string;
}
