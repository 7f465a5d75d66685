import { roomMachine } from './room.ts';

/** Every persisted lifecycle, by the name stored in actors.machine. */
export const machines = {
  room: roomMachine,
} as const;

export type MachineName = keyof typeof machines;
