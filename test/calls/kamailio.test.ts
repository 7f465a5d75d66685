import { describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { callSuite } from '../helpers/call-suite.ts';
import { finished, flow, wire, type Sipp, type WireMessage } from '../helpers/sipp.ts';
import { startKamailio, type Kamailio } from '../helpers/kamailio.ts';
import { until } from '../helpers/wait.ts';

// Calls through a SIP proxy: Kamailio (Debian's package) between the
// gateway and the callee (SIPp), record-routing the dialog. The gateway must
// send its ACK and BYE along the route set the 2xx gave (back through the
// proxy, to the callee's Contact), and its CANCEL where the INVITE went.

vi.setConfig({ testTimeout: 60_000 });

const suite = callSuite();
const { cleanups } = suite;

async function rig(scenario: string): Promise<{ sipp: Sipp; proxy: Kamailio; t: TestApp }> {
  const sipp = await suite.sipp(scenario);
  const proxy = await startKamailio({ next: sipp.address });
  cleanups.push(() => proxy.stop());
  return { sipp, proxy, t: await suite.app(proxy.address) };
}

const place = (t: TestApp) => suite.place(t, { agent_lang: 'en', remote_lang: 'es' });

const status = async (t: TestApp, id: string) => (await (await t.request('GET', `/v1/calls/${id}`, { key: suite.key })).json());
const untilStatus = (t: TestApp, id: string, statuses: string[]) =>
  until(`call in ${statuses.join('/')}`, async () => { const c = await status(t, id); return statuses.includes(c.status) ? c : null; }, { timeoutMs: 15_000, intervalMs: 100 });

/** The Via headers of a message, top first. */
const vias = (m: WireMessage) => m.text.split(/\r?\n/).filter((l) => /^(via|v):/i.test(l)).flatMap((l) => l.replace(/^[^:]+:\s*/, '').split(','));

describe('calls through a record-routing proxy', () => {
  it('answered and hung up: the ACK and BYE follow the route set back through the proxy', async () => {
    const { sipp, proxy, t } = await rig('proxied-answer-wait-bye');
    const c = await place(t);
    await untilStatus(t, c.id, ['answered']);
    const ended = await (await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: suite.key })).json();
    expect(ended).toMatchObject({ status: 'completed', end_reason: 'agent_hangup' });
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    const [invite, , , ack, bye] = msgs as [WireMessage, WireMessage, WireMessage, WireMessage, WireMessage];
    // The proxy put itself in the path of the dialog.
    expect(invite.header('Record-Route')).toContain(proxy.address);
    // The ACK and the BYE came through it (its Via on top of ours), and were
    // sent to the callee's Contact (the Request-URI), not to the proxy's address.
    for (const m of [ack, bye]) {
      const v = vias(m);
      expect(v.length, m.text).toBe(2);
      expect(v[0]).toContain(proxy.address);
      expect(m.startLine).toContain(`sip:callee@${sipp.address}`);
    }
  });

  it('ringing and hung up: the CANCEL goes where the INVITE went, and the call ends no_answer', async () => {
    const { sipp, proxy, t } = await rig('ring-until-cancel');
    const c = await place(t);
    await untilStatus(t, c.id, ['ringing']);
    const ended = await (await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: suite.key })).json();
    expect(ended).toMatchObject({ status: 'no_answer', end_reason: 'agent_hangup' });
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '> CANCEL', '< 200 OK', '< 487 Request Terminated', '> ACK']);
    const cancel = msgs[2]!;
    expect(vias(cancel)[0]).toContain(proxy.address);
    // The proxy matched it to the INVITE's transaction: the same branch it gave the INVITE.
    expect(vias(cancel)[0]).toBe(vias(msgs[0]!)[0]);
  });
});
