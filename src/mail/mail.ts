import type { Config } from '../config.ts';
import { prepared, type Client } from '../db/pool.ts';
import { inTx } from '../jobs/in-tx.ts';
import type { Services } from '../services.ts';

// Every mail the service sends (invitations, cancellations, reminders,
// notices to an organization's owner) goes through queueMail, inside the
// transaction of the change it tells of: a change that rolls back mails no one.
//
// The message is always kept in mail_outbox (`tolk mail list` shows it). A
// live-mode message is also sent to SMTP_URL when it is set, by a pg-boss job
// on MAIL_QUEUE written in the same transaction (mail/jobs.ts), which records
// the outcome on the row (sent with the SMTP message id, or failed once every
// retry failed). Test-mode mail never leaves the outbox, even when SMTP_URL is
// set (operator.md, Mail).
//
// SMTP_URL is a nodemailer connection URL: smtp://[user:pass@]host[:port]
// (STARTTLS when the server offers it), smtps://... (TLS from the start), and
// any nodemailer SMTP option as a query parameter, e.g. ?ignoreTLS=true for a
// server that offers STARTTLS with a certificate that cannot be verified.

/** pg-boss queue of the sending jobs, one per message: `{ mailId }`. */
export const MAIL_QUEUE = 'mail-send';

export type MailStatus = 'kept' | 'queued' | 'sent' | 'failed';

export type MailInput = {
  /** The organization the mail is about (null for none). */
  orgId: string | null;
  /** Live-mode mail is sent (when SMTP_URL is set); test-mode mail is only kept. */
  livemode: boolean;
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** A calendar file (rooms/meetings/calendar.ts), sent as a text/calendar alternative with its METHOD and as invite.ics. */
  ics?: { method: 'REQUEST' | 'CANCEL'; content: string };
};

export type MailJob = { mailId: string };

/**
 * Keeps the message in mail_outbox within tx, and for live-mode mail with
 * SMTP_URL set queues its sending in the same transaction. Returns the row's id
 * and whether it is to be sent (queued) or only kept.
 */
export async function queueMail(
  s: Pick<Services, 'config' | 'boss'>,
  tx: Client,
  m: MailInput,
): Promise<{ id: string; status: 'kept' | 'queued' }> {
  const status = m.livemode && s.config.smtpUrl ? 'queued' : 'kept';
  const { rows } = await tx.query<{ id: number | string }>(
    prepared(
      `INSERT INTO mail_outbox (org_id, livemode, to_addr, subject, text, html, ics, ics_method, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [m.orgId, m.livemode, m.to, m.subject, m.text, m.html ?? null, m.ics?.content ?? null, m.ics?.method ?? null, status],
    ),
  );
  const id = String(rows[0]!.id);
  if (status === 'queued') {
    const job: MailJob = { mailId: id };
    // The retry schedule is the job's own (config), over the queue's defaults.
    await s.boss.send(MAIL_QUEUE, job, {
      ...inTx(tx),
      retryLimit: s.config.mailRetryLimit,
      retryDelay: s.config.mailRetryDelaySeconds,
      retryBackoff: true,
    });
  }
  return { id, status };
}

/**
 * The From of every mail: TOLK_MAIL_FROM (an address, optionally with a
 * display name), else `Tolk <no-reply@HOST>` with the host name of
 * PUBLIC_BASE_URL (config.ts).
 */
export function mailFrom(config: Pick<Config, 'mailFrom' | 'publicBaseUrl'>): string {
  return config.mailFrom || `Tolk <no-reply@${new URL(config.publicBaseUrl).hostname || 'localhost'}>`;
}
