/** Publishes every OpenAPI document the server implements, as JSON and YAML, and an index at /openapi. */
import YAML from 'yaml';
import { documentNames } from '../../generated/openapi/index.ts';
import type { operations } from '../../generated/openapi/ops.ts';
import { notFound } from '../errors.ts';
import { loadOpenApiDocument, withBaseUrl } from '../http/openapi-docs.ts';
import type { OperationHandlers } from '../http/openapi-routes.ts';

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
