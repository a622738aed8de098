/**
 * `Prefer: dynamic=true`: a body generated from the response schema by json-schema-faker (made for
 * it: JSON Schema 2020-12, which OpenAPI 3.1 schemas are, formats, patterns, `$ref`), so it passes
 * the contract check as the examples do. The document's components go along as the root the
 * schema's `#/components/...` references resolve against. Each call gives other values.
 *
 * Limits: values are random within the schema, not realistic (a name is letters, not a name), and
 * rules only the server's code knows (a page's `totalPages` agreeing with `totalElements`) do not hold.
 */
import { generate } from 'json-schema-faker';

type Json = Record<string, any>;

export async function generateFromSchema(doc: Json, schema: Json | undefined): Promise<unknown> {
  if (!schema) return undefined;
  // json-schema-faker's default seed is fixed; a seed per call makes each answer new, as Prism's are.
  const seed = Math.floor(Math.random() * 2 ** 31);
  return generate({ ...schema, components: doc.components }, { seed, maxDefaultItems: 3, optionalsProbability: 0.8 });
}
