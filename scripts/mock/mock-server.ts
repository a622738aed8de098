/**
 * The mock server of `npm run mock`: every REST operation of every OpenAPI document, answered from
 * the document's own examples, for a frontend team that starts before the server exists. Requests go
 * through the server's own `registerOperations`, so parameters, bodies and security are checked
 * exactly as the real server checks them (a bad request is the same 400 Problem Details). Any bearer
 * token is accepted, with every role.
 *
 * Each operation answers its first documented 2xx status with that response's example (JSON by
 * default; the first declared media type when it has no JSON one; a binary body is empty). A
 * `Prefer: code=<status>` request header picks another documented response (e.g. `code=404`), as
 * Prism does; an undocumented one is a 400.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { documentNames, type DocumentName } from '../../generated/openapi/index.ts';
import type { Config } from '../../src/config.ts';
import { AppError } from '../../src/errors.ts';
import { createHttpServer } from '../../src/http/http-server.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { registerOperations, type OperationHandler, type ValidatorSet } from '../../src/http/openapi-routes.ts';
import { registerRestPlumbing } from '../../src/http/rest-area.ts';
import formbody from '@fastify/formbody';
import { exampleOf, resolve } from './examples.ts';
import { SERVED_METHODS } from '../../src/http/openapi-methods.ts';

type Json = Record<string, any>;
const MOCK_PRINCIPAL = { userId: 'mock', roles: ['ADMIN', 'USER'], tenantRoles: [], storedUserId: null, tenantId: null, sessionId: null };

async function validatorsOf(name: DocumentName): Promise<ValidatorSet> {
  const [params, bodies] = await Promise.all([
    import(`../../generated/validators/${name}.params.js`) as Promise<ValidatorSet['params']>,
    import(`../../generated/validators/${name}.bodies.js`) as Promise<ValidatorSet['bodies']>,
  ]);
  return { params, bodies };
}

function requestedStatus(request: FastifyRequest): string | undefined {
  const prefer = request.headers.prefer;
  return typeof prefer === 'string' ? /(?:^|[;,\s])code=(\d{3})/.exec(prefer)?.[1] : undefined;
}

/** Answers one operation from its examples. */
function exampleHandler(doc: Json, op: Json): OperationHandler<unknown> {
  const responses: Json = op.responses ?? {};
  const success =
    Object.keys(responses)
      .filter((s) => /^2/.test(s))
      .sort()[0] ?? Object.keys(responses)[0]!;
  return async (request, reply: FastifyReply) => {
    const status = requestedStatus(request) ?? success;
    const response = resolve(doc, responses[status]);
    if (!response) throw new AppError('VALIDATION', `Prefer: code=${status} is not a documented response of ${op.operationId as string}`);
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      const value = exampleOf(doc, resolve(doc, header));
      if (value !== undefined && name.toLowerCase() !== 'content-type')
        reply.header(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    reply.code(Number(status));
    const content: Json = response.content ?? {};
    const type = Object.keys(content).find((t) => /json/.test(t)) ?? Object.keys(content)[0];
    if (!type) return reply.send();
    const example = exampleOf(doc, content[type]);
    reply.type(/json|xml|csv|text/.test(type) ? `${type}; charset=utf-8` : type);
    if (example === undefined) return reply.send(/json/.test(type) ? 'null' : Buffer.alloc(0));
    return reply.send(/json/.test(type) ? JSON.stringify(example) : typeof example === 'string' ? example : JSON.stringify(example));
  };
}

export async function createMockServer(config: Config): Promise<FastifyInstance> {
  const http = createHttpServer(config);
  await registerRestPlumbing(http);
  await http.register(formbody);
  // SCIM and Problem Details bodies arrive as +json media types.
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
    const doc = loadOpenApiDocument(name);
    const handlers: Record<string, OperationHandler<unknown>> = {};
    for (const item of Object.values<Json>(doc.paths ?? {})) {
      for (const method of SERVED_METHODS) {
        const op = item[method];
        if (op?.operationId) handlers[op.operationId as string] = exampleHandler(doc, op);
      }
    }
    registerOperations(http, name, await validatorsOf(name), handlers);
  }
  return http;
}
