import { describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { callSuite } from '../helpers/call-suite.ts';
import { finished, flow, wire, type Sipp, type WireMessage, evenFreePort } from '../helpers/sipp.ts';
import { quietFor, until } from '../helpers/wait.ts';
import { disclosure } from '../../src/i18n/disclosure.ts';
import { existsSync } from 'node:fs';

// Calls placed through the API to a foreign SIP stack: SIPp plays the callee
// (TOLK_SIM_SIP_PEER points test calls at it) with one scenario per test
// (gateway/sipp/*.xml). Each test checks both sides: the SIP dialog on the
// wire (SIPp's message trace) and what the API makes of it (status,
// end_reason, events, bill).

vi.setConfig({ testTimeout: 60_000 });

// A Wednesday, 17:00 UTC, at real speed: US calling hours are open.
const suite = callSuite();
const { clock, cleanups } = suite;

/** SIPp on `name`, and an app whose test calls go to it. */
async function rig(name: string, o: { extraArgs?: string[]; ringTimeoutSeconds?: number; speechEngines?: Array<'pico' | 'espeak'> } = {}): Promise<{ sipp: Sipp; t: TestApp }> {
  const sipp = await suite.sipp(name, o.extraArgs);
  const t = await suite.app(sipp.address, {
    ...(o.ringTimeoutSeconds ? { ringTimeoutSeconds: o.ringTimeoutSeconds } : {}),
    ...(o.speechEngines ? { speechEngines: o.speechEngines } : {}),
  });
  return { sipp, t };
}

const TO = '+14155550142';


const place = (t: TestApp, remoteLang = 'es') => suite.place(t, { remote_lang: remoteLang });

async function callOf(t: TestApp, id: string) {
  return (await t.request('GET', `/v1/calls/${id}`, { key: suite.key })).json();
}

const untilStatus = (t: TestApp, id: string, statuses: string[], ms = 15_000) => {
  let last: any;
  return until(`call in ${statuses.join('/')}`, async () => {
    last = await callOf(t, id);
    return statuses.includes(last.status) ? last : null;
  }, { timeoutMs: ms, detail: () => JSON.stringify(last) });
};

async function types(t: TestApp, id: string): Promise<string[]> {
  const { rows } = await t.pool.query(`SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [id]);
  return rows.map((r) => r.type);
}

async function ledger(t: TestApp, id: string): Promise<number[]> {
  const { rows } = await t.pool.query(`SELECT seconds FROM usage_ledger WHERE ref = $1`, [id]);
  return rows.map((r) => Number(r.seconds));
}

/** The INVITE as the callee got it: our caller id in From, the number in the Request-URI and To. */
function expectInvite(msgs: WireMessage[], sipp: Sipp, via: string) {
  const invite = msgs[0]!;
  expect(invite.startLine).toBe(`INVITE ${sipp.uri(TO)} SIP/2.0`);
  expect(invite.header('From')).toMatch(/^<sip:\+14155550000@/);
  expect(invite.header('To')).toBe(`<${sipp.uri(TO)}>`);
  expect(invite.header('Max-Forwards')).toBe('70');
  expect(invite.header('Via')).toMatch(new RegExp(`^SIP/2.0/UDP ${via};`));
  expect(invite.header('Content-Type')).toBe('application/sdp');
  expect(invite.body).toMatch(/m=audio \d+ RTP\/AVP 0 8/);
}

describe('calls through the gateway to SIPp', () => {
  it('answered, then the callee hangs up (BYE): completed, remote_hangup, billed', async () => {
    const { sipp, t } = await rig('answer-then-bye');
    const c = await place(t);
    const ended = await untilStatus(t, c.id, ['completed']);
    expect(ended).toMatchObject({ end_reason: 'remote_hangup' });
    expect(ended.answered_at).not.toBeNull();
    // Half a second on the line: each second begun is billed, times the US factor of 1.
    expect(ended.billed_seconds).toBe(1);
    expect(await ledger(t, c.id)).toEqual([1]);
    expect(await types(t, c.id)).toEqual(['call.ringing', 'call.answered', 'call.completed', 'call.ended']);
    // The conversation opened with the AI disclosure, in remote_lang.
    const tr = await t.pool.query(`SELECT t.id FROM transcripts t WHERE t.session_id = $1`, [c.session_id]);
    const full = await (await t.request('GET', `/v1/transcripts/${tr.rows[0].id}`, { key: suite.key })).json();
    expect(full.room_id).toBeNull();
    expect(full.segments[0].untrusted_content.text).toBe(disclosure('Tolk Assistant', 'es'));

    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< BYE', '> 200 OK']);
    expectInvite(msgs, sipp, t.services.gateway!.address);
  });

  it('answered, then hung up through the API: our BYE, completed, agent_hangup', async () => {
    const { sipp, t } = await rig('answer-wait-bye');
    const c = await place(t);
    await untilStatus(t, c.id, ['answered']);
    const hung = await (await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: suite.key })).json();
    expect(hung).toMatchObject({ status: 'completed', end_reason: 'agent_hangup' });
    expect(await types(t, c.id)).toEqual(['call.ringing', 'call.answered', 'call.completed', 'call.ended']);
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    expect(msgs[4]!.header('CSeq')).toBe('2 BYE');
  });

  it('answered: the AI disclosure is spoken on the line in remote_lang, first (SIPp echoes our RTP; the gateway hears it back)', async () => {
    const mediaPort = await evenFreePort();
    const { sipp, t } = await rig('answer-echo-wait-bye', { extraArgs: ['-rtp_echo', '-mp', String(mediaPort)] });
    const plane = t.services.gateway!.media;
    const c = await place(t);
    const spoken = new Promise<void>((ok) => plane.on('finished', (k, u) => { if (k === c.id && u === 'disclosure') ok(); }));
    await untilStatus(t, c.id, ['answered']);
    await spoken;
    // The disclosure in Spanish, as speech: seconds of audio, most frames voiced, all of it back from the far end.
    const stats = await until('the echo of every frame', async () => { const x = (await plane.stats(c.id))!; return x.received >= x.sent && x; }, 2_000);
    expect(stats.sent).toBeGreaterThanOrEqual(75);
    expect(stats.received).toBe(stats.sent);
    const voiced = stats.energy.filter((e) => e > 300).length;
    expect(voiced).toBeGreaterThan(stats.energy.length * 0.4);
    // Paced as RTP must be: back through the far end, every packet in order and in time for the jitter buffer.
    expect(stats.jitter).toMatchObject({ lost: 0, late: 0, reordered: 0, duplicate: 0 });
    // The session's first event is the same disclosure, as text.
    const ev = await (await t.request('GET', `/v1/sessions/${c.session_id}/events?cursor=0`, { key: suite.key })).json();
    expect(ev.events[0].untrusted_content.text).toBe(disclosure('Tolk Assistant', 'es'));
    // What came back is heard as the far end's speech: no recognizer reads a
    // foreign peer, so a phrase with its length and no text, never invented words.
    const heard = await until('the echo heard', async () => {
      const all = await (await t.request('GET', `/v1/sessions/${c.session_id}/events?cursor=0`, { key: suite.key })).json();
      return all.events.find((e: { type: string; speaker: string }) => e.type === 'segment.final' && e.speaker === 'Callee') ?? null;
    }, { timeoutMs: 5_000, intervalMs: 200 });
    expect(heard).toMatchObject({ type: 'segment.final', untrusted_content: { text: null, text_in_hear_lang: null } });
    expect(heard.meta.audio_ms).toBeGreaterThan(stats.sent * 20 * 0.6);
    expect(heard.meta.audio_ms).toBeLessThanOrEqual(stats.sent * 20);
    const hung = await (await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: suite.key })).json();
    expect(hung.status).toBe('completed');
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    // Our offer named the call's own RTP port.
    const invite = wire(r.trace).find((m) => m.startLine.startsWith('INVITE'))!;
    expect(Number(/^m=audio (\d+) /m.exec(invite.body)![1])).not.toBe(9);
  });

  it('says through another process are spoken on the line after the disclosure, in the order they were sent', async () => {
    const mediaPort = await evenFreePort();
    const { sipp, t } = await rig('answer-echo-wait-bye', { extraArgs: ['-rtp_echo', '-mp', String(mediaPort)] });
    // An API process without a gateway: the says it takes reach the gateway holding the dialog through the database.
    const api = await startTestApp({ db: suite.db, clock });
    cleanups.push(() => api.close());
    const plane = t.services.gateway!.media;
    const c = await place(t);
    const started: string[] = [];
    const finishedUtt = new Set<string>();
    plane.on('started', (k, u) => { if (k === c.id) started.push(u); });
    plane.on('finished', (k, u) => { if (k === c.id) finishedUtt.add(u); });
    await untilStatus(t, c.id, ['answered']);
    const said: string[] = [];
    for (const text of ['Hello, I am calling about your order.', 'It will arrive on Tuesday.']) {
      const res = await api.request('POST', `/v1/sessions/${c.session_id}/say`, { key: suite.key, body: { text, lang: 'en' } });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(202);
      said.push(body.utterance_id);
      // Barge-in: sent while the line speaks (the disclosure, then the first say), it waits its turn.
      expect(body.queued_ms).toBeGreaterThan(0);
    }
    await until('the says spoken', async () => said.every((u) => finishedUtt.has(u)), 30_000);
    expect(started).toEqual(['disclosure', ...said]);
    // Each was heard back from the far end as speech: all of it, mostly voiced.
    const stats = (await plane.stats(c.id))!;
    expect(stats.sent).toBeGreaterThanOrEqual(200);
    await until('all of it echoed', async () => (await plane.stats(c.id))!.received >= stats.sent, 2_000);
    await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: suite.key });
    expect((await finished(sipp)).code).toBe(0);
  });

  it('Portuguese: silent on the line with the embedded engine alone, spoken with TOLK_SPEECH_ENGINES=pico,espeak', async () => {
    for (const engines of [['pico'], ['pico', 'espeak']] as const) {
      const mediaPort = await evenFreePort();
      const { sipp, t } = await rig('answer-echo-wait-bye', { extraArgs: ['-rtp_echo', '-mp', String(mediaPort)], speechEngines: [...engines] });
      const plane = t.services.gateway!.media;
      const c = await place(t, 'pt');
      const spoken = new Promise<boolean>((ok) => {
        plane.on('finished', (k, u) => { if (k === c.id && u === 'disclosure') ok(true); });
        // Spoken in real time (several seconds), after espeak-ng has read it: 40 s leaves room for a loaded machine.
        setTimeout(() => ok(false), 40_000);
      });
      await untilStatus(t, c.id, ['answered']);
      // The disclosure is the first event either way: the transcript has every word.
      const ev = await (await t.request('GET', `/v1/sessions/${c.session_id}/events?cursor=0`, { key: suite.key })).json();
      expect(ev.events[0].untrusted_content.text).toBe(disclosure('Tolk Assistant', 'pt'));
      if (engines.length === 1) {
        // Spoken, the disclosure starts within 300 ms of the pick-up (test/calls/baresip.test.ts): five times that for a busy machine.
        await quietFor(1500);
        expect((await plane.stats(c.id))!.sent, 'nothing spoken without an engine for pt').toBe(0);
        // A say that cannot be spoken is told all the same: finished, nothing spoken (an agent waiting for it goes on).
        const said = await (await t.request('POST', `/v1/sessions/${c.session_id}/say`, { key: suite.key, body: { text: 'Bom dia.', lang: 'pt' } })).json();
        const told = await until('the say told', async () => {
          const all = (await (await t.request('GET', `/v1/sessions/${c.session_id}/events?cursor=0`, { key: suite.key })).json()).events as any[];
          return all.filter((e) => e.meta?.utterance_id === said.utterance_id).map((e) => [e.type, e.meta.spoken_ms]).at(0) ?? null;
        }, { timeoutMs: 10_000, intervalMs: 100 });
        expect(told).toEqual(['say.finished', 0]);
      } else {
        expect(await spoken).toBe(true);
        expect((await plane.stats(c.id))!.sent).toBeGreaterThanOrEqual(100);
      }
      await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: suite.key });
      expect((await finished(sipp)).code).toBe(0);
    }
  });

  it('DTMF pressed on the far end (RFC 4733) reaches the session as dtmf events, in order', async () => {
    // SIPp's own captures of digits 1 and 5 (the sip-tester package; .ci/run installs it).
    expect(existsSync('/usr/share/sip-tester/dtmf_2833_1.pcap'), 'sip-tester DTMF captures missing: apt-get install sip-tester').toBe(true);
    const mediaPort = await evenFreePort();
    const { sipp, t } = await rig('answer-dtmf', { extraArgs: ['-mp', String(mediaPort)] });
    const c = await place(t);
    await untilStatus(t, c.id, ['answered']);
    const digits = await until('two digits', async () => {
      const ev = await (await t.request('GET', `/v1/sessions/${c.session_id}/events?cursor=0`, { key: suite.key })).json();
      const d = ev.events.filter((e: { type: string }) => e.type === 'dtmf');
      return d.length >= 2 ? d : null;
    }, { timeoutMs: 15_000, intervalMs: 200 });
    expect(digits.map((d: { untrusted_content: { text: string } }) => d.untrusted_content.text)).toEqual(['1', '5']);
    for (const d of digits) {
      expect(d.speaker).toBe('Callee');
      expect(d.meta.duration_ms).toBeGreaterThan(0);
    }
    await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: suite.key });
    expect((await finished(sipp)).code).toBe(0);
    // Digits are events of the line, not words of its transcript.
    const tr = await until('the transcript', async () =>
      (await t.pool.query<{ id: string }>(`SELECT id FROM transcripts WHERE session_id = $1`, [c.session_id])).rows[0], { timeoutMs: 10_000, intervalMs: 200 });
    const full = await (await t.request('GET', `/v1/transcripts/${tr.id}`, { key: suite.key })).json();
    expect(full.segments.map((g: { untrusted_content: { text: string | null } }) => g.untrusted_content.text)).not.toContain('1');
  });

  it('a 200 OK saying X-Tolk-Answered-By: voicemail is a voicemail at once (no detection), hung up, nothing billed', async () => {
    const { sipp, t } = await rig('voicemail-header');
    const c = await place(t);
    const ended = await untilStatus(t, c.id, ['voicemail']);
    expect(ended).toMatchObject({ end_reason: 'voicemail', billed_seconds: 0, answered_at: null });
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace)).slice(-2)).toEqual(['> BYE', '< 200 OK']);
    expect(await types(t, c.id)).toEqual(['call.ringing', 'call.voicemail', 'call.ended']);
  });

  it('486 Busy Here: busy, nothing billed', async () => {
    const { sipp, t } = await rig('busy');
    const c = await place(t);
    expect(await untilStatus(t, c.id, ['busy'])).toMatchObject({ end_reason: 'busy', billed_seconds: 0, answered_at: null });
    expect(await types(t, c.id)).toEqual(['call.ended']);
    expect(await ledger(t, c.id)).toEqual([]);
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 486 Busy Here', '> ACK']);
  });

  it('180 then 480: no_answer', async () => {
    const { sipp, t } = await rig('ring-then-480');
    const c = await place(t);
    expect(await untilStatus(t, c.id, ['no_answer'])).toMatchObject({ end_reason: 'no_answer', billed_seconds: 0 });
    expect(await types(t, c.id)).toEqual(['call.ringing', 'call.ended']);
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 180 Ringing', '< 480 Temporarily Unavailable', '> ACK']);
  });

  it('ringing until the API hangs up: CANCEL, 487, no_answer with agent_hangup', async () => {
    const { sipp, t } = await rig('ring-until-cancel');
    const c = await place(t);
    await untilStatus(t, c.id, ['ringing']);
    const hung = await (await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: suite.key })).json();
    expect(hung).toMatchObject({ status: 'no_answer', end_reason: 'agent_hangup', billed_seconds: 0 });
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 180 Ringing', '> CANCEL', '< 200 OK', '< 487 Request Terminated', '> ACK']);
    // The 487 that follows our CANCEL changes nothing: the call stays as the hangup left it.
    expect(await callOf(t, c.id)).toMatchObject({ status: 'no_answer', end_reason: 'agent_hangup' });
    expect(await types(t, c.id)).toEqual(['call.ringing', 'call.ended']);
  });

  it('ringing past TOLK_RING_TIMEOUT_SECONDS: canceled by the gateway, no_answer', async () => {
    const { sipp, t } = await rig('ring-until-cancel', { ringTimeoutSeconds: 1 });
    const c = await place(t);
    expect(await untilStatus(t, c.id, ['no_answer'])).toMatchObject({ end_reason: 'no_answer' });
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 180 Ringing', '> CANCEL', '< 200 OK', '< 487 Request Terminated', '> ACK']);
  });

  it('503 Service Unavailable: failed', async () => {
    const { sipp, t } = await rig('unavailable-503');
    const c = await place(t);
    expect(await untilStatus(t, c.id, ['failed'])).toMatchObject({ end_reason: 'failed', billed_seconds: 0 });
    expect(await types(t, c.id)).toEqual(['call.failed', 'call.ended']);
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 503 Service Unavailable', '> ACK']);
  });

  it('a retransmitted 200 OK is ACKed again and answers the call once', async () => {
    const { sipp, t } = await rig('retransmit-200', { extraArgs: ['-nr'] });
    const c = await place(t);
    await untilStatus(t, c.id, ['answered']);
    // SIPp sends the same 200 again 200 ms after our ACK; it is ACKed again before we hang up.
    await until('the second ACK', async () => wire(await sipp.traceSoFar()).filter((m) => m.startLine.startsWith('ACK ')).length === 2, 2_000);
    const hung = await (await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: suite.key })).json();
    expect(hung).toMatchObject({ status: 'completed', end_reason: 'agent_hangup' });
    const r = await finished(sipp);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    expect(msgs[5]!.text).toBe(msgs[3]!.text);
    expect(await types(t, c.id)).toEqual(['call.ringing', 'call.answered', 'call.completed', 'call.ended']);
  });

  it('a peer that never answers at all: failed when the ring timeout passes without a word', async () => {
    const { sipp, t } = await rig('never-answer', { ringTimeoutSeconds: 1 });
    const c = await place(t);
    expect(await untilStatus(t, c.id, ['failed'])).toMatchObject({ end_reason: 'failed', answered_at: null });
    expect(await types(t, c.id)).toEqual(['call.failed', 'call.ended']);
    await sipp.stop();
    const msgs = wire((await sipp.done()).trace);
    expect(flow(msgs)[0]).toBe('> INVITE');
    expect(msgs.every((m) => m.by === 'gateway')).toBe(true);
  });
});
