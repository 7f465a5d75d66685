import type { CountryPolicy } from '../types.ts';

// United Kingdom: the Privacy and Electronic Communications Regulations 2003
// (PECR). An AI agent's voice is "sounds which are not live speech", so our
// direct marketing calls are made with an automated calling system and need
// the subscriber's prior consent (reg. 19), whatever the Telephone Preference
// Service says (reg. 21, which we cannot check anyway). No statutory calling hours.

export const GB: CountryPolicy = {
  country: 'GB',
  name: 'United Kingdom',
  minuteFactor: { fixed_line: 1, mobile: 2, voip: 1 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to UK numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to UK numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to UK numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    marketing: {
      allowed: true, requires: ['prior_express'], code: 'marketing_opt_in_required',
      message: 'Direct marketing calls by an automated calling system (AI voice) to UK numbers need the subscriber\'s prior consent to such calls from us',
      sources: ['gb-pecr-reg19', 'gb-pecr-reg21'],
    },
  },
  windows: [],
  sources: [
    {
      id: 'gb-pecr-reg19',
      title: 'The Privacy and Electronic Communications (EC Directive) Regulations 2003, reg. 19',
      url: 'https://www.legislation.gov.uk/uksi/2003/2426/regulation/19',
      effective: '2003-12-11',
      summary: 'No direct marketing by an automated calling system (one that transmits sounds which are not live speech) unless the subscriber has notified the caller that they consent to such calls for the time being.',
    },
    {
      id: 'gb-pecr-reg21',
      title: 'The Privacy and Electronic Communications (EC Directive) Regulations 2003, reg. 21',
      url: 'https://www.legislation.gov.uk/uksi/2003/2426/regulation/21',
      effective: '2003-12-11',
      summary: 'No unsolicited direct marketing calls to a line whose subscriber has objected to them or whose number has been on the Telephone Preference Service register for 28 days, unless the subscriber has told the caller they do not object.',
    },
  ],
};
