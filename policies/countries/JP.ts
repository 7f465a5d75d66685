import type { CountryPolicy } from '../types.ts';

// Japan: the Act on Specified Commercial Transactions (特定商取引法) on
// telephone solicitation sales. No consent is needed before a sales call and
// no calling hours are set by law, but the call must open by naming the
// business, the caller, the product and its sales purpose (art. 16), and a
// consumer who declines may not be solicited again (art. 17). We found no rule
// specific to automated or AI voices. No statute sets calling hours: the
// hours here are the Consumer Affairs Agency's guidance on what solicitation
// "causes annoyance" (calls between 21:00 and 08:00), applied as a rule.

export const JP: CountryPolicy = {
  country: 'JP',
  name: 'Japan',
  minuteFactor: { fixed_line: 1, mobile: 2, fixed_line_or_mobile: 2, voip: 1 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Japanese numbers that solicit nothing need no prior consent',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Japanese numbers that solicit nothing need no prior consent',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Japanese numbers that solicit nothing need no prior consent',
      sources: [],
    },
    marketing: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Sales calls to Japanese numbers need no prior consent but must first state the business, caller and purpose, and may never be repeated to someone who declined',
      sources: ['jp-sct-art-16', 'jp-sct-art-17'],
    },
  },
  windows: [
    { source: 'jp-caa-nuisance-hours', purposes: ['marketing'], days: { 1: [['08:00', '21:00']], 2: [['08:00', '21:00']], 3: [['08:00', '21:00']], 4: [['08:00', '21:00']], 5: [['08:00', '21:00']], 6: [['08:00', '21:00']], 7: [['08:00', '21:00']] } },
  ],
  sources: [
    {
      id: 'jp-sct-art-16',
      title: '特定商取引に関する法律 (Act on Specified Commercial Transactions, Act No. 57 of 1976), art. 16',
      url: 'https://laws.e-gov.go.jp/law/351AC0000000057',
      effective: '2009-12-01',
      summary: 'Before soliciting by telephone the seller must state its name, the name of the person soliciting, the kind of goods or services, and that the call is to solicit a contract.',
    },
    {
      id: 'jp-sct-art-17',
      title: '特定商取引に関する法律 (Act on Specified Commercial Transactions, Act No. 57 of 1976), art. 17',
      url: 'https://laws.e-gov.go.jp/law/351AC0000000057',
      effective: '2009-12-01',
      summary: 'A seller must not solicit, in that call or later, a consumer who has said they will not conclude the contract.',
    },
    {
      id: 'jp-caa-nuisance-hours',
      title: '消費者庁「特定商取引に関する法律等の施行について」(the Consumer Affairs Agency\'s interpretive notice), on soliciting in a manner that causes annoyance',
      url: 'https://www.no-trouble.caa.go.jp/law/',
      kind: 'guidance',
      // Guidance, re-issued with each amendment of the Act; treated as in force from the 2009 amendment the table cites.
      effective: '2009-12-01',
      summary: 'Guidance, not statute: soliciting without good reason between 21:00 and 08:00 is given as an example of solicitation that causes the consumer annoyance, which the Act\'s ordinance forbids.',
    },
  ],
};
