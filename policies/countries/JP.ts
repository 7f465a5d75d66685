import type { CountryPolicy } from '../types.ts';

// Japan: the Act on Specified Commercial Transactions (特定商取引法) on
// telephone solicitation sales. No consent is needed before a sales call and
// no calling hours are set by law, but the call must open by naming the
// business, the caller, the product and its sales purpose (art. 16), and a
// consumer who declines may not be solicited again (art. 17). We found no rule
// specific to automated or AI voices.

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
  windows: [],
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
  ],
};
