import type { CountryPolicy } from './types.ts';
import { US } from './countries/US.ts';

/** The policy table: every country calls can go to, by ISO 3166-1 alpha-2 code. A country absent is never called. */
export const POLICIES: Readonly<Record<string, CountryPolicy>> = Object.fromEntries([US].map((p) => [p.country, p]));
