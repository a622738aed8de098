/**
 * Values for a JSON Schema (OpenAPI 3.1 flavour) as fast-check arbitraries: `validValue` keeps to the
 * schema (types, enums, formats, bounds, required properties), `hostileValue` breaks it on purpose,
 * somewhere in the tree: a wrong type, null, a missing required or an extra property, a huge or deep
 * value, NUL and lone surrogates. Only what the documents use is covered; anything else is `{}`.
 */
import fc from 'fast-check';

type Json = Record<string, any>;

/** Strings a server must take in its stride wherever text goes. */
export const hostileStrings: string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '%',
  '%zz',
  '%E0%A4%A',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '=HYPERLINK("http://x")',
  '\u202e\u0301',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'a'.repeat(300),
  'b'.repeat(70_000),
  '9'.repeat(400),
  '-1',
  '1e309',
  'null',
  '{}',
];

/** Values of the wrong kind for any place. */
function wrongKinds(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constant(null),
    fc.constant(true),
    fc.integer(),
    fc.double(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER * 1024, -0, 1e308),
    fc.constantFrom(...hostileStrings),
    fc.constant([]),
    fc.constant({}),
    fc.array(fc.string(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
  );
}

/**
 * Nested arrays or objects `depth` deep: the stack of any recursive walk of a body. Held as JSON text,
 * since JSON.stringify itself would overflow on it; `toJsonText` splices it in.
 */
class DeepJson {
  readonly text: string;
  constructor(depth: number, kind: 'array' | 'object') {
    this.text = kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  }
}

/** JSON text of a generated value, DeepJson parts included. */
export function toJsonText(value: unknown): string {
  const deep: string[] = [];
  const text =
    JSON.stringify(value, (_key, v: unknown) => {
      if (!(v instanceof DeepJson)) return v;
      deep.push(v.text);
      return `\u0000deep${deep.length - 1}\u0000`;
    }) ?? 'null';
  return text.replace(/"\\u0000deep(\d+)\\u0000"/g, (_, i: string) => deep[Number(i)]!);
}

export class SchemaValues {
  constructor(private readonly doc: Json) {}

  private resolve(schema: Json | undefined): Json {
    let current = schema ?? {};
    for (let hops = 0; current.$ref && hops < 20; hops++) {
      current =
        (current.$ref as string)
          .slice(2)
          .split('/')
          .reduce((node: Json | undefined, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc) ?? {};
    }
    return current;
  }

  validValue(input: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
    const schema = this.resolve(input);
    if (depth > 6) return fc.constant(null);
    if ('const' in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum) && schema.enum.length) return fc.constantFrom(...(schema.enum as unknown[]));
    const options = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
    if (options?.length) return fc.oneof(...options.map((o) => this.validValue(o, depth + 1)));
    if (Array.isArray(schema.allOf) && schema.allOf.length) {
      const merged = (schema.allOf as Json[]).map((part) => this.resolve(part)).reduce(mergeObjects, {});
      return this.validValue({ ...schema, ...merged, allOf: undefined }, depth + 1);
    }
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
    const type = types.find((t) => t !== 'null') ?? (schema.properties ? 'object' : undefined);
    const value = this.valueOfType(type, schema, depth);
    return types.includes('null') ? fc.option(value, { nil: null, freq: 5 }) : value;
  }

  private valueOfType(type: string | undefined, schema: Json, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'string':
        return stringFor(schema);
      case 'integer':
        return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000 });
      case 'number':
        return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000, noNaN: true, noDefaultInfinity: true });
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(this.validValue(schema.items as Json, depth + 1), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.min(schema.maxItems ?? 4, Math.max(schema.minItems ?? 0, 4)),
        });
      case 'object': {
        const properties = (schema.properties ?? {}) as Record<string, Json>;
        const required = new Set<string>((schema.required as string[] | undefined) ?? []);
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [name, property] of Object.entries(properties)) record[name] = this.validValue(property, depth + 1);
        return fc.record(record, { requiredKeys: [...required].filter((name) => name in properties) });
      }
      default:
        return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant({}));
    }
  }

  /** A valid value with one place in it broken. */
  hostileValue(input: Json | undefined): fc.Arbitrary<unknown> {
    const schema = this.resolve(input);
    return fc.oneof(
      { weight: 3, arbitrary: this.breakOnePlace(schema, 0) },
      { weight: 1, arbitrary: wrongKinds() },
      { weight: 1, arbitrary: fc.constantFrom(new DeepJson(10_000, 'array'), new DeepJson(10_000, 'object'), new DeepJson(64, 'object')) },
    );
  }

  private breakOnePlace(input: Json, depth: number): fc.Arbitrary<unknown> {
    const schema = this.resolve(input);
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    const names = Object.keys(properties);
    if (!names.length || depth > 4) return wrongKinds();
    return fc.tuple(this.validValue(schema, depth), fc.constantFrom(...names), fc.nat(5)).chain(([base, name, how]) => {
      const record = { ...(base as Record<string, unknown>) };
      if (how === 0) {
        delete record[name];
        return fc.constant(record);
      }
      if (how === 1) return fc.constant({ ...record, ['unexpected_' + name]: 'extra' });
      if (how === 2) return fc.constantFrom(...hostileStrings).map((text) => ({ ...record, [name]: text }));
      if (how === 3) return this.breakOnePlace(properties[name]!, depth + 1).map((inner) => ({ ...record, [name]: inner }));
      if (how === 4)
        return fc.constantFrom(new DeepJson(10_000, 'object'), new DeepJson(5_000, 'array')).map((deep) => ({ ...record, [name]: deep }));
      return wrongKinds().map((wrong) => ({ ...record, [name]: wrong }));
    });
  }
}

function mergeObjects(into: Json, part: Json): Json {
  return {
    ...into,
    ...part,
    properties: { ...(into.properties ?? {}), ...(part.properties ?? {}) },
    required: [...((into.required as string[]) ?? []), ...((part.required as string[]) ?? [])],
  };
}

function stringFor(schema: Json): fc.Arbitrary<string> {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = Math.min((schema.maxLength as number | undefined) ?? 24, Math.max(min, 24));
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'uri':
      return fc.webUrl();
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      // A pattern JavaScript cannot read: fall through to plain text.
    }
  }
  return fc.string({ minLength: min, maxLength: max });
}
