/**
 * The tests' check of schema-serialised answers (decision 140): fast-json-stringify writes only what a
 * response schema declares, so a handler's value with a member the schema lacks would lose it without
 * a word. On a server a test builds, every route with a response schema keeps the value its handler
 * answered before serialisation, and the bytes sent must parse to what JSON.stringify would have
 * written, else the request fails with the difference (500, logged). Installed before the areas'
 * plugins load (they register their routes when the server starts listening), so it sees every route;
 * production runs without it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { isJsonMediaType } from '../../src/http/response-schemas.ts';

const ORIGINAL = Symbol('the JSON value before serialisation');

async function keep(request: FastifyRequest, _reply: FastifyReply, payload: unknown): Promise<unknown> {
  (request as unknown as Record<symbol, unknown>)[ORIGINAL] = payload;
  return payload;
}

async function compare(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const original = (request as unknown as Record<symbol, unknown>)[ORIGINAL];
  const type = reply.getHeader('content-type');
  if (original === undefined || typeof payload !== 'string' || typeof type !== 'string' || !isJsonMediaType(type)) return payload;
  const expected: unknown = JSON.parse(JSON.stringify(original));
  if (!isDeepStrictEqual(JSON.parse(payload), expected)) {
    throw new Error(`response schema serialisation differs from JSON.stringify: sent ${payload}, expected ${JSON.stringify(expected)}`);
  }
  return payload;
}

const asList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

export function checkResponseSerialization(http: FastifyInstance): void {
  http.addHook('onRoute', (route: RouteOptions) => {
    if (!route.schema?.response) return;
    route.preSerialization = [...asList(route.preSerialization), keep] as RouteOptions['preSerialization'];
    route.onSend = [...asList(route.onSend), compare] as RouteOptions['onSend'];
  });
}
