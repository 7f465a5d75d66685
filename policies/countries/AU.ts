import type { CountryPolicy } from '../types.ts';

// Australia: the Do Not Call Register Act 2006 and the ACMA's
// Telecommunications (Telemarketing and Research Calls) Industry Standard 2017.
// Telemarketing calls to registered numbers need consent, express or inferred
// from the business relationship; as the engine checks no register, marketing
// needs one of them. Telemarketing only weekdays 09:00–20:00 and Saturdays
// 09:00–17:00, never on Sundays or national public holidays, and every call
// must identify the caller and its purpose and show a callable number.

export const AU: CountryPolicy = {
  country: 'AU',
  name: 'Australia',
  minuteFactor: { fixed_line: 1, mobile: 2, fixed_line_or_mobile: 2 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Australian numbers that offer or promote nothing are not telemarketing calls and need no prior consent',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Australian numbers that offer or promote nothing are not telemarketing calls and need no prior consent',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Australian numbers that offer or promote nothing are not telemarketing calls and need no prior consent',
      sources: [],
    },
    marketing: {
      allowed: true, requires: ['existing_customer', 'prior_express'], code: 'consent_required',
      message: 'Telemarketing calls to Australian numbers need the account-holder\'s consent, express or inferred from an existing relationship, since numbers on the Do Not Call Register may not be called without it and the register is not checked here',
      sources: ['au-dncr-act', 'au-telemarketing-standard'],
    },
  },
  windows: [
    { source: 'au-telemarketing-standard', purposes: ['marketing'], noPublicHolidays: true, days: { 1: [['09:00', '20:00']], 2: [['09:00', '20:00']], 3: [['09:00', '20:00']], 4: [['09:00', '20:00']], 5: [['09:00', '20:00']], 6: [['09:00', '17:00']] } },
  ],
  sources: [
    {
      id: 'au-dncr-act',
      title: 'Do Not Call Register Act 2006 (Cth), s. 11 and Schedule 2',
      url: 'https://www.legislation.gov.au/C2006A00088/latest',
      effective: '2007-05-31',
      summary: 'No telemarketing call to a number on the Do Not Call Register unless the account-holder consented, expressly (lapsing after 3 months if no period was given) or as reasonably inferred from conduct and relationships, never from the mere publication of the number.',
    },
    {
      id: 'au-telemarketing-standard',
      title: 'Telecommunications (Telemarketing and Research Calls) Industry Standard 2017',
      url: 'https://donotcall.gov.au/industry/industry-overview/industry-standards',
      effective: '2017-03-29',
      summary: 'Telemarketing calls only on weekdays 09:00–20:00 and Saturdays 09:00–17:00, not on Sundays or national public holidays, with calling line identification enabled, the caller\'s employer and the call\'s purpose given at the start, and the call ended when asked.',
    },
  ],
};
