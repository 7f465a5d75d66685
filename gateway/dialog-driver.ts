import { stepDialog, type DialogEffect, type DialogMachineEvent, type DialogSnapshot } from '../machines/dialog.ts';
import { dialogStateName } from '../machines/dialog-state.ts';
import type { DialogEvent } from './signaling.ts';

// What every signaling adapter does around the dialog machine
// (machines/dialog.ts), so that each keeps only what its SIP stack needs: the
// events are handed to the machine one at a time and its effects carried out
// in order (driveDialog), the dialog's timers are named and stopped together
// (DialogTimers), and a DialogEvent reaches the listener once, logged, its
// errors never reaching the stack (reportEvent). The embedded stack
// (sip-dialog.ts) and drachtio.ts both drive their dialogs through here.

/** After our CANCEL, how long we wait for the INVITE's final answer before giving up on it (the machine's CANCEL_GUARD). */
export const CANCEL_GUARD_MS = 4_000;
/** How long an adapter's close() waits for the answers to its BYEs and CANCELs. */
export const CLOSE_WAIT_MS = 2_000;

/** What an adapter keeps of one dialog's machine. */
export type DrivenDialog = {
  key: string;
  /** Where the dialog is in its life; changed by driveDialog() alone. */
  snapshot: DialogSnapshot;
  /** Events that came while one was being carried out, taken in order. */
  queue: DialogMachineEvent[];
  driving: boolean;
};

/**
 * Hands an event to the dialog's machine and has `carryOut` do what it
 * decides, in order. An event that comes while another is being carried
 * out (a listener that hangs up from its onEvent) waits for it: effects are
 * never interleaved. Resolves once what carryOut returned has (the requests
 * it sent are on the wire).
 */
export function driveDialog(
  d: DrivenDialog,
  event: DialogMachineEvent,
  carryOut: (f: DialogEffect) => Promise<void> | void,
  /** Told each step, for the adapter's debug log. */
  onStep?: (step: { key: string; event: string; from: string; to: string }) => void,
): Promise<void> {
  d.queue.push(event);
  if (d.driving) return Promise.resolve();
  d.driving = true;
  const wire: Promise<void>[] = [];
  try {
    for (let e = d.queue.shift(); e; e = d.queue.shift()) {
      const [next, effects] = stepDialog(d.snapshot, e);
      onStep?.({ key: d.key, event: e.type, from: dialogStateName(d.snapshot), to: dialogStateName(next) });
      d.snapshot = next;
      for (const f of effects) {
        const sent = carryOut(f);
        if (sent) wire.push(sent);
      }
    }
  } finally {
    d.driving = false;
  }
  return Promise.all(wire).then(() => undefined);
}

/** A dialog's timers by name: setting one again restarts it; none keeps the process alive. */
export class DialogTimers<Name extends string> {
  private readonly running = new Map<Name, NodeJS.Timeout>();

  set(name: Name, ms: number, fn: () => void): void {
    clearTimeout(this.running.get(name));
    const t = setTimeout(() => {
      this.running.delete(name);
      fn();
    }, ms);
    t.unref();
    this.running.set(name, t);
  }

  clear(...names: Name[]): void {
    for (const name of names) {
      clearTimeout(this.running.get(name));
      this.running.delete(name);
    }
  }

  clearAll(): void {
    for (const t of this.running.values()) clearTimeout(t);
    this.running.clear();
  }
}

/**
 * Waits until `settled` says so of every dialog `dialogs()` names, `ms` at
 * the most: how an adapter's close() lets the CANCELs and BYEs it sent be
 * answered before it lets go of its transport.
 */
export async function settleWithin<D>(dialogs: () => Iterable<D>, settled: (d: D) => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && ![...dialogs()].every(settled)) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

type Log = { info: (o: object, m: string) => void; error: (o: object, m: string) => void };

/** A dialog event told to the listener, and logged (`prefix` names the adapter); what the listener throws is logged, never thrown into the stack. */
export function reportEvent(log: Log, prefix: string, onEvent: (key: string, e: DialogEvent) => void, key: string, ev: DialogEvent, ids: object = {}): void {
  log.info({ key, ...ids, event: ev }, `${prefix}: ${ev.type}`);
  try {
    onEvent(key, ev);
  } catch (err) {
    log.error({ err: String(err), key, event: ev.type }, `${prefix}: onEvent threw`);
  }
}
