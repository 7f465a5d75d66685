// The generic voices (no consent needed): GET /v1/voices/catalog lists them, and a
// voice added from it (POST /v1/voices/generic) is one of them. Static data shipped
// with the service; preview media are not hosted yet (null).

export const CATALOG_VOICES = [
  { id: 'generic_AnaPt01', name: 'Ana', gender: 'female', accent: 'pt-BR', description: 'Warm, conversational Brazilian Portuguese', preview_url: null },
  { id: 'generic_LucasPt02', name: 'Lucas', gender: 'male', accent: 'pt-BR', description: 'Calm, clear Brazilian Portuguese', preview_url: null },
  { id: 'generic_EmmaEn01', name: 'Emma', gender: 'female', accent: 'en-US', description: 'Friendly American English', preview_url: null },
  { id: 'generic_OliverEn02', name: 'Oliver', gender: 'male', accent: 'en-GB', description: 'Measured British English', preview_url: null },
  { id: 'generic_SofiaEs01', name: 'Sofía', gender: 'female', accent: 'es-ES', description: 'Bright Castilian Spanish', preview_url: null },
  { id: 'generic_MateoEs02', name: 'Mateo', gender: 'male', accent: 'es-MX', description: 'Relaxed Mexican Spanish', preview_url: null },
  { id: 'generic_CamilleFr01', name: 'Camille', gender: 'female', accent: 'fr-FR', description: 'Clear Parisian French', preview_url: null },
  { id: 'generic_LukasDe01', name: 'Lukas', gender: 'male', accent: 'de-DE', description: 'Neutral standard German', preview_url: null },
] as const;
