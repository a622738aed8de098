/**
 * The mock server of `npm run mock`: every REST operation of every OpenAPI document answered from
 * the document's own examples, and GraphQL answered from the schema (graphql.ts), for a frontend
 * team that starts before the server exists. It answers like the real server wherever that does not
 * need stored data, by running the server's own code:
 *
 * - requests go through the server's `registerOperations`, so parameters, bodies and security are
 *   checked exactly as the real server checks them (a bad request is the same 400 Problem Details);
 * - the response type is negotiated by the server's negotiate() from `Accept` and `format` (406
 *   Problem Details, `format=yaml` included) and XML and CSV are written by the server's serializers
 *   (operation-answer.ts, representations.ts); a file or image has a real type, never `*\/*`;
 * - /scim/v2 is the server's SCIM scope (src/identity/scim/scim.plugin.ts): SCIM error bodies for
 *   every refusal, any bearer token standing for one tenant.
 *
 * Any bearer token is accepted, with every role. Each operation answers its first documented 2xx
 * status with that response's example. `Prefer` picks another answer, as Prism reads it:
 * `code=<status>` another documented response (undocumented: 400), `example=<name>` a named
 * example (unknown: 400 naming the known ones), `dynamic=true` a body generated from the schema.
 */
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { documentNames, type DocumentName } from '../../generated/openapi/index.ts';
import type { operations as ScimOperations } from '../../generated/openapi/scim.ts';
import type { Config } from '../../src/config.ts';
import { AppError } from '../../src/errors.ts';
import { createHttpServer } from '../../src/http/http-server.ts';
import { SERVED_METHODS } from '../../src/http/openapi-methods.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { registerOperations, type OperationHandler, type OperationHandlers, type ValidatorSet } from '../../src/http/openapi-routes.ts';
import { registerRestPlumbing } from '../../src/http/rest-area.ts';
import { registerScimScope, SCIM_PREFIX } from '../../src/identity/scim/scim.plugin.ts';
import { registerMockGraphQL } from './graphql.ts';
import { answerFromExamples } from './operation-answer.ts';

type Json = Record<string, any>;
const MOCK_PRINCIPAL = { userId: 'mock', roles: ['ADMIN', 'USER'], tenantRoles: [], storedUserId: null, tenantId: null, sessionId: null };

async function validatorsOf(name: DocumentName): Promise<ValidatorSet> {
  const [params, bodies] = await Promise.all([
    import(`../../generated/validators/${name}.params.js`) as Promise<ValidatorSet['params']>,
    import(`../../generated/validators/${name}.bodies.js`) as Promise<ValidatorSet['bodies']>,
  ]);
  return { params, bodies };
}

/** An example-answering handler for every operation of the document, by operationId. */
function handlersOf(name: DocumentName): Record<string, OperationHandler<unknown>> {
  const doc = loadOpenApiDocument(name);
  const handlers: Record<string, OperationHandler<unknown>> = {};
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const method of SERVED_METHODS) {
      const op = item[method];
      if (op?.operationId) handlers[op.operationId as string] = answerFromExamples(doc, item, op);
    }
  }
  return handlers;
}

export async function createMockServer(config: Config): Promise<FastifyInstance> {
  const http = createHttpServer(config);
  await registerRestPlumbing(http);
  await http.register(formbody);
  // Problem Details bodies arrive as +json media types.
  http.addContentTypeParser(/^application\/[\w.-]+\+json$/, { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string));
    } catch {
      done(new AppError('VALIDATION', 'The request body is not valid JSON'), undefined);
    }
  });
  http.addHook('onRequest', (request, _reply, done) => {
    if (/^Bearer \S+/i.test(request.headers.authorization ?? '')) request.principal = MOCK_PRINCIPAL;
    done();
  });
  for (const name of documentNames) {
    if (name === 'scim') continue;
    registerOperations(http, name, await validatorsOf(name), handlersOf(name));
  }
  // SCIM in the server's own scope, its errors SCIM error messages; every token is one tenant's.
  // One handler for every operation of the document (handlersOf).
  const scimHandlers = handlersOf('scim') as OperationHandlers<ScimOperations>;
  await http.register(async (scim) => registerScimScope(scim, { tenantForToken: async () => 'mock-tenant', handlers: scimHandlers }), {
    prefix: SCIM_PREFIX,
  });
  registerMockGraphQL(http, config);
  return http;
}
