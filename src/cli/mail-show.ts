import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Queryable } from '../db/pool.ts';
import { mailFrom } from '../mail/mail.ts';
import { UsageError } from './admin.ts';

// `tolk mail show ID`: one message of the outbox as the person it is for reads
// it (From, To, Subject, Date and the text body), and its calendar attachment
// (invite.ics) saved to a file a calendar can open, its path printed. Still one
// JSON object on stdout, as every command (operator.md).

export type ShownMail = {
  id: string;
  from: string;
  to: string;
  subject: string;
  /** When it was sent to SMTP_URL, else when it was written to the outbox. */
  date: string;
  text: string;
  /** The saved invite.ics (absolute), or null for a mail without one. */
  ics_path: string | null;
  /** REQUEST or CANCEL, the calendar file's METHOD; null without one. */
  ics_method: string | null;
  status: string;
  livemode: boolean;
};

export async function showMail(db: Queryable, config: Pick<Config, 'dataDir' | 'mailFrom' | 'publicBaseUrl'>, id: string, icsOut?: string): Promise<ShownMail> {
  // Outbox ids are numbers (`tolk mail list` shows them); anything else is no mail.
  const { rows } = /^\d{1,18}$/.test(id)
    ? await db.query(
      `SELECT id, to_addr, subject, text, ics, ics_method, created_at, sent_at, status, livemode FROM mail_outbox WHERE id = $1`,
      [id],
    )
    : { rows: [] };
  const r = rows[0];
  if (!r) throw new UsageError(`no mail with id ${id}; tolk mail list shows them`);
  let icsPath: string | null = null;
  if (r.ics) {
    icsPath = path.resolve(icsOut ?? path.join(config.dataDir, 'mail', String(r.id), 'invite.ics'));
    // Its links open private rooms: readable by this user only, like the rest of the data folder.
    fs.mkdirSync(path.dirname(icsPath), { recursive: true, mode: 0o700 });
    fs.writeFileSync(icsPath, r.ics, { mode: 0o600 });
  }
  return {
    id: String(r.id),
    // The From the service sends with (mail/mail.ts), from this configuration.
    from: mailFrom(config),
    to: r.to_addr,
    subject: r.subject,
    date: (r.sent_at ?? r.created_at).toISOString(),
    text: r.text,
    ics_path: icsPath,
    ics_method: r.ics_method,
    status: r.status,
    livemode: r.livemode,
  };
}
