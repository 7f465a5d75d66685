import type { CountryPolicy } from '../types.ts';

// Brazil: no federal law asks consent before a sales call, but active
// telemarketing must come from a 0303 number (Anatel), telecom operators and
// payroll-loan banks must honour "Não Me Perturbe", and state do-not-call
// registries apply by the number's state: São Paulo's admits only companies the
// consumer authorised in writing. As the engine checks no registry, marketing
// asks written consent; calling hours follow Rio de Janeiro's law (weekdays
// 08:00–18:00, no weekends or holidays), the strictest we found, nationwide.

export const BR: CountryPolicy = {
  country: 'BR',
  name: 'Brazil',
  minuteFactor: { fixed_line: 1, mobile: 2.5, fixed_line_or_mobile: 2.5 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Brazilian numbers that offer nothing need no prior consent',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Brazilian numbers that offer nothing need no prior consent',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'AI voice calls to Brazilian numbers that offer nothing need no prior consent',
      sources: [],
    },
    marketing: {
      allowed: true, requires: ['written'], code: 'written_consent_required',
      message: 'Telemarketing calls to Brazilian numbers need the called person\'s written authorisation, since state do-not-call registries (São Paulo\'s among them) admit no other exception and are not checked here',
      sources: ['br-sp-lei-13226', 'br-nao-me-perturbe', 'br-anatel-0303', 'br-lgpd'],
      callerId: {
        prefixes: ['+55303'], source: 'br-anatel-0303', code: 'caller_id_not_allowed',
        message: 'Telemarketing calls to Brazilian numbers must come from a 0303 number (Anatel); send as from one of your numbers in that range',
      },
    },
  },
  windows: [
    // Rio's law bans calls on its own holidays too (São Jorge, Carnival): applied with the window, nationwide.
    { source: 'br-rj-lei-7853', purposes: ['marketing'], noPublicHolidays: true, holidayRegions: ['RJ'], days: { 1: [['08:00', '18:00']], 2: [['08:00', '18:00']], 3: [['08:00', '18:00']], 4: [['08:00', '18:00']], 5: [['08:00', '18:00']] } },
  ],
  sources: [
    {
      id: 'br-anatel-0303',
      title: 'Anatel, Ato nº 10.413/2021, item 10 (now Ato nº 13.672/2022, item 9): código não geográfico 0303',
      url: 'https://www.gov.br/anatel/pt-br/consumidor/telemarketing/legislacao-e-estudos',
      effective: '2022-03-10',
      summary: 'Active telemarketing (offering products or services by calls or messages, recorded or not) must be placed from a 0303 number, from mobile networks since 10 March 2022 and fixed networks since 8 June 2022.',
    },
    {
      id: 'br-nao-me-perturbe',
      title: 'Não Me Perturbe (national telemarketing block list, Anatel and sector commitment)',
      url: 'https://www.naomeperturbe.com.br/',
      effective: '2019-07-01',
      summary: 'Telecom operators and banks offering payroll-deducted loans and credit cards must not call a number registered on the list with offers, from 30 days after registration.',
    },
    {
      id: 'br-sp-lei-13226',
      title: 'Lei Estadual de São Paulo nº 13.226/2008 and Decreto nº 53.921/2008 (Cadastro para Bloqueio do Recebimento de Ligações de Telemarketing)',
      url: 'https://www.al.sp.gov.br/repositorio/legislacao/lei/2008/lei-13226-07.10.2008.html',
      effective: '2009-04-01',
      summary: 'Numbers with a São Paulo area code registered with Procon-SP may, 30 days after registration, receive telemarketing only from charities, debt collectors and companies the consumer authorised in writing.',
    },
    {
      id: 'br-rj-lei-7853',
      title: 'Lei Estadual do Rio de Janeiro nº 7.853/2018 (art. 1-A of Lei nº 4.896/2006)',
      url: 'https://www.legisweb.com.br/legislacao/?legislacao=157705',
      effective: '2018-05-16',
      summary: 'Telephone offers of products and services only Monday to Friday 08:00–18:00, never on Saturdays, Sundays or holidays, from an identifiable number, naming the company at the start of the call.',
    },
    {
      id: 'br-lgpd',
      title: 'Lei Geral de Proteção de Dados Pessoais, Lei nº 13.709/2018, arts. 7 and 10',
      url: 'https://www.planalto.gov.br/ccivil_03/_ato2015-2018/2018/lei/l13709.htm',
      effective: '2020-09-18',
      summary: 'Using a person\'s number for marketing needs a legal basis, consent or a documented legitimate interest, and the person may object at any time.',
    },
  ],
};
