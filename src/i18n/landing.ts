import type { Lang } from './lang.ts';

// What the service's address says to a browser (GET /, http/landing.ts), in
// the browser's language: what this is, and where to go (the API reference,
// the OpenAPI document, the health check, which are in English).

export type LandingTexts = {
  lead: string;
  start: string;
  docs: [link: string, what: string];
  openapi: [link: string, what: string];
  health: [link: string, what: string];
  key: string;
};

const en: LandingTexts = {
  lead: 'Live translation for rooms, meetings and booking links, voices, AI agents and phone calls, through one HTTP API.',
  start: 'Start here',
  docs: ['API reference', 'every endpoint with its fields and errors, and requests you can try'],
  openapi: ['OpenAPI document', 'the same, for client generators and tools'],
  health: ['Health check', 'answers 200 while the service runs'],
  key: 'Every request to /v1 carries an API key:',
};

const pt: LandingTexts = {
  lead: 'Tradução em tempo real para salas, reuniões e links de agendamento, vozes, agentes de IA e chamadas telefônicas, por uma única API HTTP.',
  start: 'Comece por aqui',
  docs: ['Referência da API', 'cada endpoint com seus campos e erros, e requisições que você pode testar'],
  openapi: ['Documento OpenAPI', 'o mesmo, para geradores de clientes e ferramentas'],
  health: ['Verificação de saúde', 'responde 200 enquanto o serviço está no ar'],
  key: 'Cada requisição a /v1 leva uma chave de API:',
};

const es: LandingTexts = {
  lead: 'Traducción en directo para salas, reuniones y enlaces de reserva, voces, agentes de IA y llamadas telefónicas, con una sola API HTTP.',
  start: 'Empieza aquí',
  docs: ['Referencia de la API', 'cada endpoint con sus campos y errores, y peticiones que puedes probar'],
  openapi: ['Documento OpenAPI', 'lo mismo, para generadores de clientes y herramientas'],
  health: ['Comprobación de estado', 'responde 200 mientras el servicio funciona'],
  key: 'Cada petición a /v1 lleva una clave de API:',
};

const de: LandingTexts = {
  lead: 'Live-Übersetzung für Räume, Besprechungen und Buchungslinks, Stimmen, KI-Agenten und Telefonate, über eine einzige HTTP-API.',
  start: 'Hier anfangen',
  docs: ['API-Referenz', 'jeder Endpunkt mit seinen Feldern und Fehlern, mit Anfragen zum Ausprobieren'],
  openapi: ['OpenAPI-Dokument', 'dasselbe für Client-Generatoren und Werkzeuge'],
  health: ['Statusprüfung', 'antwortet mit 200, solange der Dienst läuft'],
  key: 'Jede Anfrage an /v1 trägt einen API-Schlüssel:',
};

const fr: LandingTexts = {
  lead: 'Traduction en direct pour les salles, réunions et liens de réservation, voix, agents IA et appels téléphoniques, par une seule API HTTP.',
  start: 'Pour commencer',
  docs: ['Référence de l’API', 'chaque endpoint avec ses champs et ses erreurs, et des requêtes à essayer'],
  openapi: ['Document OpenAPI', 'la même chose, pour les générateurs de clients et les outils'],
  health: ['Contrôle de santé', 'répond 200 tant que le service fonctionne'],
  key: 'Chaque requête vers /v1 porte une clé d’API :',
};

export const LANDING: Record<Lang, LandingTexts> = { en, pt, es, de, fr };
