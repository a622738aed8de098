/**
 * Publishes every OpenAPI document the server implements, as JSON and YAML, and an index at /openapi.
 * The bundled documents come from generated/ so what is served is exactly what was validated, except
 * `servers`: the committed documents name a relative server, the served ones the public base address
 * (BASE_URL), so a client generated from a downloaded copy reaches this deployment.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import YAML from 'yaml';
import { documentNames } from '../../generated/openapi/index.ts';
import type { operations } from '../../generated/openapi/ops.ts';
import * as opsBodies from '../../generated/validators/ops.bodies.js';
import * as opsParams from '../../generated/validators/ops.params.js';
import type { Database } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { healthHandlers } from './health.ts';
import { registerOperations, type OperationHandlers } from './openapi-routes.ts';

const GENERATED = path.resolve(import.meta.dirname, '../../generated/openapi');

export type OpenApiDocument = Record<string, any>;

export function loadOpenApiDocument(name: string): OpenApiDocument {
  return JSON.parse(fs.readFileSync(path.join(GENERATED, `${name}.json`), 'utf8'));
}

/** The first server's path (a version base path such as `/api/v1`, or `/`) appended to `baseUrl`. */
export function withBaseUrl(doc: OpenApiDocument, baseUrl: string): OpenApiDocument {
  const [first, ...rest] = (doc.servers ?? [{ url: '/' }]) as { url: string; description?: string }[];
  const basePath = first!.url.startsWith('/') ? first!.url.replace(/\/+$/, '') : '';
  const server = { ...first!, url: `${baseUrl}${basePath}`, description: 'This deployment (its configured public base address).' };
  return { ...doc, servers: [server, ...rest] };
}

export function openApiDocHandlers(baseUrl: string): Pick<OperationHandlers<operations>, 'listOpenApiDocuments' | 'getOpenApiDocument'> {
  const docs = new Map<string, { json: string; yaml: string }>();
  for (const name of documentNames) {
    const doc = withBaseUrl(loadOpenApiDocument(name), baseUrl);
    docs.set(name, { json: JSON.stringify(doc), yaml: YAML.stringify(doc, { aliasDuplicateObjects: false }) });
  }
  return {
    listOpenApiDocuments: async () => ({
      documents: [...docs.keys()].map((name) => ({ name, json: `/openapi/${name}.json`, yaml: `/openapi/${name}.yaml` })),
    }),
    getOpenApiDocument: async (request, reply) => {
      const match = /^(.+)\.(json|yaml)$/.exec(request.params.document);
      const entry = match ? docs.get(match[1]!) : undefined;
      if (!match || !entry) throw notFound(`No OpenAPI document named ${request.params.document}`);
      return match[2] === 'json'
        ? reply.type('application/json; charset=utf-8').send(entry.json)
        : reply.type('application/yaml; charset=utf-8').send(entry.yaml);
    },
  };
}

/**
 * Serves openapi/ops.yaml (probes and these documents) through the same registration as every REST
 * document, so its parameters are validated alike; probes never authenticate (a stale token must not
 * fail them).
 */
export function registerOps(app: FastifyInstance, db: Database, baseUrl: string): void {
  const handlers: OperationHandlers<operations> = { ...healthHandlers(db), ...openApiDocHandlers(baseUrl) };
  registerOperations<operations>(app, loadOpenApiDocument('ops'), { params: opsParams, bodies: opsBodies }, handlers, { skipAuth: true });
}
