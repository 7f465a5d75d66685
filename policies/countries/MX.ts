import type { CountryPolicy } from '../types.ts';

// Mexico: Ley Federal de Protección al Consumidor arts. 17, 18 and 18 bis.
// Advertising calls must not reach consumers who told the supplier they want
// none or who registered with PROFECO's REPEP, unless they consented; as the
// engine checks no registry, marketing needs prior consent. We found no calling
// hours in force: the 2019 Senate bill (weekdays 08:00–19:00) was not enacted.

export const MX: CountryPolicy = {
  country: 'MX',
  name: 'Mexico',
  minuteFactor: { fixed_line: 1, mobile: 1.5, fixed_line_or_mobile: 1.5 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Mexican numbers that advertise nothing need no prior consent',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Mexican numbers that advertise nothing need no prior consent',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Mexican numbers that advertise nothing need no prior consent',
      sources: [],
    },
    marketing: {
      allowed: true, requires: ['prior_express'], code: 'marketing_opt_in_required',
      message: 'Advertising calls to Mexican numbers need the consumer\'s consent, since numbers on PROFECO\'s REPEP may not be called without it and the register is not checked here',
      sources: ['mx-lfpc-art-18-bis', 'mx-lfpc-repep'],
    },
  },
  windows: [],
  sources: [
    {
      id: 'mx-lfpc-repep',
      title: 'Ley Federal de Protección al Consumidor, arts. 17 and 18 (Registro Público de Consumidores / REPEP)',
      url: 'https://repep.profeco.gob.mx/',
      effective: '2004-11-04',
      summary: 'Consumers may demand not to be bothered with offers by any means and may register their number with PROFECO\'s public register, which suppliers must honour 30 days after registration.',
    },
    {
      id: 'mx-lfpc-art-18-bis',
      title: 'Ley Federal de Protección al Consumidor, art. 18 bis',
      url: 'https://www.diputados.gob.mx/LeyesBiblio/ref/lfpc.htm',
      effective: '2004-05-04',
      summary: 'Suppliers and marketers must not send advertising to consumers who told them they do not want it or who are registered in the public register, and the advertised supplier is jointly liable when a third party calls.',
    },
  ],
};
