import type { Lang } from './lang.ts';
import type { BookingTexts } from './booking/texts.ts';
import { en } from './booking/en.ts';
import { pt } from './booking/pt.ts';
import { es } from './booking/es.ts';
import { de } from './booking/de.ts';
import { fr } from './booking/fr.ts';

// What the booking page (the browser's language) and the guest's manage
// page (the guest's `locale`) say, server-rendered and in their script
// (`script`, {placeholders} filled there).
// One table per language in booking/, each of the shape in booking/texts.ts.

export type { BookingTexts };

export const BOOKING: Record<Lang, BookingTexts> = { en, pt, es, de, fr };
