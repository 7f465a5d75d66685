import type { DialogMachineEvent } from './dialog-events.ts';
import type { DialogSnapshot } from './dialog.ts';

// What the signaling adapters ask of a dialog's snapshot (dialog.ts), so that
// each reads the machine's states by one name rather than by their shape.

/** Whether the far end holds the answered dialog (its SDP says sendonly or inactive). */
export function heldByFarEnd(snapshot: DialogSnapshot): boolean {
  return snapshot.matches({ live: { answered: { media: 'held' } } });
}

/** HOLD or RESUME when the far end's new SDP changes whether it holds the call; nothing when it does not. */
export function holdEvent(snapshot: DialogSnapshot, held: boolean): DialogMachineEvent | undefined {
  return held === heldByFarEnd(snapshot) ? undefined : { type: held ? 'HOLD' : 'RESUME' };
}

/** We want the INVITE CANCELed, and the CANCEL waits for a 1xx (RFC 3261 9.1): the machine sends it when PROVISIONAL comes. */
export function cancelAwaitsProvisional(snapshot: DialogSnapshot): boolean {
  return snapshot.matches({ live: { inviting: { cancelling: 'awaitingProvisional' } } }) || snapshot.matches({ abandoning: 'awaitingProvisional' });
}

/** Nothing more to hear for the dialog's INVITE and its BYE: ended, or abandoned before any answer (a late one finds the stack closed). */
export function dialogSettled(snapshot: DialogSnapshot): boolean {
  return snapshot.matches('ended') || snapshot.matches({ abandoning: 'awaitingProvisional' });
}

/** The dialog's state as one dotted name (`live.inviting.ringing`, `live.answered` with its regions, `ended`), for logs and tests. */
export function dialogStateName(snapshot: { value: unknown }): string {
  const walk = (v: unknown): string => {
    if (typeof v === 'string') return v;
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 1) return `${entries[0]![0]}.${walk(entries[0]![1])}`;
    return `{${entries.map(([k, x]) => `${k}:${walk(x)}`).join(',')}}`;
  };
  return walk(snapshot.value);
}
