import { roomMachine } from './room.ts';
import { sessionMachine } from './session.ts';
import { callMachine } from './call.ts';

/** Every persisted lifecycle, by the name stored in actors.machine. */
export const machines = {
  room: roomMachine,
  session: sessionMachine,
  call: callMachine,
} as const;

export type MachineName = keyof typeof machines;
