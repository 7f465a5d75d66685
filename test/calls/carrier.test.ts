import { describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { callSuite } from '../helpers/call-suite.ts';
import { finished, wire, type Sipp } from '../helpers/sipp.ts';
import { until } from '../helpers/wait.ts';
import type { Config } from '../../src/config.ts';

// What a carrier's answers make of a call (operator.md, "Calls and the SIP
// gateway"), against SIPp playing the far end: an answer without audio the
// gateway can use (no SDP; G.729 only) is hung up at once, failed/no_media,
// billed 0, no disclosure said; a far end that goes silent (no RTP, no
// RTCP) is hung up after TOLK_MEDIA_TIMEOUT_SECONDS, completed/media_timeout;
// and every call records the final SIP answer to its INVITE (sip_code,
// sip_reason). The peer's side is asserted from SIPp's trace.

vi.setConfig({ testTimeout: 60_000 });

const suite = callSuite();
const { clock, cleanups } = suite;

async function rig(name: string, config: Partial<Config> = {}): Promise<{ sipp: Sipp; t: TestApp }> {
  const sipp = await suite.sipp(name);
  return { sipp, t: await suite.app(sipp.address, config) };
}

const place = (t: TestApp) => suite.place(t, { remote_lang: 'en' });

const untilEnded = (t: TestApp, id: string, ms = 20_000) => {
  let last: any;
  return until('the call to end', async () => {
    last = await (await t.request('GET', `/v1/calls/${id}`, { key: suite.key })).json();
    return ['completed', 'failed', 'busy', 'no_answer', 'voicemail'].includes(last.status) ? last : null;
  }, { timeoutMs: ms, detail: () => JSON.stringify(last) });
};

describe('an answer without audio the gateway can use', () => {
  for (const [scenario, what] of [['answer-no-sdp', 'no SDP at all'], ['answer-g729', 'G.729 only']] as const) {
    it(`${what}: hung up at once with a BYE, failed/no_media, billed 0, no disclosure said; sip_code 200`, async () => {
      const { sipp, t } = await rig(scenario);
      const c = await place(t);
      const ended = await untilEnded(t, c.id);
      expect(ended).toMatchObject({ status: 'failed', end_reason: 'no_media', billed_seconds: 0, answered_at: null, sip_code: 200, sip_reason: 'OK' });
      const r = await finished(sipp);
      expect(r.code, r.errors).toBe(0);
      const methods = wire(r.trace).filter((m) => !m.startLine.startsWith('SIP/2.0')).map((m) => m.startLine.split(' ')[0]);
      expect(methods).toEqual(['INVITE', 'ACK', 'BYE']);
      // The call's log (its transcript) holds no disclosure: nothing was said on the line.
      const said = await t.pool.query(`SELECT kind FROM room_segments WHERE room_id = $1`, [c.id]);
      expect(said.rows).toEqual([]);
      const { rows } = await t.pool.query(`SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [c.id]);
      expect(rows.map((x) => x.type)).toEqual(['call.ringing', 'call.failed', 'call.ended']);
    });
  }
});

describe('a far end that goes silent', () => {
  it('no RTP and no RTCP for TOLK_MEDIA_TIMEOUT_SECONDS: our BYE, completed/media_timeout, billed for what was answered', async () => {
    const { sipp, t } = await rig('answer-wait-bye', { mediaTimeoutSeconds: 2 });
    const c = await place(t);
    const ended = await untilEnded(t, c.id);
    expect(ended).toMatchObject({ status: 'completed', end_reason: 'media_timeout', sip_code: 200 });
    const seconds = (Date.parse(ended.ended_at) - Date.parse(ended.answered_at)) / 1000;
    expect(seconds).toBeGreaterThanOrEqual(2);
    expect(seconds).toBeLessThan(6);
    expect(ended.billed_seconds).toBeGreaterThan(0);
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    expect(wire(r.trace).some((m) => m.startLine.startsWith('BYE '))).toBe(true);
  });
});

describe('the final SIP answer is on the call', () => {
  for (const [scenario, status, code, reason] of [
    ['busy', 'busy', 486, 'Busy Here'],
    ['ring-then-480', 'no_answer', 480, 'Temporarily Unavailable'],
    ['unavailable-503', 'failed', 503, 'Service Unavailable'],
  ] as const) {
    it(`${code} ${reason}: ${status}, sip_code ${code}, sip_reason "${reason}"`, async () => {
      const { sipp, t } = await rig(scenario);
      const c = await place(t);
      expect(await untilEnded(t, c.id)).toMatchObject({ status, sip_code: code, sip_reason: reason });
      await finished(sipp);
    });
  }

  it('a call that has no answer yet has none', async () => {
    const t = await startTestApp({ db: suite.db, clock });
    cleanups.push(() => t.close());
    const res = await t.request('POST', '/v1/calls', {
      key: suite.key, headers: { 'idempotency-key': crypto.randomUUID() },
      body: { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' } },
    });
    const c = await res.json();
    expect(c).toMatchObject({ status: 'queued', sip_code: null, sip_reason: null });
  });
});
