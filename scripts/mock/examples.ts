/**
 * The examples an OpenAPI document gives, as the mock server answers with them and its test sends
 * them: a media type's `example`, else the first of its `examples`, else its schema's `example` or
 * first `examples` entry (references followed).
 */
type Json = Record<string, any>;

export function resolve(doc: Json, node: Json | undefined): Json | undefined {
  let current = node;
  for (let hops = 0; current && typeof current.$ref === 'string' && current.$ref.startsWith('#/') && hops < 20; hops++) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((n: Json | undefined, key) => n?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return current;
}

/** The example of a media type object or of a parameter; undefined when the document gives none. */
export function exampleOf(doc: Json, holder: Json | undefined): unknown {
  if (!holder) return undefined;
  if (holder.example !== undefined) return holder.example;
  const first = Object.values<Json>(holder.examples ?? {})[0];
  if (first) return resolve(doc, first)?.value;
  const schema = resolve(doc, holder.schema);
  if (schema?.example !== undefined) return schema.example;
  if (Array.isArray(schema?.examples) && schema.examples.length) return schema.examples[0];
  return undefined;
}

/** The names of a media type object's `examples` (`Prefer: example=<name>` picks one). */
export function exampleNames(holder: Json | undefined): string[] {
  return Object.keys(holder?.examples ?? {});
}

/** The value of the example named `name` of a media type object, undefined when it has none of that name. */
export function namedExample(doc: Json, holder: Json | undefined, name: string): { value: unknown } | undefined {
  const entry = holder?.examples && Object.hasOwn(holder.examples, name) ? resolve(doc, holder.examples[name]) : undefined;
  return entry ? { value: entry.value } : undefined;
}
