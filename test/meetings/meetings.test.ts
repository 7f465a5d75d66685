import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ICAL from 'ical.js';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtp, type SmtpServer } from '../helpers/smtp.ts';
import { until } from '../helpers/wait.ts';
import { END_GRACE_MIN } from '../../src/rooms/meetings/meetings.ts';
import { fireMeetingTimer } from '../helpers/meeting-timers.ts';

// Meetings through the API (api.md: Room as meeting, POST/GET/DELETE
// /v1/meetings, the room state table): every field, the durable timers (start,
// end, reminders) fired by the real pg-boss workers, the invitations and
// cancellations with their calendar files (parsed with ical.js), live-mode
// mail through a real SMTP server, and bad input.

let t: TestApp;
let smtp: SmtpServer;
beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestApp({ workers: true, config: { smtpUrl: smtp.url } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
/** A time m minutes from now, in whole seconds (calendar files carry seconds). */
const inMinutes = (m: number) => new Date(Math.ceil((Date.now() + m * 60_000) / 1000) * 1000);

async function schedule(key: string, body: Record<string, unknown>) {
  const res = await t.request('POST', '/v1/meetings', { key, headers: idem(), body });
  return { status: res.status, body: await res.json() };
}

async function mails(to: string) {
  const { rows } = await t.pool.query(
    `SELECT to_addr, subject, text, ics, ics_method, status, livemode FROM mail_outbox WHERE lower(to_addr) = lower($1) ORDER BY id`,
    [to],
  );
  return rows;
}

function calendar(ics: string) {
  const cal = new ICAL.Component(ICAL.parse(ics));
  const vevent = cal.getFirstSubcomponent('vevent')!;
  return {
    method: cal.getFirstPropertyValue('method'),
    uid: vevent.getFirstPropertyValue('uid'),
    sequence: Number(vevent.getFirstPropertyValue('sequence')),
    status: vevent.getFirstPropertyValue('status'),
    organizer: String(vevent.getFirstPropertyValue('organizer')),
    attendees: vevent.getAllProperties('attendee').map((p) => String(p.getFirstValue()).toLowerCase()),
    start: (vevent.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate(),
    end: (vevent.getFirstPropertyValue('dtend') as ICAL.Time).toJSDate(),
    tzid: vevent.getFirstProperty('dtstart')!.getParameter('tzid') ?? null,
    url: vevent.getFirstPropertyValue('url'),
  };
}

async function outbox(objectId: string) {
  const { rows } = await t.pool.query(`SELECT type, data FROM outbox WHERE object_id = $1 ORDER BY id`, [objectId]);
  return rows.map((r) => ({ type: r.type, status: r.data.object.status }));
}

async function timers(roomId: string) {
  const { rows } = await t.pool.query(
    `SELECT data->>'kind' AS kind, state, start_after FROM pgboss.job WHERE name = 'meeting-timer' AND data->>'roomId' = $1 ORDER BY start_after`,
    [roomId],
  );
  return rows;
}


describe('POST /v1/meetings', () => {
  it('creates a scheduled room with every field, its actor, its timers and one invitation per invitee with a calendar file', async () => {
    const { secret, orgId } = await t.key();
    await t.pool.query(`UPDATE organizations SET owner_email = 'host@example.com', name = 'Acme' WHERE id = $1`, [orgId]);
    const starts = inMinutes(3 * 24 * 60);
    const { status, body: m } = await schedule(secret, {
      title: 'Quarterly review', starts_at: starts.toISOString().replace('Z', '+00:00'), duration_min: 50,
      invitees: ['ana@example.com', 'Bo@Example.com', 'ana@EXAMPLE.com'], langs: ['pt', 'en'], visibility: 'public', tz: 'Europe/Lisbon',
    });
    expect(status).toBe(201);
    expect(m).toMatchObject({
      title: 'Quarterly review', visibility: 'public', status: 'scheduled', starts_at: starts.toISOString(), duration_min: 50,
      invitees: ['ana@example.com', 'Bo@Example.com'], langs: ['pt', 'en'], livemode: false,
    });
    expect(m.id).toMatch(/^room_/);
    expect(m.url).toBe(`${t.config.publicBaseUrl}/r/${m.id}`);
    expect(new Date(m.expires_at).getTime()).toBe(starts.getTime() + (50 + END_GRACE_MIN) * 60_000);
    expect(Object.keys(m).sort()).toEqual(
      ['created_at', 'duration_min', 'expires_at', 'id', 'invitees', 'langs', 'livemode', 'starts_at', 'status', 'title', 'url', 'visibility'],
    );
    // GET returns the same room; the actor is a scheduled room.
    expect(await (await t.request('GET', `/v1/rooms/${m.id}`, { key: secret })).json()).toEqual(m);
    const actor = (await t.pool.query(`SELECT machine, state FROM actors WHERE id = $1`, [m.id])).rows[0];
    expect(actor).toEqual({ machine: 'room', state: 'scheduled' });
    expect(await outbox(m.id)).toEqual([{ type: 'meeting.created', status: 'scheduled' }]);
    // Timers: start, both reminders, end.
    expect((await timers(m.id)).map((j) => j.kind)).toEqual(['remind_24h', 'remind_15m', 'start', 'end']);

    // One invitation per invitee (the duplicate address once), kept in the outbox: test mode.
    const ana = await mails('ana@example.com');
    const bo = await mails('bo@example.com');
    expect(ana).toHaveLength(1);
    expect(bo).toHaveLength(1);
    for (const mail of [...ana, ...bo]) {
      expect(mail).toMatchObject({ status: 'kept', livemode: false, ics_method: 'REQUEST' });
      expect(mail.subject).toContain('Quarterly review');
      expect(mail.text).toContain(`${t.config.publicBaseUrl}/r/${m.id}?t=`);
      const c = calendar(mail.ics);
      expect(c).toMatchObject({ method: 'REQUEST', sequence: 0, status: 'CONFIRMED', tzid: 'Europe/Lisbon' });
      expect(c.uid).toContain(m.id);
      expect(c.organizer.toLowerCase()).toBe('mailto:host@example.com');
      expect(c.attendees.sort()).toEqual(['mailto:ana@example.com', 'mailto:bo@example.com']);
      expect(c.start.getTime()).toBe(starts.getTime());
      expect(c.end.getTime()).toBe(starts.getTime() + 50 * 60_000);
    }
    // Each invitee's link is a join link of this room: it opens it.
    const link = /(http\S+\?t=\S+)/.exec(ana[0].text)![1]!;
    const page = await fetch(link);
    expect(page.status).toBe(200);
    // Test mode: nothing went to the SMTP server.
    expect(smtp.messages.filter((x) => x.envelope.to.includes('ana@example.com'))).toEqual([]);
  });

  it('refuses bad input with a 400 naming the field, and creates nothing', async () => {
    const { secret, orgId } = await t.key();
    const ok = { title: 'x', starts_at: inMinutes(60).toISOString() };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ok, starts_at: '2030-01-01T10:00:00' }, 'starts_at'],
      [{ ...ok, starts_at: 'tomorrow' }, 'starts_at'],
      [{ ...ok, starts_at: '2020-01-01T10:00:00Z' }, 'starts_at'],
      [{ ...ok, starts_at: inMinutes(-5).toISOString() }, 'starts_at'],
      [{ ...ok, starts_at: '2030-02-30T10:00:00Z' }, 'starts_at'],
      [{ ...ok, title: '' }, 'title'],
      [{ ...ok, title: 'x'.repeat(121) }, 'title'],
      [{ starts_at: ok.starts_at }, 'title'],
      [{ ...ok, duration_min: 4 }, 'duration_min'],
      [{ ...ok, duration_min: 721 }, 'duration_min'],
      [{ ...ok, duration_min: 30.5 }, 'duration_min'],
      [{ ...ok, invitees: ['not-an-email'] }, 'invitees'],
      [{ ...ok, visibility: 'secret' }, 'visibility'],
      [{ ...ok, langs: ['english!'] }, 'langs'],
      [{ ...ok, tz: 'Mars/Base' }, 'tz'],
    ];
    for (const [body, field] of cases) {
      const { status, body: p } = await schedule(secret, body);
      expect({ body, status }).toEqual({ body, status: 400 });
      expect(p.code).toBe('invalid_request');
      expect(p.message).toContain(field);
    }
    const n = await t.pool.query(`SELECT count(*)::int AS n FROM rooms WHERE org_id = $1`, [orgId]);
    expect(n.rows[0].n).toBe(0);
  });

  it('requires calendar:write and an Idempotency-Key, and replays the same meeting for the same key', async () => {
    const { secret } = await t.key({ permissions: 'calendar:read' });
    const res = await t.request('POST', '/v1/meetings', { key: secret, headers: idem(), body: { title: 'x', starts_at: inMinutes(60).toISOString() } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('calendar:write');
    const { secret: k2, orgId } = await t.key();
    const none = await t.request('POST', '/v1/meetings', { key: k2, body: { title: 'x', starts_at: inMinutes(60).toISOString() } });
    expect((await none.json()).code).toBe('idempotency_key_required');
    const headers = idem();
    const body = { title: 'once', starts_at: inMinutes(120).toISOString(), invitees: ['once@example.com'] };
    const [a, b] = [await t.request('POST', '/v1/meetings', { key: k2, headers, body }), await t.request('POST', '/v1/meetings', { key: k2, headers, body })];
    expect((await a.json()).id).toBe((await b.json()).id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const n = await t.pool.query(`SELECT count(*)::int AS n FROM rooms WHERE org_id = $1`, [orgId]);
    expect(n.rows[0].n).toBe(1);
    expect(await mails('once@example.com')).toHaveLength(1);
  });
});

describe('GET /v1/meetings', () => {
  it('lists the meetings by start time, from inclusive and to exclusive, with a limit; rooms and other organizations are not listed', async () => {
    const { secret } = await t.key();
    const other = await t.key();
    const base = Date.parse('2028-05-10T12:00:00Z');
    const at = (h: number) => new Date(base + h * 3600_000).toISOString();
    const ids: Record<string, string> = {};
    for (const h of [5, 1, 3, 2, 4]) ids[h] = (await schedule(secret, { title: `m${h}`, starts_at: at(h) })).body.id;
    await schedule(other.secret, { title: 'theirs', starts_at: at(3) });
    await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: {} });
    const list = async (q: string) => {
      const res = await t.request('GET', `/v1/meetings${q}`, { key: secret });
      expect(res.status).toBe(200);
      return ((await res.json()).data as Array<{ id: string; title: string }>).map((m) => m.title);
    };
    expect(await list('')).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(await list(`?from=${encodeURIComponent(at(2))}&to=${encodeURIComponent(at(4))}`)).toEqual(['m2', 'm3']);
    expect(await list(`?from=${encodeURIComponent(at(2).replace('Z', '+00:00'))}&limit=2`)).toEqual(['m2', 'm3']);
    expect(await list('?to=2028-05-10')).toEqual([]);
    expect(await list('?from=2028-05-10&to=2028-05-11')).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    // A canceled meeting stays listed, with its status.
    await t.request('DELETE', `/v1/meetings/${ids[3]}`, { key: secret });
    const all = (await (await t.request('GET', '/v1/meetings', { key: secret })).json()).data;
    expect(all.map((m: { status: string }) => m.status)).toEqual(['scheduled', 'scheduled', 'canceled', 'scheduled', 'scheduled']);
  });

  it('refuses bounds that are not dates, a reversed range and a bad limit, naming the parameter', async () => {
    const { secret } = await t.key();
    for (const [q, field] of [['?from=yesterday', 'from'], ['?to=2028-13-01', 'to'], ['?from=2028-02-30', 'from'],
      ['?from=2028-05-10T10:00:00', 'from'], ['?from=2028-05-11&to=2028-05-10', 'to'], ['?from=2028-05-10&to=2028-05-10', 'to'],
      ['?limit=0', 'limit'], ['?limit=abc', 'limit']] as const) {
      const res = await t.request('GET', `/v1/meetings${q}`, { key: secret });
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
      expect((await res.json()).message).toContain(field);
    }
  });
});

describe('DELETE /v1/meetings/{id}', () => {
  it('cancels: status canceled, meeting.canceled, invitees get METHOD:CANCEL with the same UID and a higher SEQUENCE; twice changes nothing', async () => {
    const { secret } = await t.key();
    const { body: m } = await schedule(secret, { title: 'Canceled one', starts_at: inMinutes(60 * 30).toISOString(), invitees: ['cx@example.com'] });
    const res = await t.request('DELETE', `/v1/meetings/${m.id}`, { key: secret });
    expect(res.status).toBe(200);
    const canceled = await res.json();
    expect(canceled).toMatchObject({ id: m.id, status: 'canceled', starts_at: m.starts_at });
    expect(await outbox(m.id)).toEqual([{ type: 'meeting.created', status: 'scheduled' }, { type: 'meeting.canceled', status: 'canceled' }]);
    const [invite, cancel] = await mails('cx@example.com');
    expect(cancel).toMatchObject({ ics_method: 'CANCEL', status: 'kept' });
    expect(cancel.subject).toMatch(/^Canceled: /);
    const a = calendar(invite.ics);
    const b = calendar(cancel.ics);
    expect(b).toMatchObject({ method: 'CANCEL', status: 'CANCELLED', uid: a.uid });
    expect(b.sequence).toBeGreaterThan(a.sequence);
    expect(b.start.getTime()).toBe(a.start.getTime());

    const again = await t.request('DELETE', `/v1/meetings/${m.id}`, { key: secret });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(canceled);
    expect(await mails('cx@example.com')).toHaveLength(2);
    expect(await outbox(m.id)).toHaveLength(2);
  });

  it('two DELETEs racing cancel once: one meeting.canceled, one cancellation mail', async () => {
    const { secret } = await t.key();
    const { body: m } = await schedule(secret, { title: 'Race', starts_at: inMinutes(60 * 30).toISOString(), invitees: ['race@example.com'] });
    const results = await Promise.all(Array.from({ length: 4 }, () => t.request('DELETE', `/v1/meetings/${m.id}`, { key: secret })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await outbox(m.id)).filter((e) => e.type === 'meeting.canceled')).toHaveLength(1);
    expect((await mails('race@example.com')).filter((x) => x.ics_method === 'CANCEL')).toHaveLength(1);
  });

  it('answers 404 for an unknown id, an instant room, another organization\'s meeting, and 409 for a meeting that has started', async () => {
    const { secret } = await t.key();
    const other = await t.key();
    const room = await (await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: {} })).json();
    const { body: theirs } = await schedule(other.secret, { title: 'x', starts_at: inMinutes(90).toISOString() });
    for (const id of ['room_nope', room.id, theirs.id, 'x'.repeat(101)]) {
      const res = await t.request('DELETE', `/v1/meetings/${id}`, { key: secret });
      expect(res.status).toBe(id.length > 100 ? 400 : 404);
    }
    const { body: m } = await schedule(secret, { title: 'Soon', starts_at: inMinutes(90).toISOString() });
    await fireMeetingTimer(t.pool, m.id, 'start');
    const res = await t.request('DELETE', `/v1/meetings/${m.id}`, { key: secret });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe('conflict');
  });
});

describe('timers', () => {
  it('a meeting goes live at starts_at by itself (room.started, meeting.updated) and ends after its duration and the grace period', async () => {
    // Polled: a rate limit of its own.
    const { secret } = await t.key({ rpm: 100_000 });
    const { body: m } = await schedule(secret, { title: 'Live soon', starts_at: new Date(Date.now() + 1500).toISOString(), duration_min: 5 });
    // No reminders: both moments had passed when it was scheduled.
    expect((await timers(m.id)).map((j) => j.kind)).toEqual(['start', 'end']);
    await until('the meeting to go live', async () => {
      const r = await (await t.request('GET', `/v1/rooms/${m.id}`, { key: secret })).json();
      return r.status === 'live' ? r : undefined;
    }, { timeoutMs: 15_000 });
    expect(await outbox(m.id)).toEqual([
      { type: 'meeting.created', status: 'scheduled' }, { type: 'room.started', status: 'live' }, { type: 'meeting.updated', status: 'live' },
    ]);
    const end = (await timers(m.id)).find((j) => j.kind === 'end');
    expect(end.start_after.getTime() - Date.parse(m.starts_at)).toBe((5 + END_GRACE_MIN) * 60_000);
    await fireMeetingTimer(t.pool, m.id, 'end');
    expect((await (await t.request('GET', `/v1/rooms/${m.id}`, { key: secret })).json()).status).toBe('ended');
    expect((await outbox(m.id)).slice(3)).toEqual([{ type: 'room.ended', status: 'ended' }, { type: 'meeting.updated', status: 'ended' }]);
  });

  it('reminds invitees 15 minutes and 24 hours before, not when canceled, and never twice', async () => {
    const { secret } = await t.key();
    const { body: m } = await schedule(secret, { title: 'Remind me', starts_at: inMinutes(25 * 60).toISOString(), invitees: ['rem@example.com'] });
    await fireMeetingTimer(t.pool, m.id, 'remind_24h');
    await fireMeetingTimer(t.pool, m.id, 'remind_15m');
    const got = await mails('rem@example.com');
    expect(got.map((x) => x.subject.split(':')[0])).toEqual(['Invitation', 'Reminder', 'Starting in 15 minutes']);
    expect(got[1].ics).toBeNull();
    expect(got[1].text).toContain(`/r/${m.id}?t=`);

    const { body: c } = await schedule(secret, { title: 'Canceled', starts_at: inMinutes(25 * 60).toISOString(), invitees: ['rem2@example.com'] });
    await t.request('DELETE', `/v1/meetings/${c.id}`, { key: secret });
    await fireMeetingTimer(t.pool, c.id, 'remind_24h');
    expect((await mails('rem2@example.com')).map((x) => x.subject.split(':')[0])).toEqual(['Invitation', 'Canceled']);
    // A start timer of a canceled meeting does nothing either.
    await fireMeetingTimer(t.pool, c.id, 'start');
    expect((await (await t.request('GET', `/v1/rooms/${c.id}`, { key: secret })).json()).status).toBe('canceled');
  });

  it('sets no reminder whose moment has passed when the meeting is created', async () => {
    const { secret } = await t.key();
    const { body: soon } = await schedule(secret, { title: 'In 10 min', starts_at: inMinutes(10).toISOString() });
    expect((await timers(soon.id)).map((j) => j.kind)).toEqual(['start', 'end']);
    const { body: today } = await schedule(secret, { title: 'In 2 h', starts_at: inMinutes(120).toISOString() });
    expect((await timers(today.id)).map((j) => j.kind)).toEqual(['remind_15m', 'start', 'end']);
  });
});

describe('live mode mail', () => {
  it('sends a live meeting\'s invitation and cancellation to SMTP_URL, with the calendar file as text/calendar', async () => {
    const { secret, orgId } = await t.key({ mode: 'live' });
    await t.pool.query(`UPDATE organizations SET owner_email = 'owner@example.com' WHERE id = $1`, [orgId]);
    const before = smtp.messages.length;
    const starts = inMinutes(48 * 60);
    const { status, body: m } = await schedule(secret, { title: 'Live meeting', starts_at: starts.toISOString(), invitees: ['live@example.com'] });
    expect(status).toBe(201);
    expect(m.livemode).toBe(true);
    await smtp.waitFor(before + 1);
    const msg = smtp.messages[before]!;
    expect(msg.envelope.to).toEqual(['live@example.com']);
    expect(msg.parsed.subject).toContain('Live meeting');
    const part = /Content-Type: text\/calendar;[^\r\n]*method=REQUEST/i.test(msg.raw);
    expect(part).toBe(true);
    const ics = msg.parsed.attachments.find((a) => a.contentType === 'text/calendar' || a.contentType === 'application/ics')!;
    expect(calendar(ics.content.toString()).start.getTime()).toBe(starts.getTime());
    await until('the mail to be marked sent', async () => ((await mails('live@example.com'))[0].status === 'sent' ? true : undefined));

    await t.request('DELETE', `/v1/meetings/${m.id}`, { key: secret });
    await smtp.waitFor(before + 2);
    expect(/method=CANCEL/i.test(smtp.messages[before + 1]!.raw)).toBe(true);
  });
});
