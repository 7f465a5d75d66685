import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { esc } from '../../http/pages.ts';
import { CONSENT } from '../../i18n/consent.ts';
import type { Services } from '../../services.ts';
import { consentLocale } from '../texts.ts';
import { revokeByPerson, voiceByRevokeToken } from '../consent.ts';
import { browserLocale, consentPage, consentRoutes, headers, hide, message } from './view.ts';
import { orgName } from '../../db/organizations.ts';

// GET /consent/revoke/:token: the receipt mail's link, a page with one button that withdraws the
// consent (a plain form: works without the script; revoke.ts). Once withdrawn, or when there is
// nothing left to withdraw, it says so.

/** The withdrawal page, after withdrawing when `withdraw`. */
export async function revokePage(s: Services, req: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply, withdraw: boolean) {
  const found = await voiceByRevokeToken(s.pool, req.params.token);
  if (!found) {
    const l = browserLocale(req);
    return message(reply, l, 404, CONSENT[l.lang].notFound, 'not_found');
  }
  const l = consentLocale(found.language);
  const t = CONSENT[l.lang];
  const org = await orgName(s.pool, found.org_id);
  const r = withdraw ? ((await revokeByPerson(s, req.params.token)) ?? found) : found;
  if (r.status === 'revoked') return message(reply, l, 200, [t.revokedHeading, t.revoked(r.name, org, !withdraw)], 'revoked');
  if (r.status === 'failed' || r.status === 'expired') return message(reply, l, 200, [t.nothingHeading, t.nothing(r.name)], r.status);
  const path = `/consent/revoke/${encodeURIComponent(req.params.token)}`;
  const main =
    `<h1>${esc(t.revokeTitle)}</h1>` +
    `<p>${esc(t.revokeAgreed(org, r.name))}</p>` +
    `<p>${esc(t.revokeWarning)}</p>` +
    `<form method="post" action="${esc(path)}"><button type="submit" class="danger primary" id="withdraw">${esc(t.revokeButton)}</button></form>`;
  return headers(reply).send(consentPage(l, t.revokeTitle, main));
}

export default function register(app: FastifyInstance, s: Services) {
  consentRoutes(app, s, (c) => c.get<{ Params: { token: string } }>('/consent/revoke/:token', hide, (req, reply) => revokePage(s, req, reply, false)));
}
