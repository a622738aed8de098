/**
 * REST requests drawn from the OpenAPI documents: every operation of every document, its path, query,
 * headers and body built from the operation's own schemas, valid or broken on purpose (see
 * schema-values.ts), plus what no schema describes: ids that are not ids, broken percent-encoding, a
 * wrong or missing content type, malformed JSON and multipart, a body where none is taken, huge headers.
 */
import fc from 'fast-check';
import { PATH_ITEM_METHODS } from '../../src/http/openapi-methods.ts';
import { hostileStrings, SchemaValues, toJsonText } from './schema-values.ts';

type Json = Record<string, any>;

export type Caller = 'anonymous' | 'user' | 'admin' | 'scim';

export interface FuzzRequest {
  kind: 'rest' | 'graphql';
  /** What it exercises: `doc operationId` or `graphql …`. */
  label: string;
  method: string;
  path: string;
  caller: Caller;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** Known ids for path parameters, by parameter name (`id`, `tenantId`, …): a real one now and then. */
export type IdPool = Record<string, string[]>;

interface Operation {
  doc: string;
  name: string;
  method: string;
  template: string;
  operation: Json;
  parameters: Json[];
}

function operationsOf(docs: Record<string, Json>): Operation[] {
  const found: Operation[] = [];
  for (const [doc, document] of Object.entries(docs)) {
    for (const [template, item] of Object.entries<Json>(document.paths ?? {})) {
      for (const method of PATH_ITEM_METHODS) {
        const operation = item[method] as Json | undefined;
        if (!operation) continue;
        const parameters = [...((item.parameters as Json[]) ?? []), ...((operation.parameters as Json[]) ?? [])].map((p) =>
          resolve(document, p),
        );
        found.push({ doc, name: operation.operationId as string, method: method.toUpperCase(), template, operation, parameters });
      }
    }
  }
  return found;
}

function resolve(doc: Json, value: Json): Json {
  let current = value;
  for (let hops = 0; current?.$ref && hops < 20; hops++) {
    current = (current.$ref as string)
      .slice(2)
      .split('/')
      .reduce((node: Json | undefined, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Json;
  }
  return current ?? {};
}

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) goes out as the three bytes a
 * careless encoder would send for it (WTF-8), which no UTF-8 decoder accepts.
 */
function encodeLoosely(text: string): string {
  return text
    .split(/([\ud800-\udfff])/)
    .map((part) => (part.length === 1 && /[\ud800-\udfff]/.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');
}

/** Segments that are not what a path parameter expects. */
const hostileSegments = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  '%E0%A4%A',
  '%zz',
  '%00',
  'a%00b',
  '%2e%2e',
  '%F0%9F%98%80',
  'x'.repeat(101),
  'y'.repeat(260),
  '-1',
  '1e9',
  '%ED%A0%80',
];

function caller(doc: string): fc.Arbitrary<Caller> {
  return doc === 'scim'
    ? fc.constantFrom<Caller>('scim', 'scim', 'scim', 'admin', 'anonymous')
    : fc.constantFrom<Caller>('anonymous', 'user', 'admin', 'admin');
}

function pathArbitrary(op: Operation, values: SchemaValues, ids: IdPool): fc.Arbitrary<string> {
  const names = [...op.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  if (!names.length) return fc.constant(op.template);
  const segment = (name: string) => {
    const schema = op.parameters.find((p) => p.in === 'path' && p.name === name)?.schema as Json | undefined;
    const known = ids[name] ?? [];
    return fc.oneof(
      { weight: known.length ? 4 : 0, arbitrary: known.length ? fc.constantFrom(...known) : fc.constant('x') },
      { weight: 3, arbitrary: values.validValue(schema).map((v) => encodeLoosely(String(v))) },
      { weight: 2, arbitrary: fc.constantFrom(...hostileSegments) },
    );
  };
  return fc.tuple(...names.map(segment)).map((segments) => {
    let path = op.template;
    names.forEach((name, i) => (path = path.replace(`{${name}}`, segments[i]!)));
    return path;
  });
}

function queryArbitrary(op: Operation, values: SchemaValues): fc.Arbitrary<string> {
  const query = op.parameters.filter((p) => p.in === 'query');
  const pairs = fc.array(
    fc.oneof(
      ...(query.length
        ? [
            fc
              .constantFrom(...query)
              .chain((p) =>
                fc
                  .oneof(
                    { weight: 3, arbitrary: values.validValue(p.schema as Json) },
                    { weight: 1, arbitrary: fc.constantFrom(...hostileStrings) },
                  )
                  .map((v) => `${encodeLoosely(p.name as string)}=${encodeLoosely(typeof v === 'string' ? v : JSON.stringify(v))}`),
              ),
          ]
        : []),
      fc.constantFrom('unknown=1', 'page=%zz', 'size=-1', 'a[b]=1', '%00=1', 'sort=;drop', 'filter=%E0%A4%A'),
    ),
    { maxLength: 3 },
  );
  return pairs.map((list) => (list.length ? `?${list.join('&')}` : ''));
}

interface BodyPart {
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

function bodyArbitrary(op: Operation, values: SchemaValues, document: Json): fc.Arbitrary<BodyPart> {
  const requestBody = op.operation.requestBody ? resolve(document, op.operation.requestBody as Json) : null;
  const content = (requestBody?.content ?? {}) as Record<string, Json>;
  const types = Object.keys(content);
  const malformed = fc.constantFrom<BodyPart>(
    { headers: { 'content-type': 'application/json' }, body: '{"a":' },
    { headers: { 'content-type': 'application/json' }, body: 'null' },
    { headers: { 'content-type': 'application/json' }, body: '' },
    { headers: { 'content-type': 'application/json' }, body: '[1,2' },
    { headers: { 'content-type': 'application/json' }, body: '{"a":"\\ud800"}' },
    { headers: { 'content-type': 'application/json; charset=latin1' }, body: '{}' },
    { headers: { 'content-type': 'text/plain' }, body: 'hello' },
    { headers: { 'content-type': 'application/xml' }, body: '<a/>' },
    { headers: {}, body: '{}' },
    { headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nContent-Disposition: form-data\r\n\r\nbroken' },
    { headers: { 'content-type': 'multipart/form-data' }, body: 'no boundary' },
  );
  if (!types.length) {
    return fc.oneof({ weight: 6, arbitrary: fc.constant<BodyPart>({ headers: {} }) }, { weight: 1, arbitrary: malformed });
  }
  const type = types[0]!;
  if (type === 'multipart/form-data') {
    const file = fc.tuple(
      fc.constantFrom('a.txt', 'a.png', '', '../x', 'ünï.csv'),
      fc.constantFrom('text/plain', 'image/png', 'application/octet-stream'),
      fc.string({ maxLength: 64 }),
    );
    const wellFormed = file.map(([name, mediaType, text]): BodyPart => {
      const boundary = 'fuzzboundary';
      const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${mediaType}\r\n\r\n${text}\r\n--${boundary}--\r\n`;
      return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body };
    });
    return fc.oneof({ weight: 3, arbitrary: wellFormed }, { weight: 2, arbitrary: malformed });
  }
  const schema = content[type]!.schema as Json;
  const asJson = (value: unknown): BodyPart => ({ headers: { 'content-type': type }, body: toJsonText(value) });
  if (type === 'application/x-www-form-urlencoded') {
    return fc.oneof(
      values.validValue(schema).map((v): BodyPart => ({
        headers: { 'content-type': type },
        body: new URLSearchParams(
          Object.entries((v ?? {}) as Record<string, unknown>).map(([k, x]): [string, string] => [k, String(x)]),
        ).toString(),
      })),
      malformed,
    );
  }
  return fc.oneof(
    { weight: 3, arbitrary: values.validValue(schema).map(asJson) },
    { weight: 4, arbitrary: values.hostileValue(schema).map(asJson) },
    { weight: 2, arbitrary: malformed },
  );
}

/** Extra headers now and then: conditional ones, odd Accept values, one too large to read. */
const headerArbitrary: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({}) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<Record<string, string>>(
      { accept: 'application/xml' },
      { accept: 'text/csv' },
      { accept: 'image/png' },
      { accept: '*/*;q=0' },
      { 'if-match': '"nope"' },
      { 'if-none-match': '*' },
      { 'if-match': 'W/"1"' },
      { 'if-modified-since': 'yesterday' },
      { authorization: 'Bearer not.a.token' },
      { authorization: 'Basic Zm9vOmJhcg==' },
      { 'accept-language': 'x'.repeat(2000) },
      { 'x-forwarded-for': '1.2.3.4, ::1' },
    ),
  },
  { weight: 1, arbitrary: fc.constant({ 'x-huge': 'h'.repeat(20_000) }) },
);

/** One arbitrary over every operation of every document (each operation as likely as any other). */
export function restRequests(docs: Record<string, Json>, ids: IdPool): fc.Arbitrary<FuzzRequest> {
  const operations = operationsOf(docs);
  const perOperation = operations.map((op) => {
    const document = docs[op.doc]!;
    const values = new SchemaValues(document);
    return fc
      .record({
        path: pathArbitrary(op, values, ids),
        query: queryArbitrary(op, values),
        body: bodyArbitrary(op, values, document),
        headers: headerArbitrary,
        caller: caller(op.doc),
      })
      .map(({ path, query, body, headers, caller }): FuzzRequest => ({
        kind: 'rest',
        label: `${op.doc} ${op.name}`,
        method: op.method,
        path: `${path}${query}`,
        caller,
        headers: { ...headers, ...body.headers },
        ...(body.body !== undefined ? { body: body.body } : {}),
      }));
  });
  return fc.oneof(...perOperation);
}
