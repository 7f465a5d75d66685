import { createTransport, type Transporter } from 'nodemailer';
import type { Config } from '../config.ts';
import { prepared } from '../db/pool.ts';
import { deleteWhere, type CapabilityJobs } from '../jobs/capability.ts';
import type { Services } from '../services.ts';
import { MAIL_QUEUE, mailFrom, type MailJob } from './mail.ts';

/**
 * Sending the mail queueMail queued: one pg-boss job per message, retried
 * with exponential backoff (the schedule is each job's, from config:
 * mailRetryDelaySeconds, mailRetryLimit; by default 6 attempts within about
 * an hour). Each attempt is recorded on the mail_outbox row (attempts,
 * last_error); the row ends `sent` with the SMTP Message-ID, or `failed`
 * after the last attempt, or at once when the server refuses the message
 * for good (a 5xx reply). Delivery is at least once: a process killed
 * between the SMTP server's acceptance and the row's update sends it again.
 */
export const mailJobs: CapabilityJobs = {
  queues: [
    {
      name: MAIL_QUEUE,
      // notify: a new message is sent at once. The retry options here are the
      // defaults of a job sent without its own (queueMail gives its own).
      // expireInSeconds bounds one attempt (the transport's timeouts below are shorter).
      options: { notify: true, expireInSeconds: 120, retryLimit: 5, retryDelay: 60, retryBackoff: true, deleteAfterSeconds: 24 * 3600 },
      // One message per job (a throw fails just that one); retries that come
      // due are found by polling, hence the short notify-time polling interval.
      work: { batchSize: 1, localConcurrency: 4, includeMetadata: true, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
      handle: async (s, jobs) => {
        for (const j of jobs) await sendQueuedMail(s, j.data as MailJob, j);
      },
    },
  ],
  // Mail is kept 30 days (tolk mail list).
  retention: [deleteWhere('mail', `DELETE FROM mail_outbox WHERE created_at < now() - interval '30 days'`)],
};

type Row = {
  status: string;
  to_addr: string;
  subject: string;
  text: string;
  html: string | null;
  ics: string | null;
  ics_method: string | null;
};

/**
 * Sends one queued message and records the outcome. A message no longer
 * `queued` (sent or failed already: a duplicate or late job) is left alone.
 * A failure that may pass is rethrown, so pg-boss retries the job
 * (`attempt` is the job's retryCount and retryLimit: the last one marks the row failed).
 */
export async function sendQueuedMail(
  s: Pick<Services, 'config' | 'pool'>,
  job: MailJob,
  attempt: { retryCount?: number; retryLimit?: number } = {},
): Promise<'sent' | 'failed' | 'skipped'> {
  const { rows } = await s.pool.query<Row>(
    prepared(`SELECT status, to_addr, subject, text, html, ics, ics_method FROM mail_outbox WHERE id = $1`, [job.mailId]),
  );
  const m = rows[0];
  if (!m || m.status !== 'queued' || !s.config.smtpUrl) return 'skipped';
  let messageId: string;
  try {
    const info = await transport(s.config.smtpUrl).sendMail({
      from: mailFrom(s.config),
      to: m.to_addr,
      subject: m.subject,
      text: m.text,
      ...(m.html ? { html: m.html } : {}),
      // Both a text/calendar alternative with its METHOD (the invitation
      // calendars act on) and an invite.ics attachment (nodemailer does both).
      ...(m.ics ? { icalEvent: { method: m.ics_method ?? 'REQUEST', filename: 'invite.ics', content: m.ics } } : {}),
    });
    messageId = info.messageId;
  } catch (err) {
    const e = err as { message?: string; responseCode?: number };
    // A 5xx reply is the server's final refusal (RFC 5321): no retry.
    const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
    const last = permanent || (attempt.retryLimit !== undefined && (attempt.retryCount ?? 0) >= attempt.retryLimit);
    await s.pool.query(
      prepared(
        `UPDATE mail_outbox SET attempts = attempts + 1, last_error = $2,
           status = CASE WHEN $3::boolean THEN 'failed' ELSE status END
         WHERE id = $1 AND status = 'queued'`,
        [job.mailId, String(e.message ?? err).slice(0, 1000), last],
      ),
    );
    if (permanent) return 'failed';
    // pg-boss retries the job, or after the last attempt marks it failed too.
    throw err;
  }
  await s.pool.query(
    prepared(
      `UPDATE mail_outbox SET status = 'sent', sent_at = now(), message_id = $2, attempts = attempts + 1
       WHERE id = $1 AND status = 'queued'`,
      [job.mailId, messageId],
    ),
  );
  return 'sent';
}

// One transport per SMTP URL in the process (a new connection per message).
const transports = new Map<string, Transporter>();

function transport(url: NonNullable<Config['smtpUrl']>): Transporter {
  let t = transports.get(url);
  if (!t) {
    // Timeouts shorter than the job's expiry; options in the URL's query override them.
    t = createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 60_000 });
    transports.set(url, t);
  }
  return t;
}
