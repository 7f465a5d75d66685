import type { CountryPolicy } from './types.ts';
import { AU } from './countries/AU.ts';
import { BR } from './countries/BR.ts';
import { CA } from './countries/CA.ts';
import { DE } from './countries/DE.ts';
import { ES } from './countries/ES.ts';
import { FR } from './countries/FR.ts';
import { GB } from './countries/GB.ts';
import { IN } from './countries/IN.ts';
import { IT } from './countries/IT.ts';
import { JP } from './countries/JP.ts';
import { MX } from './countries/MX.ts';
import { NL } from './countries/NL.ts';
import { PT } from './countries/PT.ts';
import { US } from './countries/US.ts';

/** The policy table: every country calls can go to, by ISO 3166-1 alpha-2 code. A country absent is never called. */
export const POLICIES: Readonly<Record<string, CountryPolicy>> = Object.fromEntries(
  [AU, BR, CA, DE, ES, FR, GB, IN, IT, JP, MX, NL, PT, US].map((p) => [p.country, p]),
);
