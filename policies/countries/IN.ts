import type { CountryPolicy } from '../types.ts';

// India: TRAI's Telecom Commercial Communications Customer Preference
// Regulations 2018 (TCCCPR). Promotional calls go only to numbers that have
// not blocked them on the NCPR (DND) or whose holders gave registered consent;
// as the engine checks no DND preference, marketing needs that consent.
// Service calls need an existing relationship or explicit consent, transactional
// ones neither. Promotional calls by default only 10:00–21:00; senders must be
// registered on the DLT platform and call from the 140 (promotional) or 160 series.

export const IN: CountryPolicy = {
  country: 'IN',
  name: 'India',
  minuteFactor: { fixed_line: 1, mobile: 1, fixed_line_or_mobile: 1 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Transactional calls to Indian numbers need no prior consent but must come from a DLT-registered sender',
      sources: ['in-tcccpr-2018'],
    },
    scheduling: {
      allowed: true, requires: ['existing_customer', 'prior_express'], code: 'consent_required',
      message: 'Service calls to Indian numbers need an existing customer relationship or the called party\'s explicit consent',
      sources: ['in-tcccpr-2018'],
    },
    support: {
      allowed: true, requires: ['existing_customer', 'prior_express'], code: 'consent_required',
      message: 'Service calls to Indian numbers need an existing customer relationship or the called party\'s explicit consent',
      sources: ['in-tcccpr-2018'],
    },
    marketing: {
      allowed: true, requires: ['prior_express'], code: 'marketing_opt_in_required',
      message: 'Promotional calls to Indian numbers need the called party\'s registered explicit consent, since numbers on the DND register may not be called without it and the register is not checked here',
      sources: ['in-tcccpr-2018'],
      callerId: {
        prefixes: ['+91140'], source: 'in-tcccpr-140-series', code: 'caller_id_not_allowed',
        message: 'Promotional calls to Indian numbers must come from a DLT-registered 140-series number (TRAI); send as from one of your numbers in that range',
      },
    },
  },
  windows: [
    { source: 'in-tcccpr-time-band', purposes: ['marketing'], days: { 1: [['10:00', '21:00']], 2: [['10:00', '21:00']], 3: [['10:00', '21:00']], 4: [['10:00', '21:00']], 5: [['10:00', '21:00']], 6: [['10:00', '21:00']], 7: [['10:00', '21:00']] } },
  ],
  sources: [
    {
      id: 'in-tcccpr-2018',
      title: 'Telecom Commercial Communications Customer Preference Regulations, 2018 (TRAI), as amended 2018 and 2025',
      url: 'https://trai.gov.in/sites/default/files/RegulationUcc19072018.pdf',
      effective: '2018-07-19',
      summary: 'Commercial calls only from senders registered on the DLT platform; promotional calls only to numbers whose holders have not blocked them or have given digitally registered consent, service calls on an existing relationship or explicit consent, and promotional calls, pre-recorded or computer-generated included, from unregistered senders are blocked.',
    },
    {
      id: 'in-tcccpr-140-series',
      title: 'Telecom Commercial Communications Customer Preference Regulations, 2018 (TRAI), regulations 3 and 25 (numbering resources for telemarketers)',
      url: 'https://trai.gov.in/sites/default/files/RegulationUcc19072018.pdf',
      effective: '2018-07-19',
      summary: 'Promotional voice calls may be made only by registered telemarketers from the numbering series the Department of Telecommunications allots for them, the 140 series.',
    },
    {
      id: 'in-tcccpr-time-band',
      title: 'Telecom Commercial Communications Customer Preference Regulations, 2018 (TRAI), default time band',
      url: 'https://trai.gov.in/sites/default/files/RegulationUcc19072018.pdf',
      effective: '2018-07-19',
      summary: 'Promotional calls by default only between 10:00 and 21:00 (IST), unless the customer registered another time band as a preference.',
    },
  ],
};
