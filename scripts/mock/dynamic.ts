/**
 * `Prefer: dynamic=true`: a body generated from the response schema by json-schema-faker (made for
 * it: JSON Schema 2020-12, which OpenAPI 3.1 schemas are, formats, patterns), so it passes the
 * contract check as the examples do. Each call gives other values.
 *
 * The schema's references are inlined first: json-schema-faker takes a second visit of the same
 * `$ref` (the second image of a product) for a cycle and fills it with empty values that break the
 * schema. A schema that really refers to itself is cut off after MAX_DEPTH references.
 *
 * Limits: values are random within the schema, not realistic (a name is letters, not a name), and
 * rules only the server's code knows (a page's `totalPages` agreeing with `totalElements`) do not hold.
 */
import { generate } from 'json-schema-faker';
import { resolve } from './examples.ts';

type Json = Record<string, any>;

const MAX_DEPTH = 8;

function inline(doc: Json, node: unknown, depth: number): unknown {
  if (Array.isArray(node)) return node.map((n) => inline(doc, n, depth));
  if (typeof node !== 'object' || node === null) return node;
  const object = node as Json;
  if (typeof object.$ref === 'string') return depth >= MAX_DEPTH ? {} : inline(doc, resolve(doc, object), depth + 1);
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, inline(doc, value, depth)]));
}

export async function generateFromSchema(doc: Json, schema: Json | undefined): Promise<unknown> {
  if (!schema) return undefined;
  // json-schema-faker's default seed is fixed; a seed per call makes each answer new, as Prism's are.
  const seed = Math.floor(Math.random() * 2 ** 31);
  return generate(inline(doc, schema, 0) as Json, { seed, maxDefaultItems: 3, optionalsProbability: 0.8 });
}
