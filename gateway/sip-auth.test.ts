import { createHash } from 'node:crypto';
import sip from 'sip';
import { describe, expect, test } from 'vitest';
import { answerChallenge, DigestCache, signAhead, type DialogAuth } from './sip-auth.ts';

// When the gateway answers a carrier's 401/407 (sip-auth.ts), checked
// against RFC 2617's arithmetic computed here from the header it wrote.

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

function invite(seq = 1): sip.Message {
  return {
    method: 'INVITE',
    uri: 'sip:+14155550142@carrier.example',
    headers: { via: [], from: '<sip:acct@carrier.example>;tag=a', to: '<sip:+14155550142@carrier.example>', 'call-id': 'c1', cseq: { seq, method: 'INVITE' } },
    content: 'v=0\r\n',
  };
}

function challenge(status: 401 | 407, o: { nonce: string; realm?: string; stale?: boolean; algorithm?: string; qop?: string }): sip.Message {
  const header = status === 407 ? 'proxy-authenticate' : 'www-authenticate';
  return {
    status,
    reason: status === 407 ? 'Proxy Authentication Required' : 'Unauthorized',
    headers: {
      [header]: [{
        scheme: 'Digest', realm: `"${o.realm ?? 'carrier.example'}"`, nonce: `"${o.nonce}"`, qop: `"${o.qop ?? 'auth'}"`,
        ...(o.stale ? { stale: 'true' } : {}), ...(o.algorithm ? { algorithm: o.algorithm } : {}),
      }],
    },
  };
}

const auth = (cache = new DigestCache(), realm?: string): DialogAuth => ({
  creds: { username: 'acct', password: 'secret', ...(realm ? { realm } : {}) }, ctx: cache.get('trk_1'), answered: 0, staleRetried: false,
});

type Signed = Record<string, string>;
const unq = (v: string | undefined) => (v ?? '').replace(/^"|"$/g, '');
const signature = (m: sip.Message, header: string): Signed => (m.headers[header] as Signed[])[0]!;

/** The response RFC 2617 expects for qop=auth, from the fields the header carries. */
function expected(h: Signed, method: string, password: string): string {
  const ha1 = md5(`${unq(h.username)}:${unq(h.realm)}:${password}`);
  const ha2 = md5(`${method}:${unq(h.uri)}`);
  return md5(`${ha1}:${unq(h.nonce)}:${h.nc}:${unq(h.cnonce)}:${h.qop}:${ha2}`);
}

describe('answering a carrier\'s challenge', () => {
  test('a 407 is answered once with Proxy-Authorization (qop=auth, nc 1) whose response RFC 2617 gives; a second, not stale, is not', () => {
    const a = auth();
    const next = invite(2);
    expect(answerChallenge(a, challenge(407, { nonce: 'n1' }), next)).toBe(true);
    const h = signature(next, 'proxy-authorization');
    expect(h).toMatchObject({ scheme: 'Digest', username: '"acct"', realm: '"carrier.example"', nonce: '"n1"', uri: '"sip:+14155550142@carrier.example"', qop: 'auth', nc: '00000001' });
    expect(unq(h.response)).toBe(expected(h, 'INVITE', 'secret'));
    expect(next.headers.authorization).toBeUndefined();
    // Refused again with a fresh nonce but not stale: the credentials are wrong; the call ends with the 407.
    expect(answerChallenge(a, challenge(407, { nonce: 'n2' }), invite(3))).toBe(false);
  });

  test('a 401 gets Authorization; a stale nonce is answered once more, never twice', () => {
    const a = auth();
    const first = invite(2);
    expect(answerChallenge(a, challenge(401, { nonce: 'n1' }), first)).toBe(true);
    expect(signature(first, 'authorization').nonce).toBe('"n1"');
    const second = invite(3);
    expect(answerChallenge(a, challenge(401, { nonce: 'n2', stale: true }), second)).toBe(true);
    const h = signature(second, 'authorization');
    // A new nonce starts its count again.
    expect(h).toMatchObject({ nonce: '"n2"', nc: '00000001' });
    expect(unq(h.response)).toBe(expected(h, 'INVITE', 'secret'));
    expect(answerChallenge(a, challenge(401, { nonce: 'n3', stale: true }), invite(4))).toBe(false);
  });

  test('the trunk\'s next INVITE is signed ahead with its nonce and the next count', () => {
    const cache = new DigestCache();
    const a = auth(cache);
    expect(answerChallenge(a, challenge(407, { nonce: 'n1' }), invite(2))).toBe(true);
    const b = auth(cache);
    const next = invite(1);
    signAhead(b, next);
    const h = signature(next, 'proxy-authorization');
    expect(h).toMatchObject({ nonce: '"n1"', nc: '00000002' });
    expect(unq(h.response)).toBe(expected(h, 'INVITE', 'secret'));
    // Another trunk has no nonce yet: its INVITE goes unsigned.
    const other: DialogAuth = { ...auth(), ctx: cache.get('trk_2') };
    const plain = invite(1);
    signAhead(other, plain);
    expect(plain.headers['proxy-authorization']).toBeUndefined();
  });

  test('not answered: another realm than the trunk\'s, an algorithm other than MD5, a challenge without Digest', () => {
    expect(answerChallenge(auth(new DigestCache(), 'carrier.example'), challenge(407, { nonce: 'n', realm: 'elsewhere' }), invite(2))).toBe(false);
    expect(answerChallenge(auth(), challenge(407, { nonce: 'n', algorithm: 'SHA-256' }), invite(2))).toBe(false);
    expect(answerChallenge(auth(), { status: 407, reason: 'x', headers: {} }, invite(2))).toBe(false);
    // The trunk's own realm is answered.
    expect(answerChallenge(auth(new DigestCache(), 'carrier.example'), challenge(407, { nonce: 'n' }), invite(2))).toBe(true);
  });
});
