import type { CountryPolicy } from '../types.ts';

// Spain: an AI agent places "llamadas automáticas sin intervención humana",
// which for commercial purposes need the user's prior consent (Ley 11/2022
// General de Telecomunicaciones, art. 66.1.a; TRLGDCU art. 96.3); since
// 29 June 2023 unwanted commercial calls of any kind need consent or another
// GDPR basis (art. 66.1.b). Commercial calls to consumers only Monday to
// Friday, 09:00–21:00, never on public holidays (TRLGDCU art. 96.2).

export const ES: CountryPolicy = {
  country: 'ES',
  name: 'Spain',
  minuteFactor: { fixed_line: 1, mobile: 2 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to Spanish numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to Spanish numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to Spanish numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    marketing: {
      allowed: true, requires: ['prior_express'], code: 'marketing_opt_in_required',
      message: 'Commercial calls by an automated system without human intervention (AI voice) to Spanish numbers need the called party\'s prior consent',
      sources: ['es-lgtel-66-1-a', 'es-lgtel-66-1-b', 'es-trlgdcu-96'],
    },
  },
  windows: [
    // "Festivos" include each autonomous community's holidays, and a number cannot tell which community it is in: all of them.
    { source: 'es-trlgdcu-96', purposes: ['marketing'], noPublicHolidays: true, holidayRegions: 'all', days: { 1: [['09:00', '21:00']], 2: [['09:00', '21:00']], 3: [['09:00', '21:00']], 4: [['09:00', '21:00']], 5: [['09:00', '21:00']] } },
  ],
  sources: [
    {
      id: 'es-lgtel-66-1-a',
      title: 'Ley 11/2022, de 28 de junio, General de Telecomunicaciones, art. 66.1.a)',
      url: 'https://www.boe.es/buscar/act.php?id=BOE-A-2022-10757',
      effective: '2022-06-30',
      summary: 'End users have the right not to receive automated calls without human intervention for commercial communication unless they have given their prior consent.',
    },
    {
      id: 'es-lgtel-66-1-b',
      title: 'Ley 11/2022, de 28 de junio, General de Telecomunicaciones, art. 66.1.b) and disposición final sexta',
      url: 'https://www.boe.es/buscar/act.php?id=BOE-A-2022-10757',
      effective: '2023-06-29',
      summary: 'End users have the right not to receive unwanted commercial calls unless they gave prior consent or the call rests on another legal basis of GDPR art. 6.1 (read narrowly by the AEPD, Circular 1/2023).',
    },
    {
      id: 'es-trlgdcu-96',
      title: 'Texto refundido de la Ley General para la Defensa de los Consumidores y Usuarios (Real Decreto Legislativo 1/2007), art. 96.2–3, as amended by Ley 3/2014',
      url: 'https://www.boe.es/buscar/act.php?id=BOE-A-2007-20555',
      effective: '2014-03-29',
      summary: 'Commercial telephone calls to consumers never before 09:00, after 21:00, on public holidays or at weekends, and automated calling systems without human intervention need the consumer\'s prior express consent.',
    },
  ],
};
