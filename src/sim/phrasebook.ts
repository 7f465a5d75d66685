// The phrasebook is the simulated translator's (engines/sim/phrasebook.ts):
// the robots say its phrases, and the announcement's wording is read there.
export * from '../engines/sim/phrasebook.ts';
