/** Publishes every OpenAPI document the server implements, as JSON and YAML, and an index at /openapi. */
import YAML from 'yaml';
import { documentNames } from '../../generated/openapi/index.ts';
import type { operations } from '../../generated/openapi/ops.ts';
import { notFound } from '../errors.ts';
import { loadOpenApiDocument, withBaseUrl } from '../http/openapi-docs.ts';
import type { OperationHandlers } from '../http/openapi-routes.ts';

export function openApiDocHandlers(baseUrl: string): Pick<OperationHandlers<operations>, 'listOpenApiDocuments' | 'getOpenApiDocument'> {
  // Rendered on first request, not at start: most servers never publish a document, and the YAML
  // of all eight takes longer than the rest of the start-up.
  const rendered = new Map<string, string>();
  const render = (name: string, format: 'json' | 'yaml'): string => {
    const key = `${name}.${format}`;
    let text = rendered.get(key);
    if (text === undefined) {
      const doc = withBaseUrl(loadOpenApiDocument(name), baseUrl);
      text = format === 'json' ? JSON.stringify(doc) : YAML.stringify(doc, { aliasDuplicateObjects: false });
      rendered.set(key, text);
    }
    return text;
  };
  return {
    listOpenApiDocuments: async () => ({
      documents: documentNames.map((name) => ({ name, json: `/openapi/${name}.json`, yaml: `/openapi/${name}.yaml` })),
    }),
    getOpenApiDocument: async (request, reply) => {
      const match = /^(.+)\.(json|yaml)$/.exec(request.params.document);
      const name = documentNames.find((n) => n === match?.[1]);
      if (!match || !name) throw notFound(`No OpenAPI document named ${request.params.document}`);
      return match[2] === 'json'
        ? reply.type('application/json; charset=utf-8').send(render(name, 'json'))
        : reply.type('application/yaml; charset=utf-8').send(render(name, 'yaml'));
    },
  };
}
