import { prepared, type Queryable } from './pool.ts';

/**
 * An organization as its pages and mails name it: its display name, its
 * owner's address (the organizer of its meetings) and its status; null when
 * there is no such organization. A key's own organization comes with the key
 * (credentials.ts, orgName).
 */
export type Organization = { name: string; ownerEmail: string | null; status: 'active' | 'blocked' | 'suspended' };

export async function organizationOf(db: Queryable, orgId: string): Promise<Organization | null> {
  const { rows } = await db.query(prepared(`SELECT name, owner_email, status FROM organizations WHERE id = $1`, [orgId]));
  const r = rows[0];
  return r ? { name: r.name, ownerEmail: r.owner_email ?? null, status: r.status } : null;
}

/** The organization's display name; its id when there is no such organization. */
export async function orgName(db: Queryable, orgId: string): Promise<string> {
  return (await organizationOf(db, orgId))?.name ?? orgId;
}
