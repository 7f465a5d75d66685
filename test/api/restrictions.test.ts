import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.close(); });

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

// Key restrictions are enforced wherever their inputs occur, also on endpoints
// whose behaviour is not built yet (those answer 501 once the input passes).
describe('key restrictions', () => {
  it('refuses destinations, numbers, voices and languages outside the key', async () => {
    const { secret, orgId } = await t.key({ destinations: 'US', numbers: 'num_ok', voices: 'voice_ok', langs: 'en,pt' });
    const call = { purpose: 'support', agent_lang: 'en' };
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/v1/calls', { ...call, to: '+5511999990000' }, 'destination_not_allowed'],
      ['POST', '/v1/calls', { ...call, to: '+442079460000' }, 'destination_not_allowed'],
      ['POST', '/v1/calls', { ...call, to: '+14155550100', from: 'num_other' }, 'number_not_allowed'],
      ['POST', '/v1/calls', { ...call, to: '+14155550100', voice_id: 'voice_other' }, 'voice_not_allowed'],
      ['POST', '/v1/calls', { ...call, to: '+14155550100', remote_lang: 'de' }, 'language_not_allowed'],
      ['POST', '/v1/rooms/room_x/agent-sessions', { speak_lang: 'fr', hear_lang: 'en' }, 'language_not_allowed'],
      ['POST', '/v1/rooms/room_x/agent-sessions', { speak_lang: 'en', hear_lang: 'de' }, 'language_not_allowed'],
      ['POST', '/v1/rooms/room_x/agent-sessions', { speak_lang: 'en', hear_lang: 'pt', voice_id: 'voice_other' }, 'voice_not_allowed'],
      ['POST', '/v1/sessions/ses_x/say', { text: 'hi', lang: 'de' }, 'language_not_allowed'],
      ['GET', '/v1/transcripts/tr_x?lang=de', undefined, 'language_not_allowed'],
      ['POST', '/v1/voices/generic', { voice_id: 'generic_AnaPt01' }, 'voice_not_allowed'],
      ['POST', '/v1/meetings', { title: 'x', starts_at: '2030-01-01T10:00:00+01:00', langs: ['es'] }, 'language_not_allowed'],
    ];
    for (const [method, path, body, code] of cases) {
      const res = await t.request(method, path, { key: secret, body, headers: idem() });
      const p = await res.json();
      expect([res.status, p.code], `${path} ${JSON.stringify(body)}`).toEqual([403, code]);
    }
    // Inside every restriction, the call is placed (queued: this app runs no gateway).
    await t.pool.query(`INSERT INTO phone_numbers (id, org_id, e164, is_default) VALUES ('num_ok', $1, '+14155550999', false)`, [orgId]);
    // voice_id must also name a voice the organization can use: a ready clone of its own.
    await t.pool.query(
      `INSERT INTO voices (id, org_id, livemode, credential_id, name, language, person_name, person_email, status, consent_token, link_expires_at)
       VALUES ('voice_ok', $1, false, 'key_x', 'Ok', 'pt', 'Ana', 'ana@example.com', 'ready', 'tok_voice_ok', now())`, [orgId]);
    const ok = await t.request('POST', '/v1/calls', { key: secret, headers: idem(), body: { ...call, to: '+14155550100', from: 'num_ok', voice_id: 'voice_ok', remote_lang: 'pt-BR', consent: { kind: 'prior_express' } } });
    expect(ok.status, await ok.clone().text()).toBe(201);
    expect(await ok.json()).toMatchObject({ status: 'queued', from: '+14155550999', remote_lang: 'pt-BR' });
    // The default caller id is held to the restriction too: the shared number is not num_ok.
    const dflt = await t.request('POST', '/v1/calls', { key: secret, headers: idem(), body: { ...call, to: '+14155550100' } });
    expect((await dflt.json()).code).toBe('number_not_allowed');
  });
});
