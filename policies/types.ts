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
  /**
   * When the obligation took effect, YYYY-MM-DD, at local midnight where the
   * called party is: the first version of it, not the text's latest
   * renumbering or re-enactment. A rule whose date is later than `now` does
   * not apply yet.
   */
  effective: string;
  /** `law` (the default: a statute, a regulation, a regulator's binding rule) or `guidance` (a regulator's or an industry's published guidance, where no rule of law sets it). */
  kind?: 'law' | 'guidance';
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
  /** No calls on the country's public holidays (date-holidays, type `public`). */
  noPublicHolidays?: boolean;
  /**
   * With noPublicHolidays: the regions whose own public holidays count too
   * (date-holidays' subdivision codes, e.g. `RJ`), or `all` of the country's
   * regions (where the number cannot tell which one it is in).
   */
  holidayRegions?: string[] | 'all';
  /** On the day before a public holiday (national, or of holidayRegions), only these ranges, within the day's own. */
  eves?: Array<[string, string]>;
  /** On these dates, `MM-DD`, only these ranges, within the day's own (a shortened day). */
  dates?: Record<string, Array<[string, string]>>;
  /** The purposes it applies to; absent: all of them. */
  purposes?: Purpose[];
};

/** At most `count` calls of a purpose to one number within `hours` hours. */
export type AttemptCap = { count: number; hours: number; source: string };

/** Where the law wants a call of a purpose to come from a designated number range. */
export type CallerIdRule = {
  /** E.164 prefixes (`+` and digits) the caller id must start with. */
  prefixes: string[];
  source: string;
  /** Stable code when refused. */
  code: string;
  message: string;
};

/**
 * A region's own rules (a US state's), on top of the country's: applied to a
 * number of that region (by its area code, zones.ts regionOf), and to every
 * number whose region cannot be told (toll-free, non-geographic).
 */
export type RegionRule = {
  /** ISO 3166-2, e.g. `US-FL`. */
  region: string;
  name: string;
  /** The purposes it applies to. */
  purposes: Purpose[];
  windows: CallingWindow[];
  maxAttempts?: AttemptCap;
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
  /** The caller id (`from`) must be a number of a designated range. */
  callerId?: CallerIdRule;
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
  /** Regions with rules of their own (a US state's hours and caps). */
  regions?: RegionRule[];
  sources: LegalSource[];
};
