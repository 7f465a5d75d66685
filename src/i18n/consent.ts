import type { Lang } from './lang.ts';
import type { ConsentTexts } from './consent/texts.ts';
import { en } from './consent/en.ts';
import { pt } from './consent/pt.ts';
import { es } from './consent/es.ts';
import { de } from './consent/de.ts';
import { fr } from './consent/fr.ts';

// What the person whose voice is asked for reads, in their language (the
// voice's `language`): the consent page, its script's texts, its errors, and
// the mails of the consent flow. The consent sentence itself is in
// voices/texts.ts. Texts with {name} placeholders are filled by the page's
// script (lang.ts fill() on the server).
// One table per language in consent/, each of the shape in consent/texts.ts.

export type { ConsentTexts };

export const CONSENT: Record<Lang, ConsentTexts> = { en, pt, es, de, fr };
