/**
 * openapi/portal.yaml: opening a portal session with a link, reading it, closing it. The session's
 * token travels only in the `sf_portal` cookie, never in a body.
 */
import type { operations } from '../../generated/openapi/portal.ts';
import { clearedPortalCookieHeader, portalCookieHeader } from '../auth/portal-cookie.ts';
import { replaceCookie } from '../auth/session-cookie.ts';
import { unauthenticated } from '../errors.ts';
import type { OperationHandlers } from '../http/openapi-routes.ts';
import type { Services } from '../services.ts';
import { SESSION_IDLE_S } from './portal.service.ts';
import { toPortalSession } from './portal.representation.ts';

const noSession = () => unauthenticated('This operation needs a portal session (open a portal link first)');

export function portalHandlers({ portal }: Pick<Services, 'portal'>, baseUrl: string): OperationHandlers<operations> {
  const secure = new URL(baseUrl).protocol === 'https:';
  return {
    openPortalSession: async (request, reply) => {
      const opened = await portal.open(request.body.link);
      const maxAge = Math.max(0, Math.floor((opened.session.expires_at.getTime() - Date.now()) / 1000));
      replaceCookie(reply, portalCookieHeader(opened.token, maxAge, secure));
      reply.code(201).header('Cache-Control', 'no-store');
      return toPortalSession(opened.session, opened.tenantName, SESSION_IDLE_S);
    },

    getPortalSession: async (request, reply) => {
      const sessionId = request.principal?.portal?.sessionId;
      const described = sessionId ? await portal.describe(sessionId) : null;
      if (!described) throw noSession();
      reply.header('Cache-Control', 'no-store');
      return toPortalSession(described.session, described.tenantName, SESSION_IDLE_S);
    },

    closePortalSession: async (request, reply) => {
      const sessionId = request.principal?.portal?.sessionId;
      if (!sessionId) throw noSession();
      await portal.close(sessionId);
      replaceCookie(reply, clearedPortalCookieHeader(secure));
      return reply.code(204).send();
    },
  };
}
