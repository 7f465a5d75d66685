import type { CountryPolicy } from '../types.ts';

// Netherlands: Telecommunicatiewet art. 11.7. Commercial, ideal or charitable
// calls to natural persons are opt-in since 1 July 2021; calls placed by an
// automated calling system without human intervention (which an AI voice agent
// is) need prior consent under lid 1, where the existing-customer exception
// does not reach, so marketing needs prior consent here, customers included.
// Calls that promote nothing fall outside art. 11.7. Telemarketing hours follow
// the Code Telemarketing of the Dutch Advertising Code (self-regulation).

export const NL: CountryPolicy = {
  country: 'NL',
  name: 'Netherlands',
  minuteFactor: { fixed_line: 1, mobile: 3, fixed_line_or_mobile: 3, voip: 1 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Dutch numbers that promote nothing need no prior consent under the Telecommunicatiewet',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Dutch numbers that promote nothing need no prior consent under the Telecommunicatiewet',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Dutch numbers that promote nothing need no prior consent under the Telecommunicatiewet',
      sources: [],
    },
    marketing: {
      allowed: true, requires: ['prior_express'], code: 'marketing_opt_in_required',
      message: 'Marketing calls by an automated (AI) calling system to Dutch numbers need the called person\'s prior consent, existing customers included',
      sources: ['nl-tw-11-7-automated', 'nl-tw-11-7-opt-in'],
    },
  },
  windows: [
    // Art. 9: no calls after 18:30 on 24 December, 4 May (Remembrance) and 5 December (Sinterklaas).
    { source: 'nl-code-telemarketing', purposes: ['marketing'], noPublicHolidays: true, dates: { '12-24': [['00:00', '18:30']], '05-04': [['00:00', '18:30']], '12-05': [['00:00', '18:30']] }, days: { 1: [['09:00', '22:00']], 2: [['09:00', '22:00']], 3: [['09:00', '22:00']], 4: [['09:00', '22:00']], 5: [['09:00', '22:00']], 6: [['10:00', '16:00']] } },
  ],
  sources: [
    {
      id: 'nl-tw-11-7-automated',
      title: 'Telecommunicatiewet, art. 11.7 lid 1',
      url: 'https://wetten.overheid.nl/BWBR0009950/',
      // The consent for automated calling systems dates from the Act's implementation of the
      // ePrivacy Directive (2002/58/EC) in 2004, not from the 2021 opt-in for all telemarketing
      // (lid 2, below); the 2004 date is that implementation's, not checked against the Staatsblad.
      effective: '2004-05-19',
      summary: 'Unsolicited commercial, ideal or charitable communication by automated calling and communication systems without human intervention is forbidden unless the sender can show the end user\'s prior consent.',
    },
    {
      id: 'nl-tw-11-7-opt-in',
      title: 'Telecommunicatiewet, art. 11.7 lid 2, as amended by the Wet van 2021 (Kamerstuk 35 421, opt-in voor telemarketing)',
      url: 'https://zoek.officielebekendmakingen.nl/kst-35421-3.html',
      effective: '2021-07-01',
      summary: 'Since 1 July 2021 telemarketing calls to natural persons need their prior consent, save to customers for similar products within the customer relationship, and every call must offer the right to object.',
    },
    {
      id: 'nl-code-telemarketing',
      title: 'Nederlandse Reclame Code, Code Telemarketing, art. 9 (permitted times)',
      url: 'https://ddma.nl/kennisbank/reclamecode-code-telemarketing/',
      effective: '2012-07-01',
      summary: 'Self-regulation binding all advertisers since 2012: telemarketing calls only on working days 09:00–22:00 and Saturdays 10:00–16:00, not on Sundays or public holidays, and on 24 December, 4 May and 5 December not after 18:30.',
    },
  ],
};
