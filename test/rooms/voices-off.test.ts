import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { loadConfig } from '../../src/config.ts';
import { MediaServers } from '../../src/media/servers.ts';

// A service with no media server (TOLK_MEDIA_SERVER=off, or a Janus that did not start): the
// room page learns why nobody is heard live (audio-info `voices`), and the voices link is
// refused with that reason; the microphone-to-captions path stays (test/rooms/audio-page.test.ts).
// What an operator may write in TOLK_MEDIA_SERVER and TOLK_ICE_SERVERS, and what is refused.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ media: new MediaServers({ iceServers: [], unavailable: 'the media server did not start: janus is not installed' }) });
});
afterAll(async () => {
  await t?.close();
});

describe('rooms without a media server', () => {
  it('the page is told why nobody is heard live, and the voices link is refused with that reason, after the person\'s secret is checked', async () => {
    const key = (await t.key({ rpm: 100_000 })).secret;
    const r = await (await t.request('POST', '/v1/rooms', { key, headers: { 'idempotency-key': crypto.randomUUID() }, body: { langs: ['en', 'es'], visibility: 'public' } })).json();
    const info: any = await (await fetch(`${t.url}/r/${r.id}/audio-info?speak=en&hear=es`)).json();
    expect(info.voices).toEqual({ available: false, reason: 'the media server did not start: janus is not installed' });
    const p: any = await (await fetch(`${t.url}/r/${r.id}/participants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ana', speak: 'en', hear: 'es' }) })).json();
    // Without the person's secret: 401, whatever the media server.
    expect((await fetch(`${t.url}/r/${r.id}/voices?participant=${p.id}&secret=wrong`)).status).toBe(401);
    const res = await fetch(`${t.url}/r/${r.id}/voices?participant=${p.id}&secret=${p.secret}`);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await res.json()).toMatchObject({ error: 'media_unavailable', detail: 'the media server did not start: janus is not installed' });
    // The operator's readiness says the voices are degraded, and the process stays ready: rooms go on.
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks.media).toBe('degraded');
  });

  it('voices off by choice (TOLK_MEDIA_SERVER=off): readiness has no media check at all', async () => {
    const off = await startTestApp();
    try {
      const ready = await fetch(`${off.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { checks: Record<string, string> }).checks).not.toHaveProperty('media');
    } finally {
      await off.close();
    }
  });
});

describe('TOLK_MEDIA_SERVER, TOLK_ICE_SERVERS and TOLK_MEDIA_PUBLIC_IP', () => {
  const media = (env: Record<string, string>) => loadConfig({ TOLK_TRANSLATE: '', TOLK_RECOGNIZE: '', ...env }).media;
  it('reads the operator\'s Janus servers, STUN and TURN (credentials apart, as RTCPeerConnection takes them) and the public address', () => {
    expect(media({ TOLK_MEDIA_SERVER: 'off' }).server).toEqual({ kind: 'off' });
    expect(media({ TOLK_MEDIA_SERVER: 'janus' }).server).toEqual({ kind: 'janus' });
    expect(media({ TOLK_MEDIA_SERVER: 'janus=ws://10.0.0.5:8188,wss://media.example.com/janus', TOLK_JANUS_API_SECRET: 's3cret' })).toMatchObject({
      server: { kind: 'remote', urls: ['ws://10.0.0.5:8188', 'wss://media.example.com/janus'] }, apiSecret: 's3cret',
    });
    expect(media({ TOLK_ICE_SERVERS: 'stun:stun.example.com:3478, turn:ana:pa55@turn.example.com:3478', TOLK_MEDIA_PUBLIC_IP: '203.0.113.7' })).toMatchObject({
      iceServers: [{ urls: 'stun:stun.example.com:3478' }, { urls: 'turn:turn.example.com:3478', username: 'ana', credential: 'pa55' }],
      publicIp: '203.0.113.7',
    });
  });
  it('refuses what it cannot use, naming the variable', () => {
    expect(() => media({ TOLK_MEDIA_SERVER: 'mediasoup' })).toThrow(/TOLK_MEDIA_SERVER: must be janus, janus=ws:\/\/HOST:8188/);
    expect(() => media({ TOLK_MEDIA_SERVER: 'janus=http://x:8088' })).toThrow(/TOLK_MEDIA_SERVER/);
    expect(() => media({ TOLK_ICE_SERVERS: 'turn:nopass@host:3478' })).toThrow(/TOLK_ICE_SERVERS: turn:nopass@host:3478: must be/);
    expect(() => media({ TOLK_MEDIA_PUBLIC_IP: 'media.example.com' })).toThrow(/TOLK_MEDIA_PUBLIC_IP/);
  });
});

describe('an operator\'s Janus that cannot be reached', () => {
  it('readiness says the voices are degraded once a link to it has failed, never that the process is not ready', async () => {
    // Port 1 on loopback: nothing listens there.
    const media = new MediaServers({ urls: ['ws://127.0.0.1:1'], iceServers: [] });
    expect(media.state()).toBe('ok');
    await expect(media.roomServer('room_unreachable', 2)).rejects.toThrow();
    expect(media.state()).toBe('degraded');
    await media.close();
  });
});
