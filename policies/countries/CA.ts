import type { CountryPolicy } from '../types.ts';

// Canada: the CRTC's Unsolicited Telecommunications Rules. An AI agent's
// synthesized voice makes our dialer an automatic dialing-announcing device
// (ADAD): solicitation by ADAD needs the called party's express consent, with
// no existing-business-relationship exception (CRTC 2014-155). Non-solicitation
// ADAD calls need no consent but must identify the caller and keep to the same
// hours as telemarketing: weekdays 09:00–21:30, weekends 10:00–18:00, local time.

const HOURS: Record<1 | 2 | 3 | 4 | 5 | 6 | 7, Array<[string, string]>> = {
  1: [['09:00', '21:30']], 2: [['09:00', '21:30']], 3: [['09:00', '21:30']], 4: [['09:00', '21:30']], 5: [['09:00', '21:30']],
  6: [['10:00', '18:00']], 7: [['10:00', '18:00']],
};

export const CA: CountryPolicy = {
  country: 'CA',
  name: 'Canada',
  minuteFactor: { fixed_line: 1, mobile: 1, fixed_line_or_mobile: 1, toll_free: 1, voip: 1, personal_number: 1 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Canadian numbers that solicit nothing need no prior consent but must identify the caller and keep to the permitted hours',
      sources: ['ca-utr-adad-conditions'],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Canadian numbers that solicit nothing need no prior consent but must identify the caller and keep to the permitted hours',
      sources: ['ca-utr-adad-conditions'],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Canadian numbers that solicit nothing need no prior consent but must identify the caller and keep to the permitted hours',
      sources: ['ca-utr-adad-conditions'],
    },
    marketing: {
      allowed: true, requires: ['prior_express'], code: 'marketing_opt_in_required',
      message: 'Solicitation calls by an AI voice (an ADAD under CRTC rules) to Canadian numbers need the called party\'s express consent, even from existing customers',
      sources: ['ca-utr-adad-consent', 'ca-crtc-2014-155'],
    },
  },
  windows: [
    { source: 'ca-utr-telemarketing-hours', purposes: ['marketing'], days: HOURS },
    { source: 'ca-utr-adad-conditions', purposes: ['transactional', 'scheduling', 'support'], days: HOURS },
  ],
  sources: [
    {
      id: 'ca-utr-adad-consent',
      title: 'CRTC Unsolicited Telecommunications Rules, Part IV (Automatic Dialing-Announcing Device Rules), s. 2',
      url: 'https://crtc.gc.ca/eng/trules-reglest.htm',
      effective: '2008-09-30',
      summary: 'An ADAD (equipment that dials numbers and conveys a pre-recorded or synthesized voice message) may be used for solicitation only with the called party\'s prior express consent to be called that way.',
    },
    {
      id: 'ca-utr-adad-conditions',
      title: 'CRTC Unsolicited Telecommunications Rules, Part IV (Automatic Dialing-Announcing Device Rules), non-solicitation ADAD calls',
      url: 'https://crtc.gc.ca/eng/trules-reglest.htm',
      effective: '2008-09-30',
      summary: 'ADAD calls that solicit nothing need no consent but must open by identifying the person on whose behalf the call is made and the call\'s purpose, give contact details, display the calling number and keep to the telemarketing calling hours.',
    },
    {
      id: 'ca-utr-telemarketing-hours',
      title: 'CRTC Unsolicited Telecommunications Rules, Part III (Telemarketing Rules), ss. 23–24',
      url: 'https://crtc.gc.ca/eng/trules-reglest.htm',
      effective: '2008-09-30',
      summary: 'Telemarketing calls only between 09:00 and 21:30 on weekdays and between 10:00 and 18:00 on weekends, in the called party\'s local time, unless provincial law is stricter.',
    },
    {
      id: 'ca-crtc-2014-155',
      title: 'Compliance and Enforcement Regulatory Policy CRTC 2014-155, Review of the Unsolicited Telecommunications Rules',
      url: 'https://crtc.gc.ca/eng/archive/2014/2014-155.htm',
      effective: '2014-03-31',
      summary: 'The CRTC refused to let an existing business relationship replace express consent for telemarketing by ADAD, and required non-solicitation ADAD messages to state their purpose at the outset.',
    },
  ],
};
