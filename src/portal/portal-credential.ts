/**
 * The portal session as a caller: the `sf_portal` cookie of a live session becomes a principal
 * that holds ADMIN in the session's tenant only (no platform role, no stored user) and carries the
 * session's intents, which registerOperations' guard holds it to. An unsafe request authenticated
 * by the cookie must come from a page of this server, as with the sign-in cookie (decision 90);
 * SameSite=Strict already keeps other sites' requests from carrying it.
 */
import type { Authenticator } from '../auth/authenticate.ts';
import { ADMIN, type Principal } from '../auth/principal.ts';
import { portalCookieOf } from '../auth/portal-cookie.ts';
import { crossSiteRefusal } from '../auth/session-cookie.ts';
import { forbidden } from '../errors.ts';
import type { PortalService } from './portal.service.ts';

export function createPortalAuthenticator(portal: PortalService, allowedOrigin: string): Authenticator {
  return async (req) => {
    const token = portalCookieOf(req);
    if (token === null) return null;
    const refusal = crossSiteRefusal(req, allowedOrigin);
    if (refusal) throw forbidden(refusal.replace('the session cookie', 'the portal cookie'));
    const session = await portal.read(token);
    if (!session) return null;
    const principal: Principal = {
      userId: `portal:${session.id}`,
      roles: [],
      tenantRoles: [ADMIN],
      storedUserId: null,
      tenantId: session.tenant_id,
      sessionId: null,
      portal: { sessionId: session.id, intents: session.intents },
    };
    return principal;
  };
}
