/**
 * Answers any operation can give before its handler runs, written once here and referenced from every
 * operation of every bundled document, so the published documents list every status the server sends
 * (the fuzz run checks that they do) without each handwritten operation repeating them:
 *
 * - 414 and 431 for every operation: a path segment over 255 characters, a request line and headers
 *   over 16 KiB (node's parser, before routing);
 * - 413 and 415 for every operation that takes no body but is sent one (POST, PUT, PATCH, DELETE): a
 *   body over the limit, or of a type the server does not read.
 *
 * Under /scim/v2 the body is SCIM's Error message; elsewhere Problem Details.
 */
import { PATH_ITEM_METHODS } from '../../src/http/openapi-methods.ts';

type Json = Record<string, any>;

interface Shape {
  mediaType: string;
  schema: string;
  example(doc: Json, status: number, detail: string, type: string, scimDetail?: string): Json;
}

/** The title the Problem schema's `x-problem-types` gives `/problems/<type>`: the one list of them. */
function titleOf(doc: Json, type: string): string {
  const listed: Json[] = doc.components?.schemas?.Problem?.['x-problem-types'] ?? [];
  const title: unknown = listed.find((entry) => entry?.type === `/problems/${type}`)?.title;
  if (typeof title !== 'string')
    throw new Error(`${String(doc.info?.title)}: x-problem-types of the Problem schema lists no /problems/${type}`);
  return title;
}

const PROBLEM: Shape = {
  mediaType: 'application/problem+json',
  schema: '#/components/schemas/Problem',
  example: (doc, status, detail, type) => ({
    type: `/problems/${type}`,
    title: titleOf(doc, type),
    status,
    detail,
    instance: '/api/v1/products',
  }),
};

const SCIM: Shape = {
  mediaType: 'application/scim+json',
  schema: '#/components/schemas/Error',
  example: (_doc, status, detail, _type, scimDetail) => ({
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: String(status),
    detail: scimDetail ?? detail,
  }),
};

interface TransportResponse {
  status: number;
  type: string;
  description: string;
  /** What the server says (src/http/framework-errors.ts). */
  detail: string;
  /** Where SCIM words it its own way (src/identity/scim/scim-error-handler.ts). */
  scimDetail?: string;
}

const RESPONSES: Record<string, TransportResponse> = {
  UriTooLong: {
    status: 414,
    type: 'uri-too-long',
    description: 'A path segment is longer than 255 characters (checked before routing, for every operation).',
    detail: 'A path segment is longer than 255 characters',
  },
  HeaderFieldsTooLarge: {
    status: 431,
    type: 'header-fields-too-large',
    description: 'The request line and headers exceed 16,384 bytes (checked before routing, for every operation).',
    detail: 'The request line and headers exceed 16384 bytes',
  },
  UnexpectedBodyTooLarge: {
    status: 413,
    type: 'payload-too-large',
    description: 'The operation takes no request body, and the one sent exceeds the body limit.',
    detail: 'The request body is too large',
  },
  UnexpectedBodyType: {
    status: 415,
    type: 'unsupported-media-type',
    description: 'The operation takes no request body, and the one sent is of a type the server does not read.',
    detail: 'Unsupported request content type',
    scimDetail: 'Request bodies must be application/scim+json or application/json',
  },
};

const EVERY_OPERATION = ['UriTooLong', 'HeaderFieldsTooLarge'];
const BODILESS_WRITES = ['UnexpectedBodyTooLarge', 'UnexpectedBodyType'];
const WRITES = new Set(['post', 'put', 'patch', 'delete']);

/** Adds the shared responses to `doc` (a bundled document) in place. */
export function addTransportResponses(doc: Json): void {
  const shape = doc.components?.schemas?.Problem ? PROBLEM : doc.components?.schemas?.Error ? SCIM : null;
  if (!shape) throw new Error(`${String(doc.info?.title)}: neither a Problem nor a SCIM Error schema to answer transport errors with`);
  doc.components.responses ??= {};
  for (const [name, r] of Object.entries(RESPONSES)) {
    doc.components.responses[name] = {
      description: r.description,
      content: {
        [shape.mediaType]: { schema: { $ref: shape.schema }, example: shape.example(doc, r.status, r.detail, r.type, r.scimDetail) },
      },
    };
  }
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const method of PATH_ITEM_METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const names = [...EVERY_OPERATION, ...(WRITES.has(method) && !operation.requestBody ? BODILESS_WRITES : [])];
      for (const name of names) {
        const status = String(RESPONSES[name]!.status);
        operation.responses[status] ??= { $ref: `#/components/responses/${name}` };
      }
    }
  }
}
