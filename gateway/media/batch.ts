import type { TransferListItem } from 'node:worker_threads';

/**
 * Messages to the other side of a worker thread, sent as one array per turn
 * of the event loop: each postMessage wakes the other thread and locks its
 * port, which costs as much as the message itself (the call path sent six
 * per call, each alone). Order is kept; setImmediate flushes after the I/O
 * of the turn that queued them, so nothing waits longer than that turn.
 */
export class Batcher<M> {
  private msgs: M[] = [];
  private transfer: TransferListItem[] = [];
  private scheduled = false;
  private readonly send: (msgs: M[], transfer: TransferListItem[]) => void;

  constructor(send: (msgs: M[], transfer: TransferListItem[]) => void) {
    this.send = send;
  }

  post(m: M, transfer: readonly TransferListItem[] = []): void {
    this.msgs.push(m);
    if (transfer.length > 0) this.transfer.push(...transfer);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const msgs = this.msgs;
    const transfer = this.transfer;
    this.msgs = [];
    this.transfer = [];
    if (msgs.length > 0) this.send(msgs, transfer);
  }
}
