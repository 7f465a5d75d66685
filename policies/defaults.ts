import type { LegalSource, NumberKind } from './types.ts';

// What holds whatever the country.

/** Number kinds never called: they charge the caller, reach no person who can answer, or cannot be told apart. */
export const NEVER_CALLED: ReadonlySet<NumberKind> = new Set(['premium_rate', 'shared_cost', 'uan', 'pager', 'voicemail', 'unknown']);

/**
 * Sources that apply to every call, wherever it goes. The EU AI Act's
 * transparency duty binds calls into the EU. The service applies it to every
 * call: the agent announces that it is an AI before anything else
 * (Call.ai_disclosure is always true), so it never blocks a call.
 */
export const DEFAULT_SOURCES: LegalSource[] = [
  {
    id: 'eu-ai-act-art-50',
    title: 'Regulation (EU) 2024/1689 (AI Act), Article 50(1)',
    url: 'https://eur-lex.europa.eu/eli/reg/2024/1689/oj',
    effective: '2026-08-02',
    summary: 'An AI system that interacts directly with people must let them know they are interacting with an AI system; every call begins with that announcement.',
  },
];
