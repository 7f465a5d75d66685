import type { CountryPolicy } from '../types.ts';

// France: an AI agent's voice makes our calls "prospection directe au moyen de
// système automatisé" (CPCE art. L. 34-5), which needs the called person's
// prior consent; since 11 August 2026 every marketing call to a consumer does
// too (Code de la consommation art. L. 223-1, loi n° 2025-594). Marketing calls
// only Monday to Friday, 10:00–13:00 and 14:00–20:00, never on public holidays,
// and at most 4 calls to one consumer within 30 days (art. D. 223-9).

export const FR: CountryPolicy = {
  country: 'FR',
  name: 'France',
  minuteFactor: { fixed_line: 1, mobile: 2, voip: 1 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to French numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to French numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to French numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    marketing: {
      allowed: true, requires: ['prior_express'], code: 'marketing_opt_in_required',
      message: 'Marketing calls by an automated system (AI voice) to French numbers need the called party\'s prior consent to be canvassed this way',
      sources: ['fr-cpce-l34-5', 'fr-cnil-automates-appel', 'fr-conso-l223-1'],
      maxAttempts: { count: 4, days: 30, source: 'fr-conso-d223-9' },
    },
  },
  windows: [
    { source: 'fr-conso-d223-9', purposes: ['marketing'], noPublicHolidays: true, days: { 1: [['10:00', '13:00'], ['14:00', '20:00']], 2: [['10:00', '13:00'], ['14:00', '20:00']], 3: [['10:00', '13:00'], ['14:00', '20:00']], 4: [['10:00', '13:00'], ['14:00', '20:00']], 5: [['10:00', '13:00'], ['14:00', '20:00']] } },
  ],
  sources: [
    {
      id: 'fr-cpce-l34-5',
      title: 'Code des postes et des communications électroniques, art. L. 34-5, al. 1',
      url: 'https://www.legifrance.gouv.fr/codes/article_lc/LEGIARTI000006465785',
      effective: '2004-07-10',
      summary: 'Direct marketing by an automated electronic communications system to a natural person is forbidden unless that person has given prior consent to be canvassed by that means.',
    },
    {
      id: 'fr-cnil-automates-appel',
      title: 'CNIL, « La prospection commerciale par automates d\'appel » (26 janvier 2022)',
      url: 'https://www.cnil.fr/la-prospection-commerciale-par-automates-dappel',
      effective: '2022-01-26',
      summary: 'The regulator\'s reading of art. L. 34-5: automated marketing calls to private individuals need their prior, free, specific, informed and unambiguous consent (opt-in), with narrow exceptions.',
    },
    {
      id: 'fr-conso-l223-1',
      title: 'Code de la consommation, art. L. 223-1, as rewritten by loi n° 2025-594 du 30 juin 2025, art. 13',
      url: 'https://www.legifrance.gouv.fr/codes/article_lc/LEGIARTI000051830285',
      effective: '2026-08-11',
      summary: 'No telephone canvassing of a consumer who has not given prior consent to be canvassed by phone (the professional must prove it), save calls within a contract in progress and related to its subject.',
    },
    {
      id: 'fr-conso-d223-9',
      title: 'Code de la consommation, art. D. 223-9 (décret n° 2022-1313 du 13 octobre 2022)',
      url: 'https://www.legifrance.gouv.fr/jorf/id/JORFTEXT000046421823',
      effective: '2023-03-01',
      summary: 'Telephone canvassing of consumers only Monday to Friday, 10:00–13:00 and 14:00–20:00 in the consumer\'s time zone, never on public holidays, and no more than 4 calls or attempts to one consumer within 30 calendar days.',
    },
  ],
};
