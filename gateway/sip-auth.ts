import sip from 'sip';
import digest, { type DigestContext } from 'sip/digest.js';

// Digest authentication of our INVITEs to a carrier (RFC 3261 22, RFC 2617;
// operator.md: a trunk's 401/407 challenges are answered with its
// credentials). The MD5 arithmetic is the `sip` package's (sip/digest.js);
// what is ours is when to answer:
//   - a 401 or 407 to an INVITE is answered once, with the next CSeq;
//   - a second challenge is answered only when it says the nonce we used was
//     stale (stale=true), and only once: otherwise the credentials are wrong
//     and the call ends with that 401 or 407;
//   - a realm set on the trunk is the only realm answered;
//   - the nonce is kept per trunk and reused by its next INVITEs with the
//     next nonce count (qop=auth), so a carrier that accepts it does not
//     challenge every call.

export type TrunkCredentials = { username: string; password: string; realm?: string };

/** One trunk's digest state, shared by its calls in this process (a cache: losing it costs one challenge). */
export class DigestCache {
  private readonly byTrunk = new Map<string, DigestContext>();
  get(trunk: string): DigestContext {
    let ctx = this.byTrunk.get(trunk);
    if (!ctx) {
      ctx = {};
      this.byTrunk.set(trunk, ctx);
    }
    return ctx;
  }
}

/** A dialog's digest: the trunk's credentials and shared context, and how many challenges it answered. */
export type DialogAuth = {
  creds: TrunkCredentials;
  ctx: DigestContext;
  answered: number;
  staleRetried: boolean;
};

function unq(v: unknown): string {
  const s = typeof v === 'string' ? v : '';
  return s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1) : s;
}

/** Drops the credentials an earlier INVITE of the dialog carried. */
function unsign(rq: sip.Message): void {
  delete rq.headers.authorization;
  delete rq.headers['proxy-authorization'];
}

/**
 * Signs a first INVITE with the trunk's last nonce, when this process has
 * one with qop (its nonce count tells the carrier it is fresh); without one,
 * the INVITE goes unsigned and the carrier's challenge is answered.
 */
export function signAhead(auth: DialogAuth, rq: sip.Message): void {
  if (!auth.ctx.nonce || !auth.ctx.qop) return;
  digest.signRequest(auth.ctx, rq, null, { user: auth.creds.username, password: auth.creds.password, ...(auth.creds.realm ? { realm: auth.creds.realm } : {}) });
}

/**
 * The answer to a 401/407 of our INVITE: signs `next` (the INVITE again,
 * next CSeq) and returns true, or returns false when the challenge is not
 * to be answered (already answered and not stale, another realm, no Digest).
 */
export function answerChallenge(auth: DialogAuth, rs: sip.Message, next: sip.Message): boolean {
  const header = rs.status === 407 ? 'proxy-authenticate' : 'www-authenticate';
  const challenges = (rs.headers[header] ?? []) as Array<Record<string, unknown>>;
  const challenge = challenges.find((c) => String(c.scheme ?? '').toLowerCase() === 'digest'
    && (!auth.creds.realm || unq(c.realm) === auth.creds.realm));
  if (!challenge || !unq(challenge.nonce)) return false;
  // The package computes MD5 only: a SHA-256 challenge answered with MD5 would only be refused.
  const algorithm = unq(challenge.algorithm).toLowerCase();
  if (algorithm && algorithm !== 'md5') return false;
  const stale = unq(challenge.stale).toLowerCase() === 'true';
  if (auth.answered > 0) {
    if (!stale || auth.staleRetried) return false;
    auth.staleRetried = true;
  }
  auth.answered += 1;
  unsign(next);
  // Only the chosen challenge, so the package signs for it.
  const only: sip.Message = { ...rs, headers: { ...rs.headers, [header]: [challenge] } };
  try {
    digest.signRequest(auth.ctx, next, only, { user: auth.creds.username, password: auth.creds.password, realm: unq(challenge.realm) });
  } catch {
    // A qop we cannot do (auth-int only) or an algorithm we do not know: not answerable.
    return false;
  }
  return true;
}
