import { roomMachine } from './room.ts';
import { sessionMachine } from './session.ts';

/** Every persisted lifecycle, by the name stored in actors.machine. */
export const machines = {
  room: roomMachine,
  session: sessionMachine,
} as const;

export type MachineName = keyof typeof machines;
