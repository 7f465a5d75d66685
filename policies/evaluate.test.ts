import { describe, expect, it } from 'vitest';
import { destinationOf, evaluate, maskNumber, type Destination } from './evaluate.ts';
import { POLICIES } from './index.ts';
import { NEVER_CALLED } from './defaults.ts';

// The policy engine against the table: numbers, kinds, consent, calling hours
// in the called party's time zone(s), holidays, attempts and effective dates.

const dest = (to: string): Destination => {
  const d = destinationOf(to);
  if (!d) throw new Error(`not a number: ${to}`);
  return d;
};
const at = (iso: string) => new Date(iso);

describe('destinations', () => {
  it('parses international numbers, ignoring spaces, dots, dashes and parentheses, with the zone the number rings in', () => {
    expect(dest('+1 (415) 555-0100')).toEqual({ e164: '+14155550100', country: 'US', kind: 'fixed_line_or_mobile', zones: ['America/Los_Angeles'], region: 'US-CA' });
    expect(dest('+33 6 12 34 56 78')).toMatchObject({ country: 'FR', kind: 'mobile', zones: ['Europe/Paris'] });
  });

  it('refuses what is not an international number', () => {
    for (const bad of ['', 'abc', '+1', '+123', '14155550100', '+1415555010O', '+0123456789', '+1234567890123456', '++14155550100']) {
      expect(destinationOf(bad), bad).toBeNull();
    }
  });

  it('a toll-free US number may ring in any zone of the United States, from Adak to New York, and in none of another country (Guam has its own)', () => {
    const zones = dest('+18005550100').zones;
    expect(zones).toContain('America/Adak');
    expect(zones).toContain('Pacific/Honolulu');
    expect(zones).toContain('America/New_York');
    expect(zones).not.toContain('Pacific/Guam');
    expect(zones).not.toContain('America/Toronto');
    expect(dest('+18005550100').region).toBeNull();
  });

  it('masks all but the country code and the last two digits', () => {
    expect(maskNumber('+33612345678')).toBe('+33•••••••78');
    expect(maskNumber('+14155550100')).toBe('+1••••••••00');
    // Three-digit codes, a non-geographic one, and a code that is a prefix of none other (7: RU and KZ).
    expect(maskNumber('+351912345678')).toBe('+351•••••••78');
    expect(maskNumber('+80012345678')).toBe('+800••••••78');
    expect(maskNumber('+79161234567')).toBe('+7••••••••67');
    expect(maskNumber('+8613812345678')).toBe('+86•••••••••78');
  });
});

describe('what can be called at all', () => {
  it('premium-rate, shared-cost, UAN and unrecognised numbers never are', () => {
    for (const [to, kind] of [['+19005550100', 'premium_rate'], ['+448712345678', 'premium_rate'], ['+443031234567', 'uan'], ['+15555550100', 'unknown']] as const) {
      const v = evaluate(dest(to), null, null, at('2026-11-23T18:00:00Z'));
      expect(v, to).toMatchObject({ allowed: false, kind, minute_factor: 0 });
      expect(NEVER_CALLED.has(v.kind)).toBe(true);
    }
    expect(evaluate(dest('+15555550100'), null, null, at('2026-11-23T18:00:00Z'))).toMatchObject({ country: 'ZZ', code: 'destination_not_supported' });
  });

  it('a country not in the table is refused, naming it', () => {
    const v = evaluate(dest('+74951234567'), 'support', 'written', at('2026-11-23T12:00:00Z'));
    expect(v).toMatchObject({ country: 'RU', allowed: false, code: 'destination_not_supported' });
    expect(v.reason).toContain('RU');
    expect(v.purpose).toMatchObject({ allowed: false, code: 'destination_not_supported' });
  });

  it('the minute factor comes from the table, per country and kind', () => {
    const v = evaluate(dest('+14155550100'), null, null, at('2026-11-23T18:00:00Z'));
    expect(v).toMatchObject({ allowed: true, code: 'allowed', minute_factor: POLICIES.US!.minuteFactor.fixed_line_or_mobile, purpose: null });
  });
});

describe('US: artificial voice needs consent, telemarketing written consent and the 08:00–21:00 window', () => {
  const noon = at('2026-11-23T20:00:00Z'); // 12:00 in Los Angeles
  const sf = dest('+14155550100');

  it('support needs prior express consent; written consent satisfies it, an existing customer relationship alone does not', () => {
    expect(evaluate(sf, 'support', null, noon).purpose).toMatchObject({ allowed: false, code: 'consent_required', requires: ['prior_express'], legal_reviewed: false });
    expect(evaluate(sf, 'support', 'existing_customer', noon).allowed).toBe(false);
    expect(evaluate(sf, 'support', 'prior_express', noon)).toMatchObject({ allowed: true, code: 'allowed' });
    expect(evaluate(sf, 'support', 'written', noon).allowed).toBe(true);
  });

  it('marketing needs written consent', () => {
    const v = evaluate(sf, 'marketing', 'prior_express', noon);
    expect(v).toMatchObject({ allowed: false, code: 'written_consent_required' });
    expect(v.purpose!.requires).toEqual(['written']);
    expect(evaluate(sf, 'marketing', 'written', noon).allowed).toBe(true);
  });

  it('marketing at 22:00 in Los Angeles is refused until 08:00 there; support is not bound by the window', () => {
    const late = at('2026-11-24T06:00:00Z'); // 22:00 on the 23rd in Los Angeles
    const v = evaluate(sf, 'marketing', 'written', late);
    expect(v).toMatchObject({ allowed: false, code: 'outside_calling_hours', next_allowed_at: '2026-11-24T08:00:00.000-08:00' });
    expect(v.reason).toContain('08:00–21:00 every day');
    expect(v.reason).toContain('Tuesday 24 November 2026 08:00 (America/Los_Angeles)');
    expect(evaluate(sf, 'support', 'prior_express', late).allowed).toBe(true);
  });

  it('a toll-free number that may ring from Honolulu to New York, in any state: every zone, and every state\'s hours', () => {
    const tollFree = dest('+18005550100');
    // Monday 23 November. 14:59 in New York is 09:59 in Honolulu and Adak: Kentucky's hours start at 10:00.
    const v = evaluate(tollFree, 'marketing', 'written', at('2026-11-23T19:59:00Z'));
    expect(v).toMatchObject({ allowed: false, code: 'outside_calling_hours' });
    expect(v.reason).toContain('time zones');
    // The next moment they hold everywhere: 10:00 in Honolulu and Adak (20:00 UTC), 15:00 in New York.
    expect(Date.parse(v.next_allowed_at!)).toBe(Date.parse('2026-11-23T20:00:00Z'));
    expect(evaluate(tollFree, 'marketing', 'written', at('2026-11-23T20:00:00Z')).allowed).toBe(true);
    // 18:00 in New York is the end of Rhode Island's weekday hours.
    expect(evaluate(tollFree, 'marketing', 'written', at('2026-11-23T22:59:00Z')).allowed).toBe(true);
    expect(evaluate(tollFree, 'marketing', 'written', at('2026-11-23T23:00:00Z')).allowed).toBe(false);
    // No state's rules bind a support call.
    expect(evaluate(tollFree, 'support', 'prior_express', at('2026-11-23T19:00:00Z')).allowed).toBe(true);
  });
});

describe('FR: marketing on weekdays 10:00–13:00 and 14:00–20:00, never on public holidays, at most 4 calls in 30 days', () => {
  const paris = dest('+33142685300');

  it('Saturday is refused until Monday 10:00; the lunch break until 14:00; inside the window it is allowed with consent', () => {
    const saturday = evaluate(paris, 'marketing', 'prior_express', at('2026-11-28T10:00:00Z')); // 11:00 in Paris
    expect(saturday).toMatchObject({ allowed: false, code: 'outside_calling_hours', next_allowed_at: '2026-11-30T10:00:00.000+01:00' });
    expect(saturday.reason).toContain('10:00–13:00 and 14:00–20:00 on weekdays, not on public holidays');
    const lunch = evaluate(paris, 'marketing', 'prior_express', at('2026-11-24T12:30:00Z')); // 13:30
    expect(lunch.next_allowed_at).toBe('2026-11-24T14:00:00.000+01:00');
    expect(evaluate(paris, 'marketing', 'prior_express', at('2026-11-24T09:30:00Z')).allowed).toBe(true); // 10:30
    expect(evaluate(paris, 'marketing', null, at('2026-11-24T09:30:00Z')).purpose).toMatchObject({ allowed: false, requires: ['prior_express'] });
  });

  it('14 July is a public holiday: refused until the next weekday window', () => {
    const v = evaluate(paris, 'marketing', 'prior_express', at('2026-07-14T09:00:00Z')); // Tuesday 11:00 in Paris
    expect(v).toMatchObject({ allowed: false, code: 'public_holiday', next_allowed_at: '2026-07-15T10:00:00.000+02:00' });
  });

  it('the fifth marketing call to one number within 30 days is refused', () => {
    const tuesday = at('2026-11-24T09:30:00Z');
    expect(evaluate(paris, 'marketing', 'prior_express', tuesday, { attempts: () => 3 }).allowed).toBe(true);
    const v = evaluate(paris, 'marketing', 'prior_express', tuesday, { attempts: (hours) => (hours === 30 * 24 ? 4 : 0) });
    expect(v).toMatchObject({ allowed: false, code: 'too_many_attempts' });
  });

  it('other purposes are not bound by the marketing window', () => {
    expect(evaluate(paris, 'support', null, at('2026-11-28T21:00:00Z'))).toMatchObject({ allowed: true, code: 'allowed' });
  });
});

describe('effective dates', () => {
  it('a rule whose sources are not in force yet does not apply: FR telephone canvassing rules before 2023-03-01', () => {
    // Sunday 15 January 2023, 11:00 in Paris: the décret's window was not in force yet (L. 34-5's consent rule was).
    const v = evaluate(dest('+33142685300'), 'marketing', 'prior_express', at('2023-01-15T10:00:00Z'));
    expect(v.allowed).toBe(true);
    expect(v.sources).not.toContain('fr-conso-d223-9');
  });
});
