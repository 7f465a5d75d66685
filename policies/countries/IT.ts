import type { CountryPolicy } from '../types.ts';

// Italy: the Codice in materia di protezione dei dati personali. Marketing by
// automated calling systems without an operator, which an AI agent is, needs
// the consent of the subscriber or user (art. 130, comma 1). Since 27 July 2022
// any number, mobile included, can be put on the Registro pubblico delle
// opposizioni (DPR n. 26/2022), which also covers automated calls and revokes
// consents given before registration: we cannot see it, so marketing needs a
// consent the caller can prove. Marketing calls under the Garante's telemarketing
// code of conduct: weekdays 09:00–20:00, Saturdays 10:00–19:00, never on Sundays
// or public holidays.

export const IT: CountryPolicy = {
  country: 'IT',
  name: 'Italy',
  minuteFactor: { fixed_line: 1, mobile: 2, voip: 1 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to Italian numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to Italian numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to Italian numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    marketing: {
      allowed: true, requires: ['prior_express'], code: 'marketing_opt_in_required',
      message: 'Marketing calls by an automated calling system without an operator (AI voice) to Italian numbers need the called party\'s prior consent, not revoked by registering on the Registro pubblico delle opposizioni',
      sources: ['it-codice-privacy-130', 'it-dpr-26-2022-rpo'],
    },
  },
  windows: [
    // The code: weekdays 09:00–20:00; Saturdays and the day before a holiday ("prefestivi") 10:00–19:00.
    { source: 'it-codice-condotta-telemarketing', purposes: ['marketing'], noPublicHolidays: true, eves: [['10:00', '19:00']], days: { 1: [['09:00', '20:00']], 2: [['09:00', '20:00']], 3: [['09:00', '20:00']], 4: [['09:00', '20:00']], 5: [['09:00', '20:00']], 6: [['10:00', '19:00']] } },
  ],
  sources: [
    {
      id: 'it-codice-privacy-130',
      title: 'Codice in materia di protezione dei dati personali (d.lgs. 30 giugno 2003, n. 196), art. 130, comma 1',
      url: 'https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:decreto.legislativo:2003-06-30;196~art130',
      effective: '2004-01-01',
      summary: 'Automated calling systems without the intervention of an operator may be used for advertising, direct sales, market research or commercial communication only with the consent of the subscriber or user.',
    },
    {
      id: 'it-dpr-26-2022-rpo',
      title: 'D.P.R. 27 gennaio 2022, n. 26 (Registro pubblico delle opposizioni), with legge 11 gennaio 2018, n. 5',
      url: 'https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:decreto.del.presidente.della.repubblica:2022-01-27;26',
      effective: '2022-07-27',
      summary: 'Any fixed or mobile number can be registered to object to marketing calls, by operator or automated; registration revokes the marketing consents its holder gave before, so such calls need a consent given after it.',
    },
    {
      id: 'it-codice-condotta-telemarketing',
      title: 'Codice di condotta per le attività di telemarketing e teleselling (Garante, provvedimento n. 148 del 7 marzo 2024, G.U. n. 73 del 27 marzo 2024)',
      url: 'https://www.gazzettaufficiale.it/gazzetta/serie_generale/caricaDettaglio?dataPubblicazioneGazzetta=2024-03-27&numeroGazzetta=73',
      effective: '2024-09-28',
      summary: 'Telemarketing calls by the code\'s adherents only 09:00–20:00 on weekdays and 10:00–19:00 on Saturdays and days before holidays, never on Sundays or public holidays, and from identifiable numbers.',
    },
  ],
};
