// Published catalogs: avatars (the generic voices they suggest are the voices', voices/catalog.ts).
// Static data shipped with the service; preview media are not hosted yet (null).

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
