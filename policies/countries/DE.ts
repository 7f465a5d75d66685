import type { CountryPolicy } from '../types.ts';

// Germany: the Gesetz gegen den unlauteren Wettbewerb (UWG). Advertising by
// telephone to a consumer needs their prior express consent (§ 7 Abs. 2 Nr. 1),
// and advertising by an automatic calling machine, which an AI agent is, needs
// the prior express consent of any addressee, consumer or business (Nr. 2);
// the consent must be documented and kept five years (§ 7a). No statutory
// calling hours.

export const DE: CountryPolicy = {
  country: 'DE',
  name: 'Germany',
  minuteFactor: { fixed_line: 1, mobile: 2.5 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to German numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to German numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to German numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    marketing: {
      allowed: true, requires: ['prior_express'], code: 'marketing_opt_in_required',
      message: 'Advertising calls by an automatic calling machine (AI voice) to German numbers need the called party\'s prior express, documented consent',
      sources: ['de-uwg-7-telefon', 'de-uwg-7-anrufmaschine', 'de-uwg-7a'],
    },
  },
  windows: [],
  sources: [
    {
      id: 'de-uwg-7-telefon',
      title: 'Gesetz gegen den unlauteren Wettbewerb (UWG), § 7 Abs. 2 Nr. 1 (until 27 May 2022 Nr. 2)',
      url: 'https://www.gesetze-im-internet.de/uwg_2004/__7.html',
      // The UWG of 2004 (in force 8 July 2004) already required the consent, as § 7 Abs. 2 Nr. 2;
      // the 2021 amendment (in force 28 May 2022) renumbered it Nr. 1 without changing the duty.
      effective: '2004-07-08',
      summary: 'Advertising by telephone call is always an unacceptable nuisance towards a consumer without their prior express consent, and towards any other market participant without at least their presumed consent.',
    },
    {
      id: 'de-uwg-7-anrufmaschine',
      title: 'Gesetz gegen den unlauteren Wettbewerb (UWG), § 7 Abs. 2 Nr. 2 (until 27 May 2022 Nr. 3)',
      url: 'https://www.gesetze-im-internet.de/uwg_2004/__7.html',
      // In the UWG of 2004 as § 7 Abs. 2 Nr. 3; renumbered Nr. 2 on 28 May 2022, the duty unchanged.
      effective: '2004-07-08',
      summary: 'Advertising using an automatic calling machine is always an unacceptable nuisance without the addressee\'s prior express consent.',
    },
    {
      id: 'de-uwg-7a',
      title: 'Gesetz gegen den unlauteren Wettbewerb (UWG), § 7a',
      url: 'https://www.gesetze-im-internet.de/uwg_2004/__7a.html',
      effective: '2021-10-01',
      summary: 'Whoever advertises to a consumer by telephone must document the consumer\'s prior express consent when it is given and keep the record for five years after it is given and after each use.',
    },
  ],
};
