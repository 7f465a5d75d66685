import type { Lang } from './lang.ts';
import type { RoomScriptTexts, RoomTexts } from './room/texts.ts';
import { en } from './room/en.ts';
import { pt } from './room/pt.ts';
import { es } from './room/es.ts';
import { de } from './room/de.ts';
import { fr } from './room/fr.ts';

// What the room page says (rooms/pages/view.ts): the join form, the room's
// headings and buttons, its audio controls, a meeting not yet started, one
// that is over, and the pages of a bad link. `startsBefore` and `startsAfter`
// frame the start's date and time, which the page's script writes again in
// the reader's zone and in the page's language. `script` is what the page's
// scripts write (room.js, room-audio.js), given to them in data-msgs; its
// {placeholders} are filled there, language names by the browser in the
// page's language (Intl.DisplayNames).
// One table per language in room/, each of the shape in room/texts.ts.

export type { RoomScriptTexts, RoomTexts };

export const ROOM: Record<Lang, RoomTexts> = { en, pt, es, de, fr };
