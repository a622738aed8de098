/**
 * The self-serve portal's links and sessions (issue 45, openapi/portal.yaml): an ADMIN creates a
 * link for a tenant and a set of intents; opening it once makes a portal session, which the admin
 * and webhooks operations of those intents accept for that tenant (src/http/openapi-routes.ts). The
 * tokens are random and returned once; only their digests are stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { PLATFORM_TENANT } from '../auth/principal.ts';
import { AppError, validationFailed } from '../errors.ts';
import type { Database } from '../db/database.ts';
import { inTransaction } from '../db/transaction.ts';
import { requireTenant } from '../identity/tenants/tenants.repository.ts';
import * as repo from './portal.repository.ts';

export type PortalIntent = 'sso' | 'domains' | 'scim' | 'webhooks';

/** How long a link can be opened unless its creator says otherwise; the most it may say. */
export const LINK_TTL_MINUTES = { default: 15, max: 60 } as const;
/** A portal session's absolute length and its idle end (openapi/portal.yaml). */
const SESSION_TTL_S = 4 * 3600;
export const SESSION_IDLE_S = 15 * 60;
/** A session's last use is written at most this often (the idle end is that much coarser). */
const TOUCH_AFTER_S = 30;

const LINK_PREFIX = 'sfportal_';
const SESSION_PREFIX = 'sfpses_';
/** A prefix and 43 base64url characters (256 random bits): anything else is unknown at once. */
const TOKEN_SHAPE = /^sf(portal|pses)_[A-Za-z0-9_-]{43}$/;

const digestOf = (token: string) => createHash('sha256').update(token).digest('hex');
const newToken = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

const linkRefused = (code: 'PORTAL_LINK_INVALID' | 'PORTAL_LINK_EXPIRED' | 'PORTAL_LINK_USED', message: string) =>
  new AppError('UNAUTHENTICATED', message, code);

export interface IssuedPortalLink {
  token: string;
  link: repo.PortalLinkRow;
}

export interface OpenedPortalSession {
  token: string;
  session: repo.PortalSessionRow;
  tenantName: string;
}

export class PortalService {
  constructor(private readonly db: Database) {}

  /** A new link for `tenantId` (404 when there is none); `createdBy` is the caller's user id. */
  async createLink(tenantId: string, intents: readonly PortalIntent[], minutes: number, createdBy: string): Promise<IssuedPortalLink> {
    // Its ADMINs are the platform's: a portal session of it would be a platform administrator's
    // powers in a link, which the portal is not for.
    if (tenantId === PLATFORM_TENANT) {
      throw validationFailed([
        {
          field: ['tenantId'],
          source: 'parameter',
          message: "is the platform's own tenant, which its administrators manage; portal links are for the others",
        },
      ]);
    }
    await requireTenant(this.db, tenantId);
    const token = newToken(LINK_PREFIX);
    const link = await repo.insertLink(this.db, {
      tenant_id: tenantId,
      intents: [...new Set(intents)],
      token_sha256: digestOf(token),
      created_by: createdBy,
      ttlS: minutes * 60,
    });
    return { token, link };
  }

  /** Uses up the link and opens its session; 401 with why when it cannot. */
  async open(linkToken: string): Promise<OpenedPortalSession> {
    if (!TOKEN_SHAPE.test(linkToken) || !linkToken.startsWith(LINK_PREFIX)) {
      throw linkRefused('PORTAL_LINK_INVALID', 'This portal link is not valid; ask for a new one');
    }
    return inTransaction(this.db, async (trx) => {
      const link = await repo.takeLink(trx, digestOf(linkToken));
      if (link === undefined) throw linkRefused('PORTAL_LINK_INVALID', 'This portal link is not valid; ask for a new one');
      if (link === 'used') throw linkRefused('PORTAL_LINK_USED', 'This portal link was already used; ask for a new one');
      if (link === 'expired') throw linkRefused('PORTAL_LINK_EXPIRED', 'This portal link expired; ask for a new one');
      const tenant = await requireTenant(trx, link.tenant_id);
      const token = newToken(SESSION_PREFIX);
      const session = await repo.insertSession(trx, {
        tenant_id: link.tenant_id,
        link_id: link.id,
        intents: link.intents,
        token_sha256: digestOf(token),
        ttlS: SESSION_TTL_S,
      });
      return { token, session, tenantName: tenant.name };
    });
  }

  /** The live session of a cookie's token, or null (unknown, ended, expired or idle too long). */
  async read(sessionToken: string): Promise<repo.PortalSessionRow | null> {
    if (!TOKEN_SHAPE.test(sessionToken) || !sessionToken.startsWith(SESSION_PREFIX)) return null;
    return (await repo.findLiveSession(this.db, digestOf(sessionToken), SESSION_IDLE_S, TOUCH_AFTER_S)) ?? null;
  }

  /** The session with its tenant's name, for the page (`GET /portal/session`). */
  async describe(sessionId: string): Promise<{ session: repo.PortalSessionRow; tenantName: string } | null> {
    const session = await repo.findSessionById(this.db, sessionId);
    if (!session) return null;
    return { session, tenantName: (await requireTenant(this.db, session.tenant_id)).name };
  }

  /** Ends the session everywhere from the next request on. */
  async close(sessionId: string): Promise<void> {
    await repo.endSession(this.db, sessionId);
  }
}
