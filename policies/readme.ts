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
  return `${days || 'no day'}${w.noPublicHolidays ? '; not on public holidays' : ''} (${w.purposes ? w.purposes.join(', ') : 'every purpose'}; \`${w.source}\`)`;
}

function source(s: LegalSource): string {
  return `| \`${s.id}\` | [${cell(s.title)}](${s.url}) | ${s.effective} | ${cell(s.summary)} | ${s.reviewed_by ? cell(s.reviewed_by) : 'not reviewed'} |`;
}

function country(p: CountryPolicy): string[] {
  const out = [`### ${p.name} (${p.country})`, ''];
  out.push(`Minute factor: ${Object.entries(p.minuteFactor).map(([k, v]) => `${k} ${v}`).join(', ')}.`, '');
  out.push('| purpose | allowed | requires | code when refused | attempts | sources |', '|---|---|---|---|---|---|');
  for (const purpose of PURPOSES) {
    const r = p.purposes[purpose];
    out.push(`| ${purpose} | ${r.allowed ? 'yes' : 'no'} | ${r.requires.join(' or ') || 'nothing'} | \`${r.code}\` | ${r.maxAttempts ? `≤ ${r.maxAttempts.count} in ${r.maxAttempts.days} days (\`${r.maxAttempts.source}\`)` : ''} | ${r.sources.map((s) => `\`${s}\``).join(', ')} |`);
  }
  out.push('');
  if (p.windows.length > 0) out.push(...p.windows.map((w) => `- Calling hours, local time: ${windowText(w)}`), '');
  out.push('| source | text | effective | what it requires | reviewed |', '|---|---|---|---|---|', ...p.sources.map(source), '');
  return out;
}

export function renderReadme(): string {
  return [
    '# Policies',
    '',
    'Which phone numbers calls can go to, at what minute price, and which calls a country allows, as data: one file per country in',
    '`countries/`, the rules of every country in `defaults.ts`, read by the pure `evaluate(destination, purpose, consent, now)` in',
    '`evaluate.ts` (no I/O: the number\'s time zones come from libphonenumber\'s data, decoded once in `zones.ts`; public holidays from',
    '`date-holidays`; local time with `luxon`). `GET /v1/calls/quote` shows its verdict; `POST /v1/calls` blocks what it refuses.',
    '',
    'How a verdict is made:',
    '',
    '- The number must be a valid number of a country in the table, of a kind the country prices. ' +
      `Never called: ${[...NEVER_CALLED].join(', ')}.`,
    '- A purpose\'s rule applies once one of its sources is in force (its effective date has come).',
    '- `requires` lists the consent kinds that satisfy it, any one of them; `written` satisfies `prior_express`;',
    '  `existing_customer` satisfies only itself.',
    '- Calling hours are the called party\'s local time. When the number does not say which of its country\'s zones it rings in',
    '  (a US toll-free number), the hours must hold in every one of them.',
    '- `legal_reviewed` is true only when every source a verdict rests on names who reviewed it. No source does yet.',
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
