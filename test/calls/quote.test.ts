import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// GET /v1/calls/quote over HTTP: the policy table's verdict for a number and a
// purpose, the number masked, the simulated outcome for test keys, and bad
// input refused naming the field.

let t: TestApp;
let key: string;
// Monday 23 November 2026, 12:00 in San Francisco.
let clock = new Date('2026-11-23T20:00:00Z');

beforeAll(async () => {
  t = await startTestApp({ clock: () => clock });
  key = (await t.key({ rpm: 100_000 })).secret;
});
afterAll(async () => {
  await t?.close();
});

async function quote(query: string, k = key) {
  const res = await t.request('GET', `/v1/calls/quote?${query}`, { key: k });
  return { status: res.status, body: await res.json() };
}

describe('GET /v1/calls/quote', () => {
  it('quotes a destination and purpose: masked number, country, kind, factor, the purpose verdict and the simulated outcome', async () => {
    const { status, body } = await quote('to=%2B14155550142&purpose=support&consent=prior_express');
    expect(status).toBe(200);
    expect(body).toEqual({
      to: '+1••••••••42', country: 'US', kind: 'fixed_line_or_mobile', allowed: true, minute_factor: 1,
      reason: expect.stringContaining('Allowed'),
      purpose: { purpose: 'support', allowed: true, code: 'allowed', message: null, requires: ['prior_express'], legal_reviewed: false },
      simulator: 'answered',
    });
    expect(JSON.stringify(body)).not.toContain('5550142');
  });

  it('without the consent the purpose needs: not allowed, with the code, the message and what it requires', async () => {
    const { body } = await quote('to=%2B14155550100&purpose=marketing&consent=prior_express');
    expect(body).toMatchObject({ allowed: false, purpose: { allowed: false, code: 'written_consent_required', requires: ['written'] } });
    expect(body.purpose.message).toMatch(/written consent/);
  });

  it('outside the calling hours, the reason says when the next allowed local time is', async () => {
    clock = new Date('2026-11-24T06:30:00Z'); // 22:30 in San Francisco
    try {
      const { body } = await quote('to=%2B14155550100&purpose=marketing&consent=written');
      expect(body).toMatchObject({ allowed: false, purpose: { code: 'outside_calling_hours' } });
      expect(body.reason).toContain('Tuesday 24 November 2026 08:00 (America/Los_Angeles)');
    } finally {
      clock = new Date('2026-11-23T20:00:00Z');
    }
  });

  it('without a purpose it quotes the destination alone', async () => {
    const { body } = await quote('to=%2B14155550100');
    expect(body).toMatchObject({ allowed: true, purpose: null, minute_factor: 1 });
  });

  it('names the simulated outcome by the last four digits for test keys, and none for live keys', async () => {
    const outcomes = { '0100': 'busy', '0101': 'no_answer', '0102': 'voicemail', '0103': 'failed', '0042': 'answered', '1234': 'answered' };
    for (const [digits, outcome] of Object.entries(outcomes)) {
      expect((await quote(`to=%2B1415555${digits}`)).body.simulator, digits).toBe(outcome);
    }
    const live = await t.key({ mode: 'live', rpm: 100_000 });
    expect((await quote('to=%2B14155550100', live.secret)).body).toMatchObject({ simulator: null, allowed: true });
  });

  it('numbers that cannot be called: premium rate, unrecognised, a country outside the table', async () => {
    expect((await quote('to=%2B19005550100')).body).toMatchObject({ allowed: false, kind: 'premium_rate', minute_factor: 0 });
    expect((await quote('to=%2B15555550100')).body).toMatchObject({ allowed: false, kind: 'unknown', country: 'ZZ' });
    expect((await quote('to=%2B74951234567&purpose=support')).body).toMatchObject({ allowed: false, country: 'RU', purpose: { code: 'destination_not_supported' } });
  });

  it('bad input is a 400 naming the field', async () => {
    for (const [query, field] of [
      ['to=hello', 'to'], ['to=%2B1', 'to'], ['to=4155550100', 'to'], ['to=%2B1415555010O', 'to'], ['', 'to'],
      ['to=%2B14155550100&purpose=sales', 'purpose'], ['to=%2B14155550100&consent=yes', 'consent'],
      [`to=%2B${'1'.repeat(40)}`, 'to'],
      // A caller id that is not one of the organization's numbers (the quote judges the call's caller id).
      ['to=%2B14155550100&purpose=support&from=num_notmine', 'from'], ['to=%2B14155550100&purpose=support&from=%2B14155550199', 'from'],
    ]) {
      const { status, body } = await quote(query!);
      expect(status, query).toBe(400);
      expect(body.message, query).toContain(field);
    }
  });

  it('the key\'s restrictions apply: a destination outside them is 403, a key without calls:read is 403', async () => {
    const gb = await t.key({ destinations: 'GB', rpm: 100_000 });
    expect((await quote('to=%2B14155550100', gb.secret)).body.code).toBe('destination_not_allowed');
    expect((await quote('to=%2B442079460000', gb.secret)).status).toBe(200);
    const noCalls = await t.key({ permissions: 'rooms:read', rpm: 100_000 });
    const res = await quote('to=%2B14155550100', noCalls.secret);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });
});

describe('the quote gives the verdict placing would give', () => {
  it('counts this organization\'s earlier calls as POST /v1/calls does: after four marketing calls to a French number in 30 days, the quote says too_many_attempts', async () => {
    clock = new Date('2026-11-24T15:00:00Z'); // Tuesday, 16:00 in Paris
    try {
      const k = (await t.key({ rpm: 100_000 })).secret;
      const to = '%2B33144556699';
      const body = { to: '+33144556699', purpose: 'marketing', consent: { kind: 'written' } };
      for (let i = 0; i < 4; i++) {
        expect((await quote(`to=${to}&purpose=marketing&consent=written`, k)).body).toMatchObject({ allowed: true });
        const res = await t.request('POST', '/v1/calls', { key: k, body, headers: { 'Idempotency-Key': `q-${i}-${Date.now()}` } });
        expect(res.status, await res.clone().text()).toBe(201);
        expect((await res.json()).status).toBe('queued');
      }
      const q = (await quote(`to=${to}&purpose=marketing&consent=written`, k)).body;
      expect(q).toMatchObject({ allowed: false, purpose: { allowed: false, code: 'too_many_attempts' } });
      const fifth = await t.request('POST', '/v1/calls', { key: k, body, headers: { 'Idempotency-Key': `q-5-${Date.now()}` } });
      expect((await fifth.json())).toMatchObject({ status: 'blocked' });
    } finally {
      clock = new Date('2026-11-23T20:00:00Z');
    }
  });

  it('judges the caller id the call would go out with: a marketing quote to Brazil from a number outside 0303 is refused caller_id_not_allowed', async () => {
    clock = new Date('2026-11-24T13:00:00Z'); // Tuesday, 10:00 in São Paulo
    try {
      const { body } = await quote('to=%2B5511987654321&purpose=marketing&consent=written');
      expect(body).toMatchObject({ allowed: false, purpose: { code: 'caller_id_not_allowed' } });
      expect(body.reason).toContain('0303');
      // Another purpose from the same number is fine.
      expect((await quote('to=%2B5511987654321&purpose=support')).body).toMatchObject({ allowed: true });
    } finally {
      clock = new Date('2026-11-23T20:00:00Z');
    }
  });
});
