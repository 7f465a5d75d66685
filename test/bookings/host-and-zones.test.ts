import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../../src/cli/admin.ts';
import { fireMeetingTimer } from '../helpers/meeting-timers.ts';

// What a guest reads (issue 44): the booking and manage pages name the host as
// a person reads it (the organization's name), not by the page's slug; and
// every mail of a booking (invitation, reminder, update, cancellation) gives
// its time in the guest's zone in the subject as in the body, while the host's
// own mails keep the host's zone. The host is in New York, the guest in Tokyo.

const HOST_TZ = 'America/New_York';
const GUEST_TZ = 'Asia/Tokyo';
const HOST_NAME = 'Clínica Sol & Co';
const PAGE = 'sol-x7k2qp';
const OWNER = 'owner@sol.example';
const GUEST = { name: 'Kenji Sato', email: 'kenji@guest.example' };

let t: TestApp;

beforeAll(async () => {
  // Workers on: the reminders are timers the workers run.
  t = await startTestApp({ workers: true });
  const { orgId } = await t.key();
  await t.pool.query(`UPDATE organizations SET name = $2, owner_email = $3 WHERE id = $1`, [orgId, HOST_NAME, OWNER]);
  await createEventType(t.pool, t.config.publicBaseUrl, { org: orgId, page: PAGE, slug: 'intro', title: 'Intro call', tz: HOST_TZ, hours: 'mon-sun 00:00-24:00', duration: 30 });
});

afterAll(async () => {
  await t?.close();
});

/** A meeting's start as an English mail says it: "Tuesday 1 December 2026, 23:00 (Asia/Tokyo)". */
function when(start: string, tz: string): string {
  return `${DateTime.fromISO(start, { zone: tz }).toFormat('cccc d LLLL yyyy, HH:mm')} (${tz})`;
}

async function mailsTo(to: string): Promise<Array<{ subject: string; text: string }>> {
  const { rows } = await t.pool.query(`SELECT subject, text FROM mail_outbox WHERE lower(to_addr) = lower($1) ORDER BY id`, [to]);
  return rows;
}

/** Free slots more than a day ahead: each booking has its 24-hour reminder. */
async function slotsAfterADay(): Promise<string[]> {
  const { slots } = await (await t.request('GET', `/book/${PAGE}/intro/slots`)).json() as { slots: string[] };
  return slots.filter((s) => Date.parse(s) > Date.now() + 26 * 3_600_000);
}


describe('the host, named', () => {
  it('the booking page names the host by its organization\'s name, not the page\'s slug', async () => {
    const res = await t.request('GET', `/book/${PAGE}/intro`, { headers: { 'accept-language': 'es-ES,es;q=0.9' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    const meta = /<p class="meta">([\s\S]*?)<\/p>/.exec(html)![1]!;
    expect(meta).toBe('<span>30 minutos</span> · <span>Anfitrión: Clínica Sol &#38; Co</span>');
    expect(html).not.toContain(`Anfitrión: ${PAGE}`);
  });
});

describe('a guest in another zone than the host', () => {
  it('gets every mail with its time in their own zone, subject and body alike; the host in theirs', async () => {
    const [first, second] = await slotsAfterADay();
    expect(second).toBeDefined();
    const res = await t.request('POST', `/book/${PAGE}/intro`, {
      body: { start: first, name: GUEST.name, email: GUEST.email, speak: 'ja', hear: 'en', tz: GUEST_TZ, locale: 'en' },
    });
    expect(res.status).toBe(201);
    const booking = await res.json() as { start: string; manage_url: string; room_url: string };
    const roomId = new URL(booking.room_url).pathname.split('/').pop()!;
    const title = `Intro call: ${GUEST.name}`;

    // The invitation.
    let [mail] = await mailsTo(GUEST.email);
    expect(mail!.subject).toBe(`Invitation: ${title} @ ${when(first!, GUEST_TZ)}`);
    expect(mail!.text).toContain(`Your time: ${when(first!, GUEST_TZ)}`);
    expect(mail!.subject).not.toContain(HOST_TZ);
    expect(mail!.text).toContain(`${HOST_NAME} invites you`);
    const [hostMail] = await mailsTo(OWNER);
    expect(hostMail!.subject).toBe(`Invitation: ${title} @ ${when(first!, HOST_TZ)}`);
    expect(hostMail!.text).not.toContain(GUEST_TZ);

    // The manage page names the host as the booking page does.
    const manage = await (await fetch(booking.manage_url, { headers: { 'accept-language': 'en' } })).text();
    expect(manage).toContain(`<dt>Host</dt><dd>Clínica Sol &#38; Co</dd>`);

    // The reminder a day before.
    await fireMeetingTimer(t.pool, roomId, 'remind_24h');
    mail = (await mailsTo(GUEST.email)).at(-1);
    expect(mail!.subject).toBe(`Reminder: ${title} tomorrow @ ${when(first!, GUEST_TZ)}`);
    expect(mail!.text).toContain(`Your time: ${when(first!, GUEST_TZ)}`);
    expect((await mailsTo(OWNER)).at(-1)!.subject).toBe(`Reminder: ${title} tomorrow @ ${when(first!, HOST_TZ)}`);

    // Moved by the guest, then canceled: the new time, in the guest's zone.
    const moved = await t.request('POST', `${new URL(booking.manage_url).pathname}/reschedule`, { body: { start: second } });
    expect(moved.status).toBe(200);
    mail = (await mailsTo(GUEST.email)).at(-1);
    expect(mail!.subject).toBe(`Updated invitation: ${title} @ ${when(second!, GUEST_TZ)}`);
    expect(mail!.text).toContain(`Your time: ${when(second!, GUEST_TZ)}`);
    expect((await mailsTo(OWNER)).at(-1)!.subject).toBe(`Updated invitation: ${title} @ ${when(second!, HOST_TZ)}`);
    const canceled = await t.request('POST', `${new URL(booking.manage_url).pathname}/cancel`);
    expect(canceled.status).toBe(200);
    mail = (await mailsTo(GUEST.email)).at(-1);
    expect(mail!.subject).toBe(`Canceled: ${title} @ ${when(second!, GUEST_TZ)}`);
    expect(mail!.text).toContain(`Your time: ${when(second!, GUEST_TZ)}`);
    expect((await mailsTo(OWNER)).at(-1)!.subject).toBe(`Canceled: ${title} @ ${when(second!, HOST_TZ)}`);
  });
});
