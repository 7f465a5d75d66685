import { CallLine, type LinePlan } from './call-line.ts';
import type { LineDeps } from './line-deps.ts';
import { perKey } from './per-key.ts';

// The calls this process's gateway dialed, one CallLine each, from the dial
// to the end of whatever they still do once disposed (an event still being
// written, a phrase still being published): then they leave the registry.

/** How long a call dialed here is kept without its dialog (its INVITE on its way) before the heartbeat forgets it. */
const UNANSWERED_KEPT_MS = 60_000;

export class CallLines {
  private readonly lines = new Map<string, CallLine>();
  /** Events of calls with no line here (one forgotten, or never dialed here): still applied one at a time per call. */
  private readonly strays: ReturnType<typeof perKey>;
  private readonly d: LineDeps;

  constructor(d: LineDeps) {
    this.d = d;
    this.strays = perKey((err, callId, event) => d.log.error({ err, callId, event }, 'call event not applied'));
  }

  /** The line of a call being dialed here. */
  open(plan: LinePlan): CallLine {
    this.lines.get(plan.id)?.dispose();
    const line = new CallLine(plan, this.d);
    this.lines.set(plan.id, line);
    return line;
  }

  /** The call's line while it goes on here (a disposed one is still here while it finishes). */
  get(callId: string): CallLine | undefined {
    const line = this.lines.get(callId);
    return line && !line.disposed ? line : undefined;
  }

  /** Runs `task` in the call's chain of events: SIP's events for a call are applied in the order it reported them. */
  run(callId: string, task: () => Promise<void>, what: string): void {
    const line = this.lines.get(callId);
    if (line && (!line.disposed || line.busy)) line.run(task, what);
    else this.strays.run(callId, task, what);
  }

  /** The call ended: its line is disposed, and leaves once what it still does is done. */
  dispose(callId: string): void {
    const line = this.lines.get(callId);
    if (!line || line.disposed) return;
    line.dispose();
    void this.leave(line);
  }

  private async leave(line: CallLine): Promise<void> {
    while (!line.idle) await Promise.allSettled(line.pending());
    if (this.lines.get(line.id) === line) this.lines.delete(line.id);
  }

  /**
   * The calls whose dialog went without an ending event here (hung up
   * through another process, or through the API) are forgotten: at once once
   * answered, after a minute for one still being dialed. Not while its events
   * wait for the database: what was heard before its hangup is still to be
   * written.
   */
  forgetGone(up: ReadonlySet<string>): void {
    const old = Date.now() - UNANSWERED_KEPT_MS;
    for (const line of this.lines.values()) {
      if (line.disposed || up.has(line.id) || line.preparing || line.busy) continue;
      if (line.answered || line.placedAt < old) this.dispose(line.id);
    }
  }

  get size(): number {
    return this.lines.size;
  }

  /** Stops every line's timers (at stop). */
  clearTimers(): void {
    for (const line of this.lines.values()) line.clearTimers();
  }

  /** What is still being applied, said or published (to wait for at stop). */
  pending(): Array<Promise<void>> {
    return [...[...this.lines.values()].flatMap((l) => l.pending()), ...this.strays.pending()];
  }
}
