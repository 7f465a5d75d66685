import { roomMachine } from './room.ts';
import { sessionMachine } from './session.ts';
import { callMachine } from './call.ts';
import { bookingMachine } from './booking.ts';
import { voiceMachine } from './voice.ts';

/** Every persisted lifecycle, by the name stored in actors.machine. */
export const machines = {
  room: roomMachine,
  session: sessionMachine,
  call: callMachine,
  booking: bookingMachine,
  voice: voiceMachine,
} as const;

export type MachineName = keyof typeof machines;
