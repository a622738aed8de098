/**
 * `Prefer: dynamic=true`: a body generated from the response schema by json-schema-faker (made for
 * it: JSON Schema 2020-12, which OpenAPI 3.1 schemas are, formats, patterns), so it passes the
 * contract check as the examples do. Each call gives other values.
 *
 * The schema's references are inlined first: json-schema-faker takes a second visit of the same
 * `$ref` (the second image of a product) for a cycle and fills it with empty values that break the
 * schema. A schema that really refers to itself is cut off after MAX_DEPTH references.
 *
 * What the schema states holds, so the documents state what the server keeps: bounds (a price at
 * least 0.01, a stock quantity at least 0) and rules between fields as `if`/`then`/`else` (a
 * product's `inStock` true exactly when its quantity is above 0). json-schema-faker generates a
 * conditional's `then` branch, the `if` merged in, whenever it can, so `else` would never show; the
 * mock gives it the conditional as the choice `anyOf: [{allOf: [if, then]}, else]`, of which it
 * picks a branch at random for each value (each product of a page). json-schema-faker does not
 * negate the `if` for `else`: an `else` must itself state what makes the `if` fail
 * (ProductResponse's sets the quantity to 0), or a value taking it may match the `if` as well. A
 * schema with an `anyOf` of its own keeps its conditional as it is (always `then`).
 *
 * Limits: values are random within the schema, not realistic (a name is letters, not a name; a
 * price has more than 2 decimals, which the schemas state in words only), and rules only the
 * server's code knows (a page's `totalPages` agreeing with `totalElements`) do not hold.
 */
import { generate } from 'json-schema-faker';
import { resolve } from './examples.ts';

type Json = Record<string, any>;

const MAX_DEPTH = 8;

/** An `if`/`then`/`else` as a choice between its branches (see the header); other schemas as they are. */
function conditionalAsChoice(object: Json): Json {
  const { if: condition, then: consequence, else: alternative, ...rest } = object;
  if (condition === undefined || consequence === undefined || alternative === undefined || rest.anyOf !== undefined) return object;
  return { ...rest, anyOf: [{ allOf: [condition, consequence] }, alternative] };
}

/** The schema json-schema-faker is given for `node`: references inlined, conditionals made choices. */
function inline(doc: Json, node: unknown, depth: number): unknown {
  if (Array.isArray(node)) return node.map((n) => inline(doc, n, depth));
  if (typeof node !== 'object' || node === null) return node;
  const object = node as Json;
  if (typeof object.$ref === 'string') return depth >= MAX_DEPTH ? {} : inline(doc, resolve(doc, object), depth + 1);
  return Object.fromEntries(Object.entries(conditionalAsChoice(object)).map(([key, value]) => [key, inline(doc, value, depth)]));
}

export async function generateFromSchema(doc: Json, schema: Json | undefined): Promise<unknown> {
  if (!schema) return undefined;
  // json-schema-faker's default seed is fixed; a seed per call makes each answer new, as Prism's are.
  const seed = Math.floor(Math.random() * 2 ** 31);
  return generate(inline(doc, schema, 0) as Json, { seed, maxDefaultItems: 3, optionalsProbability: 0.8 });
}
