import type { CountryPolicy } from '../types.ts';

// United States: the TCPA and the FCC's rules under it. An AI agent's voice is
// an "artificial voice" (FCC 24-17), so every non-emergency call we place
// needs the called party's prior express consent, and telemarketing their
// prior express written consent. Telephone solicitations only between 08:00
// and 21:00 at the called party's location, and in the states below only
// within their own hours and caps.

export const US: CountryPolicy = {
  country: 'US',
  name: 'United States',
  minuteFactor: { fixed_line: 1, mobile: 1, fixed_line_or_mobile: 1, toll_free: 1, voip: 1, personal_number: 1 },
  purposes: {
    transactional: {
      allowed: true, requires: ['prior_express'], code: 'consent_required',
      message: 'Calls with an artificial (AI) voice to US numbers need the called party\'s prior express consent',
      sources: ['us-tcpa-artificial-voice', 'us-fcc-24-17'],
    },
    scheduling: {
      allowed: true, requires: ['prior_express'], code: 'consent_required',
      message: 'Calls with an artificial (AI) voice to US numbers need the called party\'s prior express consent',
      sources: ['us-tcpa-artificial-voice', 'us-fcc-24-17'],
    },
    support: {
      allowed: true, requires: ['prior_express'], code: 'consent_required',
      message: 'Calls with an artificial (AI) voice to US numbers need the called party\'s prior express consent',
      sources: ['us-tcpa-artificial-voice', 'us-fcc-24-17'],
    },
    marketing: {
      allowed: true, requires: ['written'], code: 'written_consent_required',
      message: 'Telemarketing calls with an artificial (AI) voice to US numbers need the called party\'s prior express written consent',
      sources: ['us-telemarketing-written-consent', 'us-fcc-24-17'],
    },
  },
  windows: [
    { source: 'us-calling-hours', purposes: ['marketing'], days: { 1: [['08:00', '21:00']], 2: [['08:00', '21:00']], 3: [['08:00', '21:00']], 4: [['08:00', '21:00']], 5: [['08:00', '21:00']], 6: [['08:00', '21:00']], 7: [['08:00', '21:00']] } },
  ],
  // States with stricter hours or caps for telephone solicitation, applied to
  // a number whose area code is in the state (zones.ts regionOf), and to every
  // number whose state cannot be told (toll-free): there, all of them at once.
  regions: [
    {
      region: 'US-FL', name: 'Florida', purposes: ['marketing'],
      windows: [{ source: 'us-fl-501-616', days: { 1: [['08:00', '20:00']], 2: [['08:00', '20:00']], 3: [['08:00', '20:00']], 4: [['08:00', '20:00']], 5: [['08:00', '20:00']], 6: [['08:00', '20:00']], 7: [['08:00', '20:00']] } }],
      maxAttempts: { count: 3, hours: 24, source: 'us-fl-501-616' },
    },
    {
      region: 'US-OK', name: 'Oklahoma', purposes: ['marketing'],
      windows: [{ source: 'us-ok-775c-4', days: { 1: [['08:00', '20:00']], 2: [['08:00', '20:00']], 3: [['08:00', '20:00']], 4: [['08:00', '20:00']], 5: [['08:00', '20:00']], 6: [['08:00', '20:00']], 7: [['08:00', '20:00']] } }],
      maxAttempts: { count: 3, hours: 24, source: 'us-ok-775c-4' },
    },
    {
      region: 'US-MD', name: 'Maryland', purposes: ['marketing'],
      windows: [{ source: 'us-md-14-4502', days: { 1: [['08:00', '20:00']], 2: [['08:00', '20:00']], 3: [['08:00', '20:00']], 4: [['08:00', '20:00']], 5: [['08:00', '20:00']], 6: [['08:00', '20:00']], 7: [['08:00', '20:00']] } }],
      maxAttempts: { count: 3, hours: 24, source: 'us-md-14-4502' },
    },
    {
      region: 'US-TX', name: 'Texas', purposes: ['marketing'],
      windows: [{ source: 'us-tx-301-051', days: { 1: [['09:00', '21:00']], 2: [['09:00', '21:00']], 3: [['09:00', '21:00']], 4: [['09:00', '21:00']], 5: [['09:00', '21:00']], 6: [['09:00', '21:00']], 7: [['12:00', '21:00']] } }],
    },
    {
      region: 'US-CT', name: 'Connecticut', purposes: ['marketing'],
      windows: [{ source: 'us-ct-42-288a', days: { 1: [['09:00', '20:00']], 2: [['09:00', '20:00']], 3: [['09:00', '20:00']], 4: [['09:00', '20:00']], 5: [['09:00', '20:00']], 6: [['09:00', '20:00']], 7: [['09:00', '20:00']] } }],
    },
    {
      region: 'US-WA', name: 'Washington', purposes: ['marketing'],
      windows: [{ source: 'us-wa-19-158-040', days: { 1: [['08:00', '20:00']], 2: [['08:00', '20:00']], 3: [['08:00', '20:00']], 4: [['08:00', '20:00']], 5: [['08:00', '20:00']], 6: [['08:00', '20:00']], 7: [['08:00', '20:00']] } }],
    },
    {
      region: 'US-LA', name: 'Louisiana', purposes: ['marketing'],
      windows: [{ source: 'us-la-psc-r-29617', noPublicHolidays: true, holidayRegions: ['LA'], days: { 1: [['08:00', '20:00']], 2: [['08:00', '20:00']], 3: [['08:00', '20:00']], 4: [['08:00', '20:00']], 5: [['08:00', '20:00']], 6: [['08:00', '20:00']] } }],
    },
    {
      // "8:00 a.m. and 9:00 p.m., Central Standard Time": in daylight time 8:00 CST is 9:00 local, so 09:00–21:00 all year.
      region: 'US-MS', name: 'Mississippi', purposes: ['marketing'],
      windows: [{ source: 'us-ms-77-3-723', days: { 1: [['09:00', '21:00']], 2: [['09:00', '21:00']], 3: [['09:00', '21:00']], 4: [['09:00', '21:00']], 5: [['09:00', '21:00']], 6: [['09:00', '21:00']] } }],
    },
    {
      region: 'US-RI', name: 'Rhode Island', purposes: ['marketing'],
      windows: [{ source: 'us-ri-5-61-3-6', noPublicHolidays: true, holidayRegions: ['RI'], days: { 1: [['09:00', '18:00']], 2: [['09:00', '18:00']], 3: [['09:00', '18:00']], 4: [['09:00', '18:00']], 5: [['09:00', '18:00']], 6: [['10:00', '17:00']] } }],
    },
    {
      region: 'US-UT', name: 'Utah', purposes: ['marketing'],
      windows: [{ source: 'us-ut-13-25a-103', noPublicHolidays: true, holidayRegions: ['UT'], days: { 1: [['08:00', '21:00']], 2: [['08:00', '21:00']], 3: [['08:00', '21:00']], 4: [['08:00', '21:00']], 5: [['08:00', '21:00']], 6: [['08:00', '21:00']] } }],
    },
    {
      region: 'US-KY', name: 'Kentucky', purposes: ['marketing'],
      windows: [{ source: 'us-ky-367-46955', days: { 1: [['10:00', '21:00']], 2: [['10:00', '21:00']], 3: [['10:00', '21:00']], 4: [['10:00', '21:00']], 5: [['10:00', '21:00']], 6: [['10:00', '21:00']], 7: [['10:00', '21:00']] } }],
    },
    {
      region: 'US-MN', name: 'Minnesota', purposes: ['marketing'],
      windows: [{ source: 'us-mn-325e-27', days: { 1: [['09:00', '21:00']], 2: [['09:00', '21:00']], 3: [['09:00', '21:00']], 4: [['09:00', '21:00']], 5: [['09:00', '21:00']], 6: [['09:00', '21:00']], 7: [['09:00', '21:00']] } }],
    },
    {
      region: 'US-MA', name: 'Massachusetts', purposes: ['marketing'],
      windows: [{ source: 'us-compiled-state-hours', days: { 1: [['08:00', '20:00']], 2: [['08:00', '20:00']], 3: [['08:00', '20:00']], 4: [['08:00', '20:00']], 5: [['08:00', '20:00']], 6: [['08:00', '20:00']], 7: [['08:00', '20:00']] } }],
    },
    {
      region: 'US-MI', name: 'Michigan', purposes: ['marketing'],
      windows: [{ source: 'us-compiled-state-hours', days: { 1: [['09:00', '21:00']], 2: [['09:00', '21:00']], 3: [['09:00', '21:00']], 4: [['09:00', '21:00']], 5: [['09:00', '21:00']], 6: [['09:00', '21:00']], 7: [['09:00', '21:00']] } }],
    },
    {
      region: 'US-NV', name: 'Nevada', purposes: ['marketing'],
      windows: [{ source: 'us-compiled-state-hours', days: { 1: [['09:00', '20:00']], 2: [['09:00', '20:00']], 3: [['09:00', '20:00']], 4: [['09:00', '20:00']], 5: [['09:00', '20:00']], 6: [['09:00', '20:00']], 7: [['09:00', '20:00']] } }],
    },
    {
      region: 'US-NM', name: 'New Mexico', purposes: ['marketing'],
      windows: [{ source: 'us-compiled-state-hours', days: { 1: [['09:00', '21:00']], 2: [['09:00', '21:00']], 3: [['09:00', '21:00']], 4: [['09:00', '21:00']], 5: [['09:00', '21:00']], 6: [['09:00', '21:00']], 7: [['09:00', '21:00']] } }],
    },
  ],
  sources: [
    {
      id: 'us-tcpa-artificial-voice',
      title: 'Telephone Consumer Protection Act, 47 U.S.C. § 227(b)(1)(A)(iii) and (B)',
      url: 'https://www.law.cornell.edu/uscode/text/47/227',
      effective: '1991-12-20',
      summary: 'Calls using an artificial or prerecorded voice to a mobile number, or to a residential line, need the called party\'s prior express consent (emergencies aside).',
    },
    {
      id: 'us-fcc-24-17',
      title: 'FCC Declaratory Ruling FCC 24-17 (CG Docket No. 23-362)',
      url: 'https://docs.fcc.gov/public/attachments/FCC-24-17A1.pdf',
      effective: '2024-02-08',
      summary: 'Voices generated by artificial intelligence are "artificial" voices under the TCPA: AI voice calls need the same consent as prerecorded ones.',
    },
    {
      id: 'us-telemarketing-written-consent',
      title: '47 C.F.R. § 64.1200(a)(2)–(3)',
      url: 'https://www.ecfr.gov/current/title-47/chapter-I/subchapter-B/part-64/subpart-L/section-64.1200',
      effective: '2013-10-16',
      summary: 'Telemarketing calls using an artificial or prerecorded voice need the called party\'s prior express written consent.',
    },
    {
      id: 'us-calling-hours',
      title: '47 C.F.R. § 64.1200(c)(1)',
      url: 'https://www.ecfr.gov/current/title-47/chapter-I/subchapter-B/part-64/subpart-L/section-64.1200',
      effective: '1992-12-20',
      summary: 'No telephone solicitation before 8 a.m. or after 9 p.m. local time at the called party\'s location.',
    },
    {
      id: 'us-fl-501-616',
      title: 'Florida Telephone Solicitation Act, Fla. Stat. § 501.616(6)(a)–(b), as amended by ch. 2021-173, Laws of Florida',
      url: 'https://www.flsenate.gov/Laws/Statutes/2024/501.616',
      effective: '2021-07-01',
      summary: 'No commercial telephone solicitation call before 8 a.m. or after 8 p.m. local time at the called person\'s location, and no more than three such calls from any number to a person within 24 hours on the same subject.',
    },
    {
      id: 'us-ok-775c-4',
      title: 'Oklahoma Telephone Solicitation Act of 2022, Okla. Stat. tit. 15, § 775C.4',
      url: 'https://www.oscn.net/applications/oscn/index.asp?ftdb=STOKST15',
      effective: '2022-11-01',
      summary: 'No commercial telephone solicitation call before 8 a.m. or after 8 p.m. local time at the called party\'s location, and no more than three such calls from any number to a person within 24 hours on the same subject.',
    },
    {
      id: 'us-md-14-4502',
      title: 'Maryland Stop the Spam Calls Act of 2023 (SB 90), Md. Code, Com. Law § 14-4502',
      url: 'https://mgaleg.maryland.gov/mgawebsite/Laws/StatuteText?article=gcl&section=14-4502',
      effective: '2024-01-01',
      summary: 'No telephone solicitation before 8 a.m. or after 8 p.m. local time at the called party\'s location, and no more than three calls to a person within 24 hours on the same subject.',
    },
    {
      id: 'us-tx-301-051',
      title: 'Texas Business and Commerce Code § 301.051',
      url: 'https://statutes.capitol.texas.gov/Docs/BC/htm/BC.301.htm',
      // The 2009 recodification of a rule first in the Business & Commerce Code's ch. 37
      // ("permissible hours", Acts 1991, in force 1 January 1992): in force since then.
      effective: '1992-01-01',
      summary: 'No telephone solicitation before 9 a.m. or after 9 p.m. on a weekday or Saturday, or before noon or after 9 p.m. on a Sunday, at the purchaser\'s location.',
    },
    {
      id: 'us-ct-42-288a',
      title: 'Connecticut General Statutes § 42-288a, as amended by Public Act 23-98',
      url: 'https://www.cga.ct.gov/current/pub/chap_743i.htm',
      effective: '2023-10-01',
      summary: 'No telephone solicitation before 9 a.m. or after 8 p.m. local time at the consumer\'s location.',
    },
    {
      id: 'us-wa-19-158-040',
      title: 'Revised Code of Washington § 19.158.040(2) (Commercial Telephone Solicitation Act, 1989 c 20, as amended by 2002 c 86)',
      url: 'https://app.leg.wa.gov/RCW/default.aspx?cite=19.158.040',
      // The chapter dates from 1989; when the hours took this form was not checked: the table
      // treats them as in force since 2000, long before any call this service places.
      effective: '2000-01-01',
      summary: 'A commercial telephone solicitor shall not place calls to be received before 8:00 a.m. or after 8:00 p.m. at the recipient\'s local time.',
    },
    {
      id: 'us-la-psc-r-29617',
      title: 'Louisiana Public Service Commission, General Order R-29617, § V(A) (Do Not Call Program), under La. R.S. 45:844.11 et seq.',
      url: 'https://www.lpsc.louisiana.gov/',
      // The order's date was not checked: the table treats it as in force since 2000.
      effective: '2000-01-01',
      summary: 'No telephonic solicitation on Sundays or legal holidays, nor between 8:00 p.m. and 8:00 a.m. Monday through Saturday.',
    },
    {
      id: 'us-ms-77-3-723',
      title: 'Mississippi Telephone Solicitation Act, Miss. Code Ann. § 77-3-723(1), and § 77-3-603(a)',
      url: 'https://law.justia.com/codes/mississippi/title-77/chapter-3/',
      // The Act's first date was not checked: the table treats it as in force since 2000.
      effective: '2000-01-01',
      summary: 'No telephone solicitation on a Sunday; unsolicited telephonic sales calls only between 8:00 a.m. and 9:00 p.m. Central Standard Time, Monday through Saturday (since 2023 the ban on legal holidays, a Public Service Commission rule, no longer applies).',
    },
    {
      id: 'us-ri-5-61-3-6',
      title: 'Rhode Island Telephone Sales Solicitation Act, R.I. Gen. Laws § 5-61-3.6 and § 5-61-2 ("hours of operation")',
      url: 'https://webserver.rilin.state.ri.us/Statutes/TITLE5/5-61/5-61-3.6.HTM',
      effective: '1999-07-01',
      summary: 'Unsolicited telephonic sales calls only during the hours of operation: 9:00 a.m. to 6:00 p.m. Monday to Friday and 10:00 a.m. to 5:00 p.m. on Saturday, never on Sundays or legal holidays.',
    },
    {
      id: 'us-ut-13-25a-103',
      title: 'Utah Telephone and Facsimile Solicitation Act, Utah Code § 13-25a-103',
      url: 'https://le.utah.gov/xcode/Title13/Chapter25A/13-25a-S103.html',
      // The section's first date was not checked: the table treats it as in force since 2000.
      effective: '2000-01-01',
      summary: 'No unsolicited telephone solicitation on a Sunday or a legal holiday (calls with the party\'s prior express consent aside); hours as the federal rule.',
    },
    {
      id: 'us-ky-367-46955',
      title: 'Kentucky Revised Statutes § 367.46955 (prohibited telephone solicitation acts and practices)',
      url: 'https://apps.legislature.ky.gov/law/statutes/statute.aspx?id=45385',
      // The item's first date was not checked: the table treats it as in force since 2000.
      effective: '2000-01-01',
      summary: 'No telephone solicitation before 10 a.m. or after 9 p.m. at the called person\'s location.',
    },
    {
      id: 'us-mn-325e-27',
      title: 'Minnesota Statutes § 325E.27 (use of prerecorded or synthesized voice messages)',
      url: 'https://www.revisor.mn.gov/statutes/cite/325E.27',
      // The section's first date was not checked: the table treats it as in force since 2000.
      effective: '2000-01-01',
      summary: 'A caller may not use a prerecorded or synthesized voice message (an AI voice is one) before 9 a.m. or after 9 p.m.',
    },
    {
      id: 'us-compiled-state-hours',
      title: 'State telemarketing calling hours as compiled by compliance services (Drop Cowboy, "State Calling Restrictions Guide", updated 2025-11-01; ClickPoint, July 2025): Massachusetts, Michigan, Nevada, New Mexico',
      url: 'https://www.dropcowboy.com/state-compliance',
      kind: 'guidance',
      // Not a statute: the states' own texts were not found with the search tool. Applied because
      // refusing a lawful call is the lesser harm; each state's statute is to be checked and cited.
      effective: '2000-01-01',
      summary: 'Stricter than the federal hours: Massachusetts 8 a.m.–8 p.m., Michigan 9 a.m.–9 p.m., Nevada 9 a.m.–8 p.m., New Mexico 9 a.m.–9 p.m., every day, at the called party\'s location.',
    },
  ],
};
