// The rig of the SIP stack's own tests (gateway/sip-stack*.test.ts): our
// stack on a free port with its reports and log kept, SIPp playing a scenario
// of gateway/sipp/ as the far end, and everything a test starts closed after
// it, pass or fail. The calls API's tests use the same scenarios through
// callSuite (test/helpers/call-suite.ts).

import { afterEach } from 'vitest';
import { createSipSignaling, type SipStackOptions } from '../../gateway/sip-stack.ts';
import type { DialogEvent, SipSignaling } from '../../gateway/signaling.ts';
import { startSipp, type Sipp } from './sipp.ts';
import { until } from './wait.ts';

/** The path of a SIPp scenario of gateway/sipp/ by its name. */
export const sippScenario = (name: string) => new URL(`../../gateway/sipp/${name}.xml`, import.meta.url).pathname;

export type LogLine = { level: 'debug' | 'info' | 'warn' | 'error'; msg: string; o: Record<string, unknown> };

export type SignalingHarness = {
  sig: SipSignaling;
  /** Every report, in order, with when it came (epoch ms). */
  events: Array<{ key: string; event: DialogEvent; at: number }>;
  /** What the stack logged. */
  lines: LogLine[];
  /** The reports of one key, in order. */
  of(key: string): DialogEvent[];
  /** Waits until `key` has `n` reports. */
  waitFor(key: string, n: number, timeoutMs?: number): Promise<DialogEvent[]>;
  /** When `key` reported an event of this type (epoch ms). */
  when(key: string, type: DialogEvent['type']): number | undefined;
};

/** For a test file: what each test started is closed after it, in reverse order. */
export function sipRig() {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** Our SIP stack on 127.0.0.1 and a free port (ring timeout 5 s unless `opts` say otherwise). */
  async function signaling(opts: Partial<SipStackOptions> = {}): Promise<SignalingHarness> {
    const events: SignalingHarness['events'] = [];
    const lines: LogLine[] = [];
    const at = (level: LogLine['level']) => (o: object, msg: string) => void lines.push({ level, msg, o: o as Record<string, unknown> });
    const sig = await createSipSignaling({
      listen: '127.0.0.1:0',
      ringTimeoutSeconds: 5,
      onEvent: (key, event) => events.push({ key, event, at: Date.now() }),
      log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
      ...opts,
    });
    cleanups.push(() => sig.close());
    const of = (key: string) => events.filter((e) => e.key === key).map((e) => e.event);
    return {
      sig,
      events,
      lines,
      of,
      waitFor: (key, n, timeoutMs = 5_000) =>
        until(`${n} events for ${key}`, async () => of(key).length >= n && of(key), { timeoutMs, detail: () => JSON.stringify(of(key)) }),
      when: (key, type) => events.find((e) => e.key === key && e.event.type === type)?.at,
    };
  }

  /** SIPp as the callee over UDP, on the scenario `name`. */
  async function sipp(name: string, extraArgs?: string[]): Promise<Sipp> {
    const s = await startSipp({ scenario: sippScenario(name), extraArgs });
    cleanups.push(() => s.stop());
    return s;
  }

  return { cleanups, signaling, sipp };
}
