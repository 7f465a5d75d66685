import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { attemptCaps, destinationOf, evaluate, type Destination } from './evaluate.ts';
import { POLICIES } from './index.ts';
import { countryZones, zoneOfCountry } from './zones.ts';

// What a legal review of the table found it allowed and the law forbids,
// each at its boundary: the instant just inside and just outside, in every
// zone concerned.

const dest = (to: string): Destination => {
  const d = destinationOf(to);
  if (!d) throw new Error(`not a number: ${to}`);
  return d;
};
const at = (iso: string) => new Date(iso);
const allowed = (d: Destination, iso: string, ctx = {}) => evaluate(d, 'marketing', 'written', at(iso), ctx).allowed;

describe('every zone a number can ring in', () => {
  it('an Australian mobile may be anywhere in Australia: 09:00 in Perth, not in Sydney, opens the window', () => {
    const mobile = dest('+61412345678');
    expect(mobile.kind).toBe('mobile');
    expect(mobile.zones).toEqual(expect.arrayContaining(['Australia/Perth', 'Australia/Sydney', 'Australia/Adelaide', 'Australia/Brisbane']));
    // Tuesday 24 November 2026: 09:00 in Sydney (AEDT, +11) is 06:00 in Perth (+8).
    const sydney9 = evaluate(mobile, 'marketing', 'prior_express', at('2026-11-23T22:00:00Z'));
    expect(sydney9).toMatchObject({ allowed: false, code: 'outside_calling_hours' });
    expect(Date.parse(sydney9.next_allowed_at!)).toBe(Date.parse('2026-11-24T01:00:00Z')); // 09:00 in Perth
    expect(evaluate(mobile, 'marketing', 'prior_express', at('2026-11-24T00:59:00Z')).allowed).toBe(false);
    expect(evaluate(mobile, 'marketing', 'prior_express', at('2026-11-24T01:00:00Z')).allowed).toBe(true);
    // A landline of area code 02 is judged where 02 rings: New South Wales and Lord Howe Island.
    const landline = dest('+61292123456');
    expect(landline.zones).toEqual(['Australia/Lord_Howe', 'Australia/Sydney']);
    expect(evaluate(landline, 'marketing', 'prior_express', at('2026-11-23T22:00:00Z')).allowed).toBe(true);
  });

  it('a Spanish mobile may be in the Canary Islands, an hour behind Madrid', () => {
    const mobile = dest('+34612345678');
    expect(mobile.zones).toEqual(expect.arrayContaining(['Europe/Madrid', 'Atlantic/Canary']));
    // Tuesday 24 November: 09:00 in Madrid (08:00 UTC) is 08:00 in Las Palmas.
    expect(allowed(mobile, '2026-11-24T08:00:00Z')).toBe(false);
    expect(allowed(mobile, '2026-11-24T08:59:00Z')).toBe(false);
    expect(allowed(mobile, '2026-11-24T09:00:00Z')).toBe(true);
    // 21:00 in Madrid (20:00 UTC) ends it, though it is 20:00 in Las Palmas.
    expect(allowed(mobile, '2026-11-24T19:59:00Z')).toBe(true);
    expect(allowed(mobile, '2026-11-24T20:00:00Z')).toBe(false);
  });

  it('a US area code that spans two zones is judged in both, whatever the exchange (423: Eastern and Central)', () => {
    for (const n of ['+14235550123', '+14232021234']) {
      const d = dest(n);
      expect(d.zones, n).toEqual(['America/Chicago', 'America/New_York']);
      expect(d.region, n).toBe('US-TN');
    }
    const tn = dest('+14235550123');
    // 08:00 in New York is 07:00 in Chicago: not yet; 08:00 in Chicago is.
    expect(allowed(tn, '2026-11-24T13:00:00Z')).toBe(false);
    expect(allowed(tn, '2026-11-24T13:59:00Z')).toBe(false);
    expect(allowed(tn, '2026-11-24T14:00:00Z')).toBe(true);
    // 21:00 in New York ends it, though it is 20:00 in Chicago.
    expect(allowed(tn, '2026-11-25T01:59:00Z')).toBe(true);
    expect(allowed(tn, '2026-11-25T02:00:00Z')).toBe(false);
    for (const [n, zones] of [['+18125550123', ['America/Chicago', 'America/New_York']], ['+18505550123', ['America/Chicago', 'America/New_York']]] as const) {
      expect(dest(n).zones.filter((z) => (zones as readonly string[]).includes(z)).sort(), n).toEqual([...zones]);
    }
  });

  it('no number of a country in the table is ever judged in a zone outside that country, nor in none', () => {
    const codes: Record<string, string> = { US: '1', CA: '1', AU: '61', ES: '34', BR: '55', MX: '52', PT: '351', FR: '33', GB: '44', IN: '91', JP: '81', DE: '49', IT: '39', NL: '31' };
    expect(Object.keys(codes).sort()).toEqual(Object.keys(POLICIES).sort());
    let seen = 0;
    fc.assert(fc.property(
      fc.constantFrom(...Object.values(codes)),
      fc.stringMatching(/^[1-9]\d{6,11}$/),
      (cc, rest) => {
        const d = destinationOf(`+${cc}${rest}`);
        if (!d || !POLICIES[d.country]) return;
        seen++;
        expect(d.zones.length, d.e164).toBeGreaterThan(0);
        for (const z of d.zones) expect(zoneOfCountry(z, d.country), `${d.e164} in ${z}`).toBe(true);
        for (const z of d.zones) expect(countryZones(d.country).some((c) => c === z) || zoneOfCountry(z, d.country)).toBe(true);
      },
    ), { numRuns: 3000 });
    expect(seen).toBeGreaterThan(300);
  });

  it('a number whose zones cannot be told is refused where there are hours to keep, never judged in UTC', () => {
    const unknown: Destination = { ...dest('+33142685300'), zones: [] };
    const v = evaluate(unknown, 'marketing', 'prior_express', at('2026-11-24T10:00:00Z'));
    expect(v).toMatchObject({ allowed: false, code: 'time_zone_unknown' });
    // Without hours to keep, nothing changes.
    expect(evaluate(unknown, 'support', null, at('2026-11-24T10:00:00Z')).allowed).toBe(true);
  });
});

describe('US states: their hours and caps by area code', () => {
  it('Florida (305): 08:00–20:00, not the federal 21:00', () => {
    const miami = dest('+13055550123');
    expect(miami.region).toBe('US-FL');
    expect(allowed(miami, '2026-11-24T12:59:00Z')).toBe(false); // 07:59
    expect(allowed(miami, '2026-11-24T13:00:00Z')).toBe(true); // 08:00
    expect(allowed(miami, '2026-11-25T00:59:00Z')).toBe(true); // 19:59
    const v = evaluate(miami, 'marketing', 'written', at('2026-11-25T01:00:00Z')); // 20:00
    expect(v).toMatchObject({ allowed: false, code: 'outside_calling_hours' });
    expect(v.reason).toContain('Florida');
    expect(v.sources).toContain('us-fl-501-616');
    // The federal window alone would still allow 20:00 in California.
    expect(allowed(dest('+14155550100'), '2026-11-25T04:00:00Z')).toBe(true);
  });

  it('Florida, Oklahoma and Maryland: a fourth call within 24 hours is refused', () => {
    for (const n of ['+13055550123', '+14055550123', '+14105550123']) {
      const d = dest(n);
      const noon = '2026-11-24T18:00:00Z';
      expect(attemptCaps(d, 'marketing', at(noon)).map((c) => c.hours), n).toEqual([24]);
      expect(allowed(d, noon, { attempts: (h: number) => (h === 24 ? 2 : 0) }), n).toBe(true);
      const v = evaluate(d, 'marketing', 'written', at(noon), { attempts: (h: number) => (h === 24 ? 3 : 0) });
      expect(v, n).toMatchObject({ allowed: false, code: 'too_many_attempts' });
      expect(v.reason, n).toContain('3 within 1 day');
    }
    // Not before the state's law took effect: Maryland's on 1 January 2024, at local midnight.
    const md = dest('+14105550123');
    expect(attemptCaps(md, 'marketing', at('2024-01-01T04:59:00Z'))).toEqual([]); // 23:59 on 31 December in Baltimore
    expect(attemptCaps(md, 'marketing', at('2024-01-01T05:00:00Z'))).toHaveLength(1);
    // Other purposes are not telephone solicitation.
    expect(attemptCaps(md, 'support', at('2026-11-24T18:00:00Z'))).toEqual([]);
  });

  it('Texas (512): 09:00–21:00, and on Sundays from noon', () => {
    const austin = dest('+15125550123');
    expect(austin.region).toBe('US-TX');
    expect(allowed(austin, '2026-11-24T14:59:00Z')).toBe(false); // Tuesday 08:59
    expect(allowed(austin, '2026-11-24T15:00:00Z')).toBe(true);
    expect(allowed(austin, '2026-11-29T17:59:00Z')).toBe(false); // Sunday 11:59
    expect(allowed(austin, '2026-11-29T18:00:00Z')).toBe(true); // Sunday 12:00
  });

  it('Connecticut (203): 09:00–20:00', () => {
    const ct = dest('+12035550123');
    expect(ct.region).toBe('US-CT');
    expect(allowed(ct, '2026-11-24T13:59:00Z')).toBe(false);
    expect(allowed(ct, '2026-11-24T14:00:00Z')).toBe(true);
    expect(allowed(ct, '2026-11-25T00:59:00Z')).toBe(true);
    expect(allowed(ct, '2026-11-25T01:00:00Z')).toBe(false);
  });
});

describe('regional holidays', () => {
  it('Spain: a holiday of any autonomous community refuses a Spanish mobile (San José, 19 March 2026, in some communities only)', () => {
    const mobile = dest('+34612345678');
    // Thursday 19 March 2026, 12:00 in Madrid; Wednesday 18 March is no holiday anywhere.
    const v = evaluate(mobile, 'marketing', 'written', at('2026-03-19T11:00:00Z'));
    expect(v).toMatchObject({ allowed: false, code: 'public_holiday' });
    expect(allowed(mobile, '2026-03-18T11:00:00Z')).toBe(true);
  });

  it('Brazil: Rio de Janeiro\'s holidays (São Jorge, 23 April) are kept with Rio\'s hours', () => {
    const rio = dest('+5521987654321');
    // Thursday 23 April 2026, 10:00 in Rio; Wednesday 22 April is a working day.
    expect(evaluate(rio, 'marketing', 'written', at('2026-04-23T13:00:00Z'), { from: '+553031234567' })).toMatchObject({ allowed: false, code: 'public_holiday' });
    expect(allowed(rio, '2026-04-22T13:00:00Z', { from: '+553031234567' })).toBe(true);
  });
});

describe('eves and shortened days', () => {
  it('Italy: on the day before a holiday only 10:00–19:00 (7 December 2026, before the Immaculate Conception)', () => {
    const rome = dest('+390612345678');
    // Monday 7 December 2026 (CET, +1).
    expect(allowed(rome, '2026-12-07T08:59:00Z')).toBe(false); // 09:59
    expect(allowed(rome, '2026-12-07T09:00:00Z')).toBe(true); // 10:00
    expect(allowed(rome, '2026-12-07T17:59:00Z')).toBe(true); // 18:59
    expect(allowed(rome, '2026-12-07T18:00:00Z')).toBe(false); // 19:00
    // An ordinary Monday keeps 09:00–20:00.
    expect(allowed(rome, '2026-11-30T08:00:00Z')).toBe(true); // 09:00
    expect(allowed(rome, '2026-11-30T18:30:00Z')).toBe(true); // 19:30
  });

  it('the Netherlands: calls end at 18:30 on 24 December, 4 May and 5 December', () => {
    const amsterdam = dest('+31201234567');
    expect(amsterdam.zones).toEqual(['Europe/Amsterdam']);
    for (const [day, offset] of [['2026-12-24', 1], ['2026-12-04', 1], ['2027-05-04', 2]] as const) {
      const utc = (hhmm: string) => new Date(Date.parse(`${day}T${hhmm}:00Z`) - offset * 3600_000).toISOString();
      const shortened = day !== '2026-12-04';
      expect(allowed(amsterdam, utc('18:29')), day).toBe(true);
      expect(allowed(amsterdam, utc('18:30')), day).toBe(!shortened);
    }
    // 5 December 2026 is a Saturday: its hours end at 16:00 anyway.
    expect(allowed(dest('+31201234567'), '2026-12-05T14:59:00Z')).toBe(true);
    expect(allowed(dest('+31201234567'), '2026-12-05T15:00:00Z')).toBe(false);
  });
});

describe('effective dates', () => {
  it('a renumbered German rule binds from when the duty began: marketing without consent was refused in 2021', () => {
    const berlin = dest('+493012345678');
    const v = evaluate(berlin, 'marketing', null, at('2021-06-01T10:00:00Z'));
    expect(v).toMatchObject({ allowed: false, code: 'marketing_opt_in_required' });
    expect(v.sources).toEqual(expect.arrayContaining(['de-uwg-7-telefon', 'de-uwg-7-anrufmaschine']));
    expect(evaluate(berlin, 'marketing', null, at('2004-07-01T10:00:00Z')).allowed).toBe(true); // before the UWG of 2004
  });

  it('the Netherlands: an automated (AI voice) marketing call needed consent before the 2021 opt-in too', () => {
    const v = evaluate(dest('+31201234567'), 'marketing', null, at('2020-06-02T10:00:00Z'));
    expect(v.allowed).toBe(false);
    expect(v.sources).toContain('nl-tw-11-7-automated');
  });

  it('an effective date begins at local midnight where the called party is, not 00:00 UTC', () => {
    // France's calling hours (décret 2022-1313) from 1 March 2023: 00:00 in Paris is 23:00 UTC the day before.
    const paris = dest('+33142685300');
    const before = evaluate(paris, 'marketing', 'prior_express', at('2023-02-28T22:59:00Z')); // 23:59 on Tuesday 28 February
    const after = evaluate(paris, 'marketing', 'prior_express', at('2023-02-28T23:00:00Z')); // 00:00 on Wednesday 1 March
    expect(before.allowed).toBe(true);
    expect(after).toMatchObject({ allowed: false, code: 'outside_calling_hours' });
    expect(after.sources).toContain('fr-conso-d223-9');
  });
});

describe('caller id', () => {
  it('Brazil: a marketing call must come from a 0303 number', () => {
    const sp = dest('+5511987654321');
    const tuesday = '2026-11-24T13:00:00Z'; // 10:00 in São Paulo
    const v = evaluate(sp, 'marketing', 'written', at(tuesday), { from: '+14155550100' });
    expect(v).toMatchObject({ allowed: false, code: 'caller_id_not_allowed' });
    expect(v.sources).toContain('br-anatel-0303');
    expect(evaluate(sp, 'marketing', 'written', at(tuesday), {}).allowed).toBe(false);
    expect(evaluate(sp, 'marketing', 'written', at(tuesday), { from: '+553031234567' }).allowed).toBe(true);
    // Other purposes may come from any number.
    expect(evaluate(sp, 'support', null, at(tuesday), { from: '+14155550100' }).allowed).toBe(true);
  });

  it('India: a promotional call must come from a 140-series number', () => {
    const mumbai = dest('+919876543210');
    const noon = '2026-11-24T06:30:00Z'; // 12:00 in Kolkata
    expect(evaluate(mumbai, 'marketing', 'prior_express', at(noon), { from: '+14155550100' })).toMatchObject({ allowed: false, code: 'caller_id_not_allowed' });
    expect(evaluate(mumbai, 'marketing', 'prior_express', at(noon), { from: '+911401234567' }).allowed).toBe(true);
  });
});

describe('guidance where no statute sets hours', () => {
  it('Japan: marketing calls 08:00–21:00, from the Consumer Affairs Agency\'s guidance, marked as guidance', () => {
    const tokyo = dest('+81312345678');
    expect(allowed(tokyo, '2026-11-24T22:59:00Z')).toBe(false); // 07:59
    expect(allowed(tokyo, '2026-11-24T23:00:00Z')).toBe(true); // 08:00
    expect(allowed(tokyo, '2026-11-24T11:59:00Z')).toBe(true); // 20:59
    expect(allowed(tokyo, '2026-11-24T12:00:00Z')).toBe(false); // 21:00
    expect(POLICIES.JP!.sources.find((s) => s.id === 'jp-caa-nuisance-hours')?.kind).toBe('guidance');
  });
});

describe('states with Sunday and holiday bans', () => {
  it('Louisiana (504): no calls on Sundays or its legal holidays, 08:00–20:00 otherwise', () => {
    const nola = dest('+15045550123');
    expect(nola.region).toBe('US-LA');
    expect(allowed(nola, '2026-11-29T18:00:00Z')).toBe(false); // Sunday 12:00
    expect(allowed(nola, '2026-11-28T18:00:00Z')).toBe(true); // Saturday 12:00
    expect(evaluate(nola, 'marketing', 'written', at('2026-02-17T18:00:00Z'))).toMatchObject({ allowed: false, code: 'public_holiday' }); // Mardi Gras
    expect(allowed(nola, '2026-02-18T18:00:00Z')).toBe(true);
    expect(allowed(nola, '2026-11-25T01:59:00Z')).toBe(true); // Tuesday 19:59
    expect(allowed(nola, '2026-11-25T02:00:00Z')).toBe(false); // 20:00
  });

  it('Rhode Island (401): weekdays 09:00–18:00, Saturdays 10:00–17:00, never on Sundays', () => {
    const ri = dest('+14015550123');
    expect(ri.region).toBe('US-RI');
    expect(allowed(ri, '2026-11-24T22:59:00Z')).toBe(true); // Tuesday 17:59
    expect(allowed(ri, '2026-11-24T23:00:00Z')).toBe(false); // 18:00
    expect(allowed(ri, '2026-11-28T14:59:00Z')).toBe(false); // Saturday 09:59
    expect(allowed(ri, '2026-11-28T15:00:00Z')).toBe(true); // Saturday 10:00
    expect(allowed(ri, '2026-11-29T17:00:00Z')).toBe(false); // Sunday
  });

  it('Minnesota (612): a synthesized voice only 09:00–21:00', () => {
    const mn = dest('+16125550123');
    expect(mn.region).toBe('US-MN');
    expect(allowed(mn, '2026-11-24T14:59:00Z')).toBe(false); // 08:59
    expect(allowed(mn, '2026-11-24T15:00:00Z')).toBe(true);
  });
});
