// Published catalogs: generic voices (no consent needed) and avatars.
// Static data shipped with the service; preview media are not hosted yet (null).

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

const VIDEO_TYPES = ['talk-neutral', 'talk-agree', 'idle-aside', 'idle-monitor', 'talk-explain', 'talk-question'] as const;

function variations() {
  const codes = [['a1', 'angle'], ['a2', 'angle'], ['a3', 'angle'], ['v1', 'scene']] as const;
  return codes.map(([code, kind]) => ({
    code,
    kind,
    photo_url: null,
    video_types: [...VIDEO_TYPES],
    preview_urls: Object.fromEntries(VIDEO_TYPES.map((t) => [t, null])) as Record<string, string | null>,
  }));
}

export const AVATARS = [
  { id: 'avatar_helena', name: 'Helena', gender: 'female', age_band: '36-50', style: 'formal', poster_url: null, variations: variations(),
    suggested_voices: { en: 'generic_EmmaEn01', pt: 'generic_AnaPt01', es: 'generic_SofiaEs01', fr: 'generic_CamilleFr01' } },
  { id: 'avatar_rafael', name: 'Rafael', gender: 'male', age_band: '25-35', style: 'casual', poster_url: null, variations: variations(),
    suggested_voices: { en: 'generic_OliverEn02', pt: 'generic_LucasPt02', es: 'generic_MateoEs02', de: 'generic_LukasDe01' } },
] as const;
