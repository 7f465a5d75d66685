import type { CountryPolicy } from '../types.ts';

// Portugal: Lei n.º 41/2004 (privacy in electronic communications, as amended
// by Lei n.º 46/2012). Direct marketing by automatic calling machines, which an
// AI agent is, needs the prior express consent of a subscriber who is a natural
// person; legal persons may be called until they object and join the opt-out
// list kept by the Direção-Geral do Consumidor (art. 13.º-B), which we cannot
// check, so we ask consent of everyone. Calls from a professional's call centre
// to consumers only between 09:00 and 22:00 (Decreto-Lei n.º 134/2009, art. 7.º).

export const PT: CountryPolicy = {
  country: 'PT',
  name: 'Portugal',
  minuteFactor: { fixed_line: 1, mobile: 2, voip: 1 },
  purposes: {
    transactional: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to Portuguese numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    scheduling: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to Portuguese numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    support: {
      allowed: true, requires: [], code: 'consent_required',
      message: 'Calls to Portuguese numbers for this purpose need the called party\'s consent',
      sources: [],
    },
    marketing: {
      allowed: true, requires: ['prior_express'], code: 'marketing_opt_in_required',
      message: 'Direct marketing calls by an automatic calling machine (AI voice) to Portuguese numbers need the called party\'s prior express consent',
      sources: ['pt-lei-41-2004-13a', 'pt-lei-41-2004-13b'],
    },
  },
  windows: [
    { source: 'pt-dl-134-2009-7', days: { 1: [['09:00', '22:00']], 2: [['09:00', '22:00']], 3: [['09:00', '22:00']], 4: [['09:00', '22:00']], 5: [['09:00', '22:00']], 6: [['09:00', '22:00']], 7: [['09:00', '22:00']] } },
  ],
  sources: [
    {
      id: 'pt-lei-41-2004-13a',
      title: 'Lei n.º 41/2004, de 18 de agosto, art. 13.º-A (added by Lei n.º 46/2012, de 29 de agosto)',
      url: 'https://www.pgdlisboa.pt/leis/lei_mostra_articulado.php?artigo_id=707A0013A&nid=707&tabela=leis&pagina=1&ficha=1&so_miolo=&nversao=',
      effective: '2012-08-30',
      summary: 'Unsolicited direct marketing communications, notably by automated calling systems without human intervention, need the prior express consent of a subscriber who is a natural person, or of the user.',
    },
    {
      id: 'pt-lei-41-2004-13b',
      title: 'Lei n.º 41/2004, de 18 de agosto, art. 13.º-B, n.º 2 (opt-out list of legal persons)',
      url: 'https://www.pgdlisboa.pt/leis/lei_mostra_articulado.php?tabela=leis&nid=707&pagina=1&ficha=1',
      effective: '2012-08-30',
      summary: 'The Direção-Geral do Consumidor keeps the national list of subscribers that are legal persons and object to unsolicited direct marketing; read with art. 13.º-A(2), those on it may not be sent such communications.',
    },
    {
      id: 'pt-dl-134-2009-7',
      title: 'Decreto-Lei n.º 134/2009, de 2 de junho (call centres), art. 7.º, n.º 1',
      url: 'https://centrodecontacto.com/regras-especificas-de-contacto-ou-emissao-de-chamadas',
      effective: '2009-11-29',
      summary: 'A professional\'s call centre calls consumers only at hours that respect usual rest periods and never before 09:00 or after 22:00 in the consumer\'s time zone, unless the consumer agreed beforehand.',
    },
  ],
};
