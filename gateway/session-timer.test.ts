import { describe, expect, it } from 'vitest';
import { answerSession, sessionRequest, type SessionRequest } from './session-timer.ts';
import { answerOffer, readOffer, streamAfter } from './media/sdp.ts';

// The mid-call rules every signaling adapter shares (session-timer.ts, and
// the in-dialog offer of media/sdp.ts), without a SIP stack: the contract
// (signaling.contract.ts) checks them again on the wire of each adapter.

const headers = (h: Record<string, string>) => (name: string) => h[name];

describe('a re-INVITE or UPDATE: refusals and the session timer (RFC 4028)', () => {
  it('echoes the session timer of a far end that supports it, naming it the refresher', () => {
    expect(sessionRequest(headers({ Supported: 'timer, 100rel', 'Session-Expires': '1800;refresher=uas' }))).toEqual({
      ok: true,
      sessionExpires: 1800,
      headers: { Allow: 'INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE', Supported: 'timer', 'Session-Expires': '1800;refresher=uac', Require: 'timer' },
    });
    // Compact forms: k (Supported), x (Session-Expires).
    expect(sessionRequest(headers({ k: 'timer', x: '600' }))).toMatchObject({ ok: true, sessionExpires: 600 });
  });

  it('has no session timer with a far end that cannot refresh (no timer in Supported or Require)', () => {
    const r = sessionRequest(headers({ 'Session-Expires': '1800' }));
    expect(r).toMatchObject({ ok: true, sessionExpires: undefined });
    expect(r.headers['Session-Expires']).toBeUndefined();
  });

  it('refuses an extension it lacks (420, Unsupported) and an interval under Min-SE (422)', () => {
    expect(sessionRequest(headers({ Require: 'timer, 100rel, Foo' }))).toEqual({ ok: false, status: 420, reason: 'Bad Extension', headers: { Unsupported: '100rel, foo' } });
    expect(sessionRequest(headers({ Supported: 'timer', 'Session-Expires': '89' }))).toEqual({ ok: false, status: 422, reason: 'Session Interval Too Small', headers: { 'Min-SE': '90' } });
  });
});

describe('an offer in an answered dialog (media/sdp.ts)', () => {
  const sdp = (o: { c?: string; m?: string; rtpmap?: string[]; dir?: string }) => [
    'v=0', 'o=far 1 2 IN IP4 192.0.2.7', 's=-', `c=IN IP4 ${o.c ?? '192.0.2.7'}`, 't=0 0',
    o.m ?? 'm=audio 40000 RTP/AVP 0 8 101', ...(o.rtpmap ?? ['a=rtpmap:0 PCMU/8000', 'a=rtpmap:8 PCMA/8000', 'a=rtpmap:101 telephone-event/8000']),
    ...(o.dir ? [`a=${o.dir}`] : []), '',
  ].join('\r\n');
  const side = { host: '127.0.0.1', port: 50000, sessionId: '77', version: 3 };

  it('answers a hold (sendonly) with recvonly, inactive with inactive, resume with sendrecv, on CRLF lines', () => {
    for (const [dir, ours] of [['sendonly', 'recvonly'], ['inactive', 'inactive'], ['recvonly', 'sendonly'], ['sendrecv', 'sendrecv']]) {
      const a = answerOffer(side, readOffer(sdp({ dir })));
      expect(a).toContain(`\r\na=${ours}\r\n`);
      expect(a).toMatch(/^o=tolk 77 3 IN IP4 127\.0\.0\.1\r$/m);
    }
  });

  it('reads c=0.0.0.0 as a hold (RFC 2543), and keeps the stream\'s destination through a hold', () => {
    const now = readOffer(sdp({}));
    const old = readOffer(sdp({ c: '0.0.0.0' }), now);
    expect(old.direction).toBe('sendonly');
    expect(streamAfter(now, old)).toEqual({ ...now, direction: 'sendonly' });
    const moved = readOffer(sdp({ c: '192.0.2.9', dir: 'sendonly' }), now);
    expect(streamAfter(now, moved)).toMatchObject({ address: '192.0.2.7', direction: 'sendonly' });
    // Without a destination yet, there is nothing to connect.
    expect(streamAfter(undefined, old)).toBeUndefined();
  });

  it('keeps the codec the stream speaks when the new offer still has it, else takes the offer\'s first', () => {
    const now = readOffer(sdp({ m: 'm=audio 40000 RTP/AVP 8 0 101' }));
    expect(now.codec).toBe('PCMA');
    expect(readOffer(sdp({}), now)).toMatchObject({ codec: 'PCMA', payloadType: 8 });
    expect(readOffer(sdp({ m: 'm=audio 40000 RTP/AVP 0 101', rtpmap: ['a=rtpmap:0 PCMU/8000'] }), now)).toMatchObject({ codec: 'PCMU', payloadType: 0 });
  });

  it('refuses an offer without G.711 (the adapter answers 488)', () => {
    expect(() => readOffer(sdp({ m: 'm=audio 40000 RTP/AVP 18', rtpmap: ['a=rtpmap:18 G729/8000'] }))).toThrow(/no G\.711/);
  });
});

describe('a re-INVITE or UPDATE answered (answerSession): the refusals in their order, and our 200', () => {
  const offer = ['v=0', 'o=far 1 2 IN IP4 192.0.2.7', 's=-', 'c=IN IP4 192.0.2.7', 't=0 0', 'm=audio 40000 RTP/AVP 0 101', 'a=rtpmap:101 telephone-event/8000', 'a=sendonly', ''].join('\r\n');
  const g729 = offer.replace('RTP/AVP 0 101', 'RTP/AVP 18');
  let version = 1;
  const rq = (o: Partial<SessionRequest> & { h?: Record<string, string> }): SessionRequest => ({
    method: 'INVITE', get: headers(o.h ?? {}), body: undefined, takesOffer: true, now: undefined,
    side: () => ({ host: '127.0.0.1', port: 50000, sessionId: '77', version: ++version }), ...o,
  });

  it('420 before 422 before 491 before 488', () => {
    const all = { h: { Require: 'foo', Supported: 'timer', 'Session-Expires': '30' }, body: g729, takesOffer: false };
    expect(answerSession(rq(all))).toMatchObject({ ok: false, status: 420 });
    expect(answerSession(rq({ ...all, h: { Supported: 'timer', 'Session-Expires': '30' } }))).toMatchObject({ ok: false, status: 422 });
    expect(answerSession(rq({ ...all, h: {} }))).toEqual({ ok: false, status: 491, reason: 'Request Pending', headers: {} });
    expect(answerSession(rq({ ...all, h: {}, takesOffer: true }))).toMatchObject({ ok: false, status: 488, why: expect.stringMatching(/G\.711/) });
  });

  it('while our offer waits: an UPDATE without SDP (a refresh) is taken, an offerless re-INVITE is not', () => {
    expect(answerSession(rq({ method: 'UPDATE', takesOffer: false }))).toMatchObject({ ok: true, body: undefined, offered: undefined, offerSent: false });
    expect(answerSession(rq({ takesOffer: false }))).toMatchObject({ ok: false, status: 491 });
  });

  it('an offer gets our answer (a hold: recvonly), as the next version of our session', () => {
    const a = answerSession(rq({ body: offer, h: { Supported: 'timer', 'Session-Expires': '1800' } }));
    expect(a).toMatchObject({ ok: true, offered: { direction: 'sendonly', port: 40000 }, offerSent: false, sessionExpires: 1800 });
    if (!a.ok) return;
    expect(a.headers).toEqual({ Allow: 'INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE', Supported: 'timer', 'Session-Expires': '1800;refresher=uac', Require: 'timer', 'Content-Type': 'application/sdp' });
    expect(a.body).toMatch(/^a=recvonly\r$/m);
    expect(a.body).toMatch(/^o=tolk 77 \d+ /m);
  });

  it('a re-INVITE without SDP gets our offer, whose answer the ACK brings', () => {
    const a = answerSession(rq({}));
    expect(a).toMatchObject({ ok: true, offered: undefined, offerSent: true, headers: { 'Content-Type': 'application/sdp' } });
    if (a.ok) expect(a.body).toMatch(/^m=audio 50000 RTP\/AVP 0 8 101\r$/m);
  });
});
