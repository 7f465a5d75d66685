import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import type { Attachment } from 'mailparser';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtp, type SmtpServer } from '../helpers/smtp.ts';
import { until } from '../helpers/wait.ts';
import { withTx } from '../../src/db/pool.ts';
import { loadConfig } from '../../src/config.ts';
import { MAIL_QUEUE, mailFrom, queueMail, type MailInput } from '../../src/mail/mail.ts';
import { meetingCalendar, type MeetingCalendar } from '../../src/rooms/meetings/calendar.ts';

// Mail through a real SMTP server (test/helpers/smtp.ts): what queueMail
// keeps, what the pg-boss job sends (and how a calendar file arrives), the
// test-mode rule, retries, and a rolled-back transaction.

let t: TestApp;
let smtp: SmtpServer;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestApp({ workers: true, config: { smtpUrl: smtp.url, mailRetryDelaySeconds: 1, mailRetryLimit: 2 } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

type Row = { status: string; attempts: number; last_error: string | null; message_id: string | null; sent_at: Date | null; ics_method: string | null; livemode: boolean };
const row = async (id: string): Promise<Row> =>
  (await t.pool.query(`SELECT status, attempts, last_error, message_id, sent_at, ics_method, livemode FROM mail_outbox WHERE id = $1`, [id])).rows[0];
const jobsOf = async (id: string): Promise<number> =>
  (await t.pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'mailId' = $2`, [MAIL_QUEUE, id])).rows[0].n;
const queue = (m: Partial<MailInput> & Pick<MailInput, 'to' | 'subject'>) =>
  withTx(t.pool, (tx) => queueMail(t.services, tx, { orgId: null, livemode: true, text: 'Hello.\n', ...m }));
const settled = (id: string, status: string, timeoutMs = 20_000) =>
  until(`mail ${id} ${status}`, async () => {
    const r = await row(id);
    return r.status === status ? r : undefined;
  }, { timeoutMs, intervalMs: 50 });

/** The message's calendar file: the text/calendar alternative, and the same file as invite.ics. */
function calendarOf(m: { parsed: { attachments: Attachment[] } }) {
  const alternative = m.parsed.attachments.find((a) => a.contentType === 'text/calendar');
  const file = m.parsed.attachments.find((a) => a.filename === 'invite.ics');
  return { alternative, file, text: alternative?.content.toString('utf8') ?? '' };
}

function parseCalendar(text: string) {
  const cal = new ICAL.Component(ICAL.parse(text));
  const vevent = cal.getFirstSubcomponent('vevent')!;
  return { cal, vevent, event: new ICAL.Event(vevent) };
}

const START = new Date('2026-07-14T08:00:00Z'); // 10:00 in Berlin (CEST)
const meeting = (o: Partial<MeetingCalendar> = {}): MeetingCalendar => ({
  uid: 'mtg_test_1@tolk',
  sequence: 0,
  method: 'REQUEST',
  title: 'Quarterly review',
  description: 'Join: https://tolk.example/m/abc',
  url: 'https://tolk.example/m/abc',
  start: START,
  durationMin: 45,
  tz: 'Europe/Berlin',
  organizer: { name: 'Ana Host', email: 'ana@example.com' },
  attendees: [{ email: 'bo@example.com', name: 'Bo Guest' }, { email: 'cy@example.com' }],
  ...o,
});

describe('sending', () => {
  it('sends a live-mode invitation with its calendar file and records the message id', async () => {
    const ics = meetingCalendar(meeting());
    const q = await queue({ to: 'bo@example.com', subject: 'Invitation: Quarterly review', text: 'You are invited.\n', html: '<p>You are invited.</p>', ics: { method: 'REQUEST', content: ics } });
    expect(q.status).toBe('queued');
    expect(await jobsOf(q.id)).toBe(1);
    const r = await settled(q.id, 'sent');
    expect(r).toMatchObject({ attempts: 1, ics_method: 'REQUEST', livemode: true, last_error: null });
    expect(r.message_id).toMatch(/^<.+@.+>$/);
    expect(r.sent_at).toBeInstanceOf(Date);

    const m = smtp.messages.find((x) => x.parsed.subject === 'Invitation: Quarterly review')!;
    expect(m).toBeDefined();
    expect(m.parsed.messageId).toBe(r.message_id);
    expect(m.envelope).toEqual({ from: 'no-reply@localhost', to: ['bo@example.com'] });
    expect(m.parsed.from?.value).toEqual([{ name: 'Tolk', address: 'no-reply@localhost' }]);
    expect(mailFrom(t.config)).toBe('Tolk <no-reply@localhost>');
    const to = Array.isArray(m.parsed.to) ? m.parsed.to[0] : m.parsed.to;
    expect(to?.value[0]?.address).toBe('bo@example.com');
    expect(m.parsed.text?.trim()).toBe('You are invited.');
    expect(m.parsed.html).toContain('<p>You are invited.</p>');

    // Both a text/calendar alternative with the METHOD and an invite.ics attachment.
    const c = calendarOf(m);
    expect(m.raw).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=REQUEST/i);
    expect(c.alternative).toBeDefined();
    expect(c.file?.content.toString('utf8')).toBe(c.text);
    expect(c.text).toContain('\r\n');

    const { cal, vevent, event } = parseCalendar(c.text);
    expect(cal.getFirstPropertyValue('method')).toBe('REQUEST');
    expect(cal.getFirstPropertyValue('prodid')).toBe('-//Tolk//Meetings//EN');
    expect(event.uid).toBe('mtg_test_1@tolk');
    expect(event.sequence).toBe(0);
    expect(event.summary).toBe('Quarterly review');
    expect(event.description).toBe('Join: https://tolk.example/m/abc');
    expect(event.location).toBe('https://tolk.example/m/abc');
    expect(vevent.getFirstPropertyValue('url')).toBe('https://tolk.example/m/abc');
    expect(vevent.getFirstPropertyValue('status')).toBe('CONFIRMED');
    expect(vevent.getFirstPropertyValue('dtstamp')).toBeTruthy();
    expect(event.organizer.toLowerCase()).toBe('mailto:ana@example.com');
    expect(vevent.getFirstProperty('organizer')!.getParameter('cn')).toBe('Ana Host');
    const attendees = event.attendees.map((a) => ({
      to: String(a.getFirstValue()).toLowerCase(),
      cn: a.getParameter('cn'),
      role: a.getParameter('role'),
      partstat: a.getParameter('partstat'),
      rsvp: a.getParameter('rsvp'),
    }));
    expect(attendees).toEqual([
      { to: 'mailto:bo@example.com', cn: 'Bo Guest', role: 'REQ-PARTICIPANT', partstat: 'NEEDS-ACTION', rsvp: 'TRUE' },
      { to: 'mailto:cy@example.com', cn: 'cy@example.com', role: 'REQ-PARTICIPANT', partstat: 'NEEDS-ACTION', rsvp: 'TRUE' },
    ]);
    // The host's wall-clock time with its zone (and the zone's definition in the file): the same instant.
    expect(c.text).toContain('DTSTART;TZID=Europe/Berlin:20260714T100000');
    expect(cal.getFirstSubcomponent('vtimezone')?.getFirstPropertyValue('tzid')).toBe('Europe/Berlin');
    expect(event.startDate.zone?.tzid).toBe('Europe/Berlin');
    expect(event.startDate.toJSDate().toISOString()).toBe(START.toISOString());
    expect(event.endDate.toJSDate().toISOString()).toBe(new Date(START.getTime() + 45 * 60_000).toISOString());
  });

  it('sends the cancellation with the same UID, a higher SEQUENCE and METHOD:CANCEL', async () => {
    const ics = meetingCalendar(meeting({ method: 'CANCEL', sequence: 1 }));
    const q = await queue({ to: 'bo@example.com', subject: 'Canceled: Quarterly review', ics: { method: 'CANCEL', content: ics } });
    await settled(q.id, 'sent');
    const m = smtp.messages.find((x) => x.parsed.subject === 'Canceled: Quarterly review')!;
    expect(m.raw).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=CANCEL/i);
    const { cal, vevent, event } = parseCalendar(calendarOf(m).text);
    expect(cal.getFirstPropertyValue('method')).toBe('CANCEL');
    expect(event.uid).toBe('mtg_test_1@tolk');
    expect(event.sequence).toBe(1);
    expect(vevent.getFirstPropertyValue('status')).toBe('CANCELLED');
    expect(event.startDate.toJSDate().toISOString()).toBe(START.toISOString());
  });

  it('keeps test-mode mail in the outbox and never sends it, even with SMTP_URL set', async () => {
    const before = smtp.messages.length;
    const test = await queue({ livemode: false, to: 'test-mode@example.com', subject: 'Test-mode mail', ics: { method: 'REQUEST', content: meetingCalendar(meeting()) } });
    expect(test.status).toBe('kept');
    // A live message queued after it is sent; the test-mode one must not have gone before it or with it.
    const live = await queue({ to: 'live@example.com', subject: 'Live mail after the test-mode one' });
    await settled(live.id, 'sent');
    await smtp.waitFor(before + 1);
    // No send job was made for it (below): nothing can ever send it.
    expect(smtp.messages.slice(before).map((m) => m.parsed.subject)).toEqual(['Live mail after the test-mode one']);
    expect(smtp.messages.some((m) => m.envelope.to.includes('test-mode@example.com'))).toBe(false);
    expect(await row(test.id)).toMatchObject({ status: 'kept', attempts: 0, message_id: null, livemode: false });
    expect(await jobsOf(test.id)).toBe(0);
  });

  it('keeps live-mode mail too when SMTP_URL is not set', async () => {
    const url = t.config.smtpUrl;
    t.config.smtpUrl = undefined;
    try {
      const q = await queue({ to: 'nobody@example.com', subject: 'No SMTP' });
      expect(q.status).toBe('kept');
      expect(await jobsOf(q.id)).toBe(0);
    } finally {
      t.config.smtpUrl = url;
    }
  });

  it('leaves no mail and no job when the transaction rolls back', async () => {
    let id: string | undefined;
    await expect(
      withTx(t.pool, async (tx) => {
        id = (await queueMail(t.services, tx, { orgId: null, livemode: true, to: 'rollback@example.com', subject: 'Rolled back', text: 'x' })).id;
        // Both were written in this transaction.
        expect((await tx.query(`SELECT count(*)::int AS n FROM mail_outbox WHERE id = $1`, [id])).rows[0].n).toBe(1);
        expect((await tx.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'mailId' = $2`, [MAIL_QUEUE, id])).rows[0].n).toBe(1);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(id).toBeDefined();
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM mail_outbox WHERE id = $1 OR subject = 'Rolled back'`, [id])).rows[0].n).toBe(0);
    expect(await jobsOf(id!)).toBe(0);
  });
});

describe('failures', () => {
  /** Points the service at another SMTP server for the duration of fn. */
  async function withServer(server: SmtpServer, fn: () => Promise<void>) {
    const url = t.config.smtpUrl;
    t.config.smtpUrl = server.url;
    try {
      await fn();
    } finally {
      t.config.smtpUrl = url;
      await server.close();
    }
  }

  it('retries a temporary failure (451) and ends sent on the second attempt', async () => {
    const flaky = await startSmtp({ failFirst: 1 });
    await withServer(flaky, async () => {
      const q = await queue({ to: 'retry@example.com', subject: 'Sent on retry' });
      const r = await settled(q.id, 'sent');
      expect(r.attempts).toBe(2);
      expect(r.last_error).toMatch(/451/);
      expect(flaky.refused()).toBe(1);
      expect(flaky.messages.map((m) => m.parsed.subject)).toEqual(['Sent on retry']);
    });
  });

  it('ends failed with the last error once every retry failed', async () => {
    const down = await startSmtp({ failAlways: true });
    await withServer(down, async () => {
      const q = await queue({ to: 'fail@example.com', subject: 'Never accepted' });
      // mailRetryLimit 2: three attempts, after about 1-2 s and 2-4 s.
      const r = await settled(q.id, 'failed', 25_000);
      expect(r.attempts).toBe(3);
      expect(r.last_error).toMatch(/451/);
      expect(r.message_id).toBeNull();
      expect(down.refused()).toBe(3);
      expect(down.messages).toHaveLength(0);
      // The row records the failure inside the last attempt; pg-boss marks the job failed just after it ends.
      const state = await until('the send job failed', async () => {
        const job = (await t.pool.query(`SELECT state FROM pgboss.job WHERE name = $1 AND data->>'mailId' = $2`, [MAIL_QUEUE, q.id])).rows[0];
        return job?.state === 'active' ? null : job?.state;
      }, 5000);
      expect(state).toBe('failed');
    });
  });

  it('does not retry a permanent refusal (5xx)', async () => {
    const refusing = await startSmtp({ failAlways: true, failCode: 550 });
    await withServer(refusing, async () => {
      const q = await queue({ to: 'refused@example.com', subject: 'Refused for good' });
      const r = await settled(q.id, 'failed');
      expect(r.attempts).toBe(1);
      expect(r.last_error).toMatch(/550/);
      // No second attempt can come: its send job is over, not waiting for a retry.
      await until('the send job over', async () => {
        const job = (await t.pool.query(`SELECT state FROM pgboss.job WHERE name = $1 AND data->>'mailId' = $2`, [MAIL_QUEUE, q.id])).rows[0];
        return ['completed', 'failed'].includes(job?.state);
      }, 5000);
      expect(refusing.refused()).toBe(1);
      expect((await row(q.id)).attempts).toBe(1);
    });
  });
});

describe('TOLK_MAIL_FROM', () => {
  it('defaults to no-reply at the public host, and takes an address with or without a name', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.tolk.example' }).mailFrom).toBe('Tolk <no-reply@api.tolk.example>');
    expect(loadConfig({ TOLK_MAIL_FROM: 'Tolk Ops <ops@tolk.example>' }).mailFrom).toBe('Tolk Ops <ops@tolk.example>');
    expect(loadConfig({ TOLK_MAIL_FROM: 'ops@tolk.example' }).mailFrom).toBe('ops@tolk.example');
    expect(() => loadConfig({ TOLK_MAIL_FROM: 'not an address' })).toThrow(/TOLK_MAIL_FROM/);
  });
});

describe('meetingCalendar', () => {
  const instantOf = (ics: string, which: 'start' | 'end') => {
    const { event } = parseCalendar(ics);
    return (which === 'start' ? event.startDate : event.endDate).toJSDate().getTime();
  };

  it('writes the host wall-clock time across a DST change, with the offsets of each side', () => {
    // 01:30 CET on the night Berlin moves to CEST (02:00 -> 03:00); ends 04:00 CEST.
    const start = new Date('2026-03-29T00:30:00Z');
    const ics = meetingCalendar(meeting({ start, durationMin: 90 }));
    expect(ics).toContain('DTSTART;TZID=Europe/Berlin:20260329T013000');
    expect(ics).toContain('DTEND;TZID=Europe/Berlin:20260329T040000');
    const { event } = parseCalendar(ics);
    expect(event.startDate.utcOffset()).toBe(3600);
    expect(event.endDate.utcOffset()).toBe(7200);
    expect(instantOf(ics, 'start')).toBe(start.getTime());
    expect(instantOf(ics, 'end')).toBe(start.getTime() + 90 * 60_000);
    // Outlook wants yearly rules rather than a list of dates.
    expect(ics).toContain('RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU');
    expect(ics).toContain('RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU');
  });

  it.each(['Europe/Berlin', 'America/New_York', 'America/Sao_Paulo', 'Australia/Sydney', 'Australia/Lord_Howe', 'Asia/Jerusalem', 'Asia/Kolkata', 'Africa/Casablanca', 'Pacific/Chatham'])(
    'gives every instant of the year its exact time in %s',
    (tz) => {
      // Every 61 hours through 2026 (all hours of the day over the year), and each hour around the zone's changes.
      const instants: number[] = [];
      for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 61 * 3600_000) instants.push(ms);
      let prev = DateTime.fromMillis(Date.UTC(2026, 0, 1), { zone: tz }).offset;
      for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 3600_000) {
        const offset = DateTime.fromMillis(ms, { zone: tz }).offset;
        if (offset !== prev) for (let h = -3; h <= 3; h++) instants.push(ms + h * 3600_000 - 30 * 60_000);
        prev = offset;
      }
      for (const ms of instants) {
        const ics = meetingCalendar(meeting({ tz, start: new Date(ms), durationMin: 120 }));
        expect(instantOf(ics, 'start'), `${tz} ${new Date(ms).toISOString()}`).toBe(ms);
        expect(instantOf(ics, 'end'), `${tz} ${new Date(ms).toISOString()} + 2 h`).toBe(ms + 120 * 60_000);
        // In the host's zone, except when the start or end is in an hour the zone repeats (an ambiguous wall-clock time).
        const wall = (x: number) => DateTime.fromMillis(x, { zone: tz }).toFormat("yyyyLLdd'T'HHmmss");
        const repeated = (x: number) => [-60, -30, 30, 60].some((min) => wall(x + min * 60_000) === wall(x));
        if (repeated(ms) || repeated(ms + 120 * 60_000)) expect(ics).toContain(`DTSTART:${DateTime.fromMillis(ms, { zone: 'utc' }).toFormat("yyyyLLdd'T'HHmmss")}Z`);
        else expect(ics).toContain(`DTSTART;TZID=${tz}:${wall(ms)}`);
      }
    },
  );

  it('writes UTC times and no VTIMEZONE for a UTC host', () => {
    const ics = meetingCalendar(meeting({ tz: 'UTC' }));
    expect(ics).toContain('DTSTART:20260714T080000Z');
    expect(ics).toContain('DTEND:20260714T084500Z');
    expect(ics).not.toContain('VTIMEZONE');
    expect(instantOf(ics, 'start')).toBe(START.getTime());
  });

  it('keeps DTSTAMP and CREATED in UTC', () => {
    const ics = meetingCalendar(meeting({ stamp: new Date('2026-05-01T12:34:56Z'), created: new Date('2026-04-30T08:00:00Z') }));
    expect(ics).toContain('DTSTAMP:20260501T123456Z');
    expect(ics).toContain('CREATED:20260430T080000Z');
  });
});
