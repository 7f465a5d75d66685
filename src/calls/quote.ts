import { attemptCaps, destinationOf, evaluate, maskNumber } from '../../policies/evaluate.ts';
import { countAttempts } from './place.ts';
import type { ConsentKind, Purpose } from '../../policies/types.ts';
import { invalid } from '../errors.ts';
import { assertDestinationAllowed, assertNumberAllowed } from '../restrictions.ts';
import { now, type Caller, type Services } from '../services.ts';
import type { z } from 'zod';
import type { CallQuote } from './schemas.ts';

/** The test-mode outcome of a destination, by its last four digits (operator.md, the call simulator). */
export function simulatedOutcome(e164: string): 'answered' | 'busy' | 'no_answer' | 'voicemail' | 'failed' {
  switch (e164.slice(-4)) {
    case '0100': return 'busy';
    case '0101': return 'no_answer';
    case '0102': return 'voicemail';
    case '0103': return 'failed';
    default: return 'answered';
  }
}

/**
 * GET /v1/calls/quote: what a call to `to` would be, now: its country and
 * number kind, the minute factor, whether the purpose is allowed with the
 * consent given (policies/), and, for a test key, what the simulated callee
 * will do. The key's own restrictions apply as they do to placing the call.
 */
export async function quoteCall(s: Services, cred: Caller, q: { to: string; purpose?: Purpose; consent?: ConsentKind; from?: string }): Promise<z.infer<typeof CallQuote>> {
  const dest = destinationOf(q.to);
  if (!dest) throw invalid('to', 'not a phone number; send it in international format, + then the country code and number, e.g. +14155550123');
  assertDestinationAllowed(cred, 'to', dest.country === 'ZZ' ? null : dest.country);
  if (q.from) assertNumberAllowed(cred, 'from', q.from);
  const at = now(s);
  // The verdict POST /v1/calls would give now: with the caller id the call
  // would go out with (from, or the default number) and this organization's
  // calls to the number counted as placing counts them (the quote takes no
  // lock: a call placed meanwhile may still make the next one too many).
  let v;
  if (q.purpose) {
    const from = await s.reactions.callerNumber(s.pool, cred, q.from);
    const attempts = await countAttempts(s.pool, cred, dest, q.purpose, attemptCaps(dest, q.purpose, at), at);
    v = evaluate(dest, q.purpose, q.consent ?? null, at, { attempts, from: from.e164 });
  } else {
    v = evaluate(dest, null, q.consent ?? null, at);
  }
  return {
    to: maskNumber(dest.e164),
    country: v.country,
    kind: v.kind,
    allowed: v.allowed,
    minute_factor: v.minute_factor,
    reason: v.reason,
    purpose: v.purpose,
    simulator: cred.livemode ? null : simulatedOutcome(dest.e164),
  };
}
