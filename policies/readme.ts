import { DEFAULT_SOURCES, NEVER_CALLED } from './defaults.ts';
import { POLICIES } from './index.ts';
import { PURPOSES, type CallingWindow, type CountryPolicy, type LegalSource } from './types.ts';

// policies/README.md is written from the table by `npm run policies`
// (scripts/policies-readme.ts); policies/table.test.ts fails when it is not
// the table's.

const cell = (s: string) => s.replaceAll('|', '\\|');

function windowText(w: CallingWindow): string {
  const days = (['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const)
    .map((d, i) => {
      const r = w.days[(i + 1) as 1];
      return r && r.length > 0 ? `${d} ${r.map(([a, b]) => `${a}–${b}`).join(', ')}` : null;
    })
    .filter(Boolean)
    .join('; ');
  const holidays = w.noPublicHolidays
    ? `; not on public holidays${w.holidayRegions === 'all' ? ', national or of any region' : w.holidayRegions ? `, national or of ${w.holidayRegions.join(', ')}` : ''}`
    : '';
  const eves = w.eves ? `; on the day before a public holiday only ${w.eves.map(([a, b]) => `${a}–${b}`).join(', ')}` : '';
  const dates = Object.entries(w.dates ?? {}).map(([d, r]) => `; on ${d} only ${r.map(([a, b]) => `${a}–${b}`).join(', ')}`).join('');
  return `${days || 'no day'}${holidays}${eves}${dates} (${w.purposes ? w.purposes.join(', ') : 'every purpose'}; \`${w.source}\`)`;
}

function source(s: LegalSource): string {
  return `| \`${s.id}\` | [${cell(s.title)}](${s.url})${s.kind === 'guidance' ? ' (guidance, not law)' : ''} | ${s.effective} | ${cell(s.summary)} | ${s.reviewed_by ? cell(s.reviewed_by) : 'not reviewed'} |`;
}

function country(p: CountryPolicy): string[] {
  const out = [`### ${p.name} (${p.country})`, ''];
  out.push(`Minute factor: ${Object.entries(p.minuteFactor).map(([k, v]) => `${k} ${v}`).join(', ')}.`, '');
  out.push('| purpose | allowed | requires | code when refused | attempts | caller id | sources |', '|---|---|---|---|---|---|---|');
  for (const purpose of PURPOSES) {
    const r = p.purposes[purpose];
    const callerId = r.callerId ? `from ${r.callerId.prefixes.join(' or ')}… (\`${r.callerId.code}\`, \`${r.callerId.source}\`)` : '';
    out.push(`| ${purpose} | ${r.allowed ? 'yes' : 'no'} | ${r.requires.join(' or ') || 'nothing'} | \`${r.code}\` | ${r.maxAttempts ? `≤ ${r.maxAttempts.count} in ${r.maxAttempts.days} days (\`${r.maxAttempts.source}\`)` : ''} | ${callerId} | ${r.sources.map((s) => `\`${s}\``).join(', ')} |`);
  }
  out.push('');
  if (p.windows.length > 0) out.push(...p.windows.map((w) => `- Calling hours, local time: ${windowText(w)}`), '');
  for (const r of p.regions ?? []) {
    const parts = [...r.windows.map((w) => `calling hours ${windowText(w)}`), ...(r.maxAttempts ? [`≤ ${r.maxAttempts.count} calls to a number in ${r.maxAttempts.hours} hours (\`${r.maxAttempts.source}\`)`] : [])];
    out.push(`- ${r.name} (${r.region}), ${r.purposes.join(', ')}: ${parts.join('; ')}`);
  }
  if (p.regions?.length) out.push('');
  out.push('| source | text | effective | what it requires | reviewed |', '|---|---|---|---|---|', ...p.sources.map(source), '');
  return out;
}

export function renderReadme(): string {
  return [
    '# Policies',
    '',
    'Which phone numbers calls can go to, at what minute price, and which calls a country allows, as data: one file per country in',
    '`countries/`, the rules of every country in `defaults.ts`, read by the pure `evaluate(destination, purpose, consent, now, ctx)` in',
    '`evaluate.ts` (no I/O: the number\'s time zones come from libphonenumber\'s data, decoded once in `zones.ts`, and IANA\'s list of',
    'each country\'s zones (`countries-and-timezones`); public holidays, national and regional, from `date-holidays`; local time with',
    '`luxon`). `GET /v1/calls/quote` gives the verdict `POST /v1/calls` would give at that moment (the same caller id and the same',
    'count of earlier calls; a call placed in between can still change it); `POST /v1/calls` blocks what it refuses.',
    '',
    'How a verdict is made:',
    '',
    '- The number must be a valid number of a country in the table, of a kind the country prices. ' +
      `Never called: ${[...NEVER_CALLED].join(', ')}.`,
    '- A purpose\'s rule applies once one of its sources is in force: its effective date (when the obligation first took effect,',
    '  not its latest renumbering) has begun at local midnight in one of the zones the number may ring in.',
    '- `requires` lists the consent kinds that satisfy it, any one of them; `written` satisfies `prior_express`;',
    '  `existing_customer` satisfies only itself.',
    '- Where a rule names a caller-id range (Brazil\'s 0303, India\'s 140 series), a call whose `from` is not in it is refused.',
    '- Attempt caps count this organization\'s calls of the purpose to the number that were not blocked, within the cap\'s period.',
    '- Calling hours are the called party\'s local time, and must hold in every zone the number may ring in: a geographic number',
    '  in every zone found under its area code (in North America, under the three-digit area code, whatever the exchange); a',
    '  number not tied to a place (a mobile outside North America, Brazil and Mexico; toll-free; VoIP) in every zone of its',
    '  country. Only zones of the number\'s country count. A number whose zones cannot be told is refused (`time_zone_unknown`)',
    '  where there are hours to keep; it is never judged in UTC.',
    '- A region\'s own rules (a US state\'s, by area code) apply on top of the country\'s; a number whose region cannot be told',
    '  (toll-free) is held to every region\'s rules at once.',
    '- Shortened days: on the day before a public holiday, or on listed dates, only the ranges given, within the day\'s own.',
    '- A source marked "guidance, not law" is a regulator\'s or an industry\'s published guidance, used where no rule of law sets',
    '  the hours.',
    '- `legal_reviewed` is true only when every source a verdict rests on names who reviewed it. No source does yet: the table',
    '  is our reading of the texts it cites, not legal advice, and it covers only the countries and US states listed here.',
    '',
    'This README is written from the table by `npm run policies`; a test fails when it differs.',
    '',
    '## Every call',
    '',
    '| source | text | effective | what it requires | reviewed |',
    '|---|---|---|---|---|',
    ...DEFAULT_SOURCES.map(source),
    '',
    '## Countries',
    '',
    ...Object.values(POLICIES).sort((a, b) => a.country.localeCompare(b.country)).flatMap(country),
  ].join('\n');
}
