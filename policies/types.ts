// The shape of the policy table: one CountryPolicy per country (countries/),
// the rules every country shares (defaults.ts), read by evaluate.ts. The
// table is data: no function in it, every rule names the legal source it
// comes from.

export const PURPOSES = ['transactional', 'scheduling', 'support', 'marketing'] as const;
export type Purpose = (typeof PURPOSES)[number];

export const CONSENT_KINDS = ['existing_customer', 'prior_express', 'written'] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

/** libphonenumber-js getType(), lowercased; `unknown` when it cannot tell. */
export type NumberKind =
  | 'fixed_line' | 'mobile' | 'fixed_line_or_mobile' | 'toll_free' | 'voip' | 'personal_number'
  | 'premium_rate' | 'shared_cost' | 'uan' | 'pager' | 'voicemail' | 'unknown';

/** A rule of law (or a regulator's rule) the table applies, and where it is written. */
export type LegalSource = {
  /** Stable id, cited by the rules below: `<country>-<short name>`, e.g. `us-tcpa-artificial-voice`. */
  id: string;
  /** The text's name and article, e.g. `47 U.S.C. § 227(b)(1)`. */
  title: string;
  /** Where to read it: the official publication where there is one. */
  url: string;
  /** When it took effect, YYYY-MM-DD. A rule whose date is later than `now` does not apply yet. */
  effective: string;
  /** One sentence: what it requires of a call like ours. */
  summary: string;
  /** Who reviewed our reading of it (a lawyer, by name and date). Absent: not reviewed, and every verdict resting on it says legal_reviewed: false. */
  reviewed_by?: string;
};

/** ISO weekday: 1 = Monday … 7 = Sunday. */
export type Weekday = 1 | 2 | 3 | 4 | 5 | 6 | 7;

/**
 * When calls may be placed, in the called party's local time: for each
 * weekday, ranges "HH:mm"–"HH:mm" (start included, end excluded); a weekday
 * absent allows no call that day.
 */
export type CallingWindow = {
  /** The LegalSource id it comes from. */
  source: string;
  days: Partial<Record<Weekday, Array<[string, string]>>>;
  /** No calls on the country's public holidays (date-holidays, type `public`, national only). */
  noPublicHolidays?: boolean;
  /** The purposes it applies to; absent: all of them. */
  purposes?: Purpose[];
};

/** What the law of a country says of calls of one purpose. */
export type PurposeRule = {
  /** False: refused whatever the consent (code and message say why). */
  allowed: boolean;
  /**
   * The consent the call needs: any one of these kinds. A stronger kind
   * satisfies a weaker one (written satisfies prior_express). Empty: none.
   */
  requires: ConsentKind[];
  /** Stable machine-readable code when refused (outright, or for want of the consent). */
  code: string;
  /** One human sentence when refused. */
  message: string;
  /** The LegalSource ids the rule rests on. */
  sources: string[];
  /** At most `count` calls of this purpose to one number within `days` days. */
  maxAttempts?: { count: number; days: number; source: string };
};

export type CountryPolicy = {
  /** ISO 3166-1 alpha-2, as libphonenumber-js reports it. */
  country: string;
  name: string;
  /**
   * Price of a minute relative to the base, per number kind. A kind absent
   * here cannot be called in this country (premium-rate, shared-cost, UAN,
   * pager, voicemail and unknown kinds never can, whatever this says).
   */
  minuteFactor: Partial<Record<NumberKind, number>>;
  purposes: Record<Purpose, PurposeRule>;
  windows: CallingWindow[];
  sources: LegalSource[];
};
