/**
 * The SCIM plugin, the /scim/v2 scope: a sibling of the tenants plugin (src/identity/tenants/) with its own authentication
 * (a tenant's SCIM token, not a JWT), its own body parser (application/scim+json) and its own error
 * and not-found handlers, so that every answer under /scim/v2, failures included (401, unknown route,
 * wrong method, malformed JSON, 413, 415), is SCIM: application/scim+json, the SCIM error message.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { operations } from '../../../generated/openapi/scim.ts';
import * as bodies from '../../../generated/validators/scim.bodies.js';
import * as params from '../../../generated/validators/scim.params.js';
import { unauthenticated } from '../../errors.ts';
import { renderFrameworkErrorsUnder } from '../../http/http-server.ts';
import { boundedJsonParser } from '../../http/json-body.ts';
import { registerOperations, type OperationHandlers } from '../../http/openapi-routes.ts';
import { answerUnroutedRequests } from '../../http/unrouted.ts';
import type { Services } from '../../services.ts';
import { recordScimActivity, type ScimActivityEntry } from './scim-activity.ts';
import { rawScimError, scimError, sendScimError } from './scim-error-handler.ts';
import { SCIM_MEDIA_TYPE } from './scim-media-type.ts';
import { scimHandlers } from './scim.handlers.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the request's SCIM token (set by the /scim/v2 scope's hook), else null. */
    scimTenantId: string | null;
  }
}

export const SCIM_PREFIX = '/scim/v2';

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

interface ScimPluginOptions {
  services: Pick<Services, 'scimTokens' | 'scimUsers' | 'scimGroups' | 'scimActivity'>;
  baseUrl: string;
}

/** Register with `{ prefix: SCIM_PREFIX }`: the not-found handler then answers for that prefix only. */
export const scimPlugin: FastifyPluginAsync<ScimPluginOptions> = async (scim, { services, baseUrl }) => {
  registerScimScope(scim, {
    tenantForToken: (token) => services.scimTokens.tenantForToken(token),
    handlers: scimHandlers(services, baseUrl),
    recordActivity: (tenantId, entry) => services.scimActivity.record(tenantId, entry),
  });
};

interface ScimScopeParts {
  /** The tenant a SCIM token belongs to, or null for a token that is not one. */
  tenantForToken: (token: string) => Promise<string | null>;
  handlers: OperationHandlers<operations>;
  /** Stores what a tenant's request was and how it ended (the mock server records nothing). */
  recordActivity?: (tenantId: string, entry: ScimActivityEntry) => Promise<void>;
}

/**
 * Everything of the scope but its services, apart so that the mock server (scripts/mock/) serves its
 * example answers behind the same parser, authentication, error and not-found handling.
 */
export function registerScimScope(scim: FastifyInstance, { tenantForToken, handlers, recordActivity }: ScimScopeParts): void {
  scim.decorateRequest('scimTenantId', null);
  if (recordActivity) recordScimActivity(scim, recordActivity, scim.log);

  // Both media types, parsed alike. Provisioning clients send their Content-Type on every request,
  // GET and DELETE included, so an empty body is no body rather than malformed JSON.
  const json = boundedJsonParser(scim, { emptyIsNoBody: true });
  scim.removeContentTypeParser('application/json');
  scim.addContentTypeParser(['application/json', 'application/scim+json'], { parseAs: 'string' }, (request, body, done) =>
    json(request, body.toString(), done),
  );

  // Every request, the not-found handler's included: the token's tenant, or 401.
  scim.addHook('onRequest', async (request) => {
    const match = BEARER.exec(request.headers.authorization ?? '');
    const tenantId = match ? await tenantForToken(match[1]!) : null;
    if (!tenantId) throw unauthenticated('A valid SCIM token is required: Authorization: Bearer <token>');
    request.scimTenantId = tenantId;
  });

  scim.setErrorHandler((error, request, reply) => sendScimError(error, request, reply));
  // A URL Fastify refuses before routing (broken percent-encoding, an overlong segment) too.
  renderFrameworkErrorsUnder(scim, SCIM_PREFIX, sendScimError, rawScimError);

  answerUnroutedRequests(scim, {
    notFound: (method, path) => `No SCIM endpoint ${method} ${path}`,
    send: (_request, reply, status, detail) => reply.type(SCIM_MEDIA_TYPE).send(scimError(status, detail)),
  });

  registerOperations<operations>(scim, 'scim', { params, bodies }, handlers, {
    prefix: SCIM_PREFIX,
    isAuthenticated: (request) => request.scimTenantId !== null,
  });
}
