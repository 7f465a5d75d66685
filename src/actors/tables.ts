import type { MachineName } from '../../machines/index.ts';

/**
 * The row each machine's object lives in, whose `status` column the store
 * writes from the machine's state (the top-level state name is the status
 * api.md shows) and whose `ended_at` it sets when the machine reaches its
 * final state. Table names are code, never input.
 */
export const OBJECT_TABLES: Record<MachineName, { table: string }> = {
  room: { table: 'rooms' },
  session: { table: 'agent_sessions' },
  call: { table: 'calls' },
  booking: { table: 'bookings' },
  voice: { table: 'voices' },
};

/** A plain column name: what the store accepts where column names are spliced into a statement. */
export const IDENT = /^[a-z_][a-z0-9_]*$/;
