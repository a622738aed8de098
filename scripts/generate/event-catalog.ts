/**
 * The webhook event catalog: the `webhooks` section of openapi/webhooks.yaml, and nothing else, lists
 * the event types, their bodies and examples. Each entry's operation (`post`) says who receives it
 * (`x-audience`: `platform`, or `tenant` for the events a tenant's own endpoints receive) and which
 * operations emit it (`x-emitted-by`: `<document>#<operationId>`, `graphql#<Mutation field>`).
 * `npm run generate` checks the entries, lists the types as the enum of the EventType schema of the
 * bundled document (the source declares it without one), names the emitting operations in each
 * entry's published description, and writes generated/openapi/<document>.events.ts (the server's
 * `EventType`) and the SDK's typed events (generated/client/webhooks.ts, sdk-sources.ts).
 */
import { PATH_ITEM_METHODS } from '../../src/http/openapi-methods.ts';
import { SpecError } from './spec-error.ts';

type Json = Record<string, any>;

const AUDIENCES = ['platform', 'tenant'] as const;
type Audience = (typeof AUDIENCES)[number];

interface EmittingOperation {
  /** `<document>#<operationId>` as the entry lists it. */
  ref: string;
  /** `POST /api/v1/orders`, or `mutation <field>` for GraphQL. */
  where: string;
}

export interface CatalogEntry {
  type: string;
  /** The entry's operationId (`orderCreatedEvent`): the SDK names the event's type after it. */
  operationId: string;
  audience: Audience;
  emittedBy: EmittingOperation[];
  /** The components schema of the fat body, and of the thin one when the entry has it. */
  fat: string;
  thin: string | undefined;
}

/** `<resource>.<action>`: lowercase letters, digits and underscores, each part starting with a letter. */
const EVENT_NAME = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;
const SCHEMA_REF = '#/components/schemas/';

/** Every operation of a bundled document by operationId, with its method and path. */
function operationsOf(doc: Json): Map<string, string> {
  const out = new Map<string, string>();
  for (const [route, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of PATH_ITEM_METHODS) {
      const id: unknown = item?.[method]?.operationId;
      if (typeof id === 'string') out.set(id, `${method.toUpperCase()} ${route}`);
    }
  }
  return out;
}

/** The schema names of a body schema: one `$ref`, or a `oneOf` of them (the thin one is `Thin…`). */
function bodySchemas(schema: Json | undefined): { fat: string; thin: string | undefined } | undefined {
  const refs: unknown[] = schema?.$ref ? [schema.$ref] : Array.isArray(schema?.oneOf) ? schema.oneOf.map((s: Json) => s?.$ref) : [];
  if (!refs.length || !refs.every((r): r is string => typeof r === 'string' && r.startsWith(SCHEMA_REF))) return undefined;
  const names = refs.map((r) => r.slice(SCHEMA_REF.length));
  const thin = names.filter((n) => n.startsWith('Thin'));
  const fat = names.filter((n) => !n.startsWith('Thin'));
  if (fat.length !== 1 || thin.length > 1) return undefined;
  return { fat: fat[0]!, thin: thin[0] };
}

/**
 * The catalog of a bundled document (undefined when it has no `webhooks` section), every entry
 * checked: its name, `x-audience`, `x-emitted-by` (each operation must exist in the named document
 * of `documents`, or be a field of `graphqlMutations` for `graphql#…`), its body schema and a fat
 * example of its own type. `file` names the document in a refusal, one line per problem.
 */
export function eventCatalog(
  doc: Json,
  file: string,
  documents: Readonly<Record<string, Json>>,
  graphqlMutations: ReadonlySet<string>,
): CatalogEntry[] | undefined {
  if (!doc.webhooks) return undefined;
  const problems: string[] = [];
  const operations = new Map(Object.entries(documents).map(([name, d]) => [name, operationsOf(d)]));
  const entries: CatalogEntry[] = [];
  for (const [type, item] of Object.entries<Json>(doc.webhooks)) {
    const at = `${file}: webhooks.${type}`;
    const wrong = (message: string) => problems.push(`${at}: ${message}`);
    if (!EVENT_NAME.test(type)) wrong('the name is not <resource>.<action> (lowercase letters, digits and underscores)');
    const post = item?.post as Json | undefined;
    if (!post) {
      wrong('declares no `post` operation (the request the receiver gets)');
      continue;
    }
    const audience: unknown = post['x-audience'];
    if (audience === undefined) wrong(`x-audience is missing; say who receives it (${AUDIENCES.join(' or ')})`);
    else if (!AUDIENCES.includes(audience as Audience)) wrong(`x-audience is ${JSON.stringify(audience)}, not ${AUDIENCES.join(' or ')}`);
    const listed: unknown = post['x-emitted-by'];
    const emittedBy: EmittingOperation[] = [];
    if (!Array.isArray(listed)) {
      wrong('x-emitted-by is missing; list the operations that emit it (<document>#<operationId>), [] when none does');
    } else {
      for (const ref of listed) {
        const [document, operationId, ...rest] = typeof ref === 'string' ? ref.split('#') : [];
        if (!document || !operationId || rest.length) {
          wrong(`x-emitted-by: ${JSON.stringify(ref)} is not <document>#<operationId>`);
        } else if (document === 'graphql') {
          if (graphqlMutations.has(operationId)) emittedBy.push({ ref, where: `mutation ${operationId}` });
          else wrong(`x-emitted-by: ${ref}: the GraphQL schema has no mutation ${operationId}`);
        } else if (!operations.has(document)) {
          wrong(`x-emitted-by: ${ref}: no document openapi/${document}.yaml`);
        } else {
          const where = operations.get(document)!.get(operationId);
          if (where) emittedBy.push({ ref, where });
          else wrong(`x-emitted-by: ${ref}: openapi/${document}.yaml has no operation ${operationId}`);
        }
      }
    }
    const media = post.requestBody?.content?.['application/json'] as Json | undefined;
    const schemas = bodySchemas(media?.schema);
    if (!schemas) {
      wrong('its requestBody application/json schema is not a $ref to a components schema, or a oneOf of the fat one and a Thin… one');
    }
    const example: Json | undefined = media?.examples?.fat?.value ?? media?.example;
    if (!example) wrong('has no example of its body (requestBody application/json `examples.fat`)');
    else if (example.type !== type) wrong(`its example's type is ${JSON.stringify(example.type)}`);
    if (typeof post.operationId !== 'string') wrong('its post operation has no operationId');
    if (schemas && typeof post.operationId === 'string' && AUDIENCES.includes(audience as Audience)) {
      entries.push({ type, operationId: post.operationId, audience: audience as Audience, emittedBy, ...schemas });
    }
  }
  if (problems.length) throw new SpecError(problems.join('\n'));
  return entries;
}

/**
 * Lists the catalog's types as the enum of the bundled document's EventType schema, in place, when
 * the document has both (the source declares EventType without one: the `webhooks` section is the list).
 */
export function addEventTypeEnum(doc: Json): void {
  const schema = doc.components?.schemas?.EventType as Json | undefined;
  if (doc.webhooks && schema && !schema.enum) schema.enum = Object.keys(doc.webhooks);
}

/** Names the emitting operations and the audience in each entry's published description, in place. */
export function addEmittedByNotes(doc: Json, entries: readonly CatalogEntry[]): void {
  for (const entry of entries) {
    const post = doc.webhooks[entry.type].post as Json;
    const by = entry.emittedBy.length
      ? entry.emittedBy.map((e) => `\`${e.where}\` (${e.ref.replace('#', ' ')})`).join(', ')
      : 'no API operation';
    const audience = entry.audience === 'platform' ? 'the platform’s endpoints' : 'the endpoints of the tenant it concerns';
    post.description = `${String(post.description ?? '').trimEnd()}\n\nEmitted by ${by}. Received by ${audience}.\n`;
  }
}

/** generated/openapi/<document>.events.ts: the event types, who receives each and what emits it. */
export function eventCatalogModule(entries: readonly CatalogEntry[], file: string): string {
  const key = (type: string) => JSON.stringify(type);
  return [
    `// @generated by \`npm run generate\` from the \`webhooks\` section of ${file}. Do not edit.`,
    '/** The webhook event types, in the catalog’s order. */',
    'export const EVENT_TYPES = [',
    ...entries.map((e) => `  ${key(e.type)},`),
    '] as const;',
    'export type EventType = (typeof EVENT_TYPES)[number];',
    '',
    '/** Who receives each type (`x-audience`): the platform’s endpoints, or a tenant’s own. */',
    "export const EVENT_AUDIENCE: Record<EventType, 'platform' | 'tenant'> = {",
    ...entries.map((e) => `  ${key(e.type)}: ${JSON.stringify(e.audience)},`),
    '};',
    '',
    '/** The operations that emit each type (`x-emitted-by`), `<document>#<operationId>`. */',
    'export const EVENT_EMITTED_BY: Record<EventType, readonly string[]> = {',
    ...entries.map((e) => `  ${key(e.type)}: ${JSON.stringify(e.emittedBy.map((b) => b.ref))},`),
    '};',
    '',
  ].join('\n');
}

/** `orderCreatedEvent` → `OrderCreatedEvent`. */
function typeName(operationId: string): string {
  return operationId[0]!.toUpperCase() + operationId.slice(1);
}

/**
 * The SDK's event types: one per catalog entry, its body schema with `type` narrowed to the entry's
 * name, and the unions `WebhookEvent` (fat bodies) and `ThinWebhookEvent` (thin ones), each
 * discriminated by `type`.
 */
export function sdkEventTypes(entries: readonly CatalogEntry[]): string {
  const member = (e: CatalogEntry, schema: string, name: string, form: string) => [
    `/** \`${e.type}\` (${form} body). */`,
    `export type ${name} = components['schemas']['${schema}'] & { type: '${e.type}' };`,
  ];
  const fat = entries.map((e) => ({ e, name: typeName(e.operationId) }));
  const thin = entries.filter((e) => e.thin).map((e) => ({ e, name: `Thin${typeName(e.operationId)}` }));
  return [
    ...fat.flatMap(({ e, name }) => member(e, e.fat, name, 'fat')),
    ...thin.flatMap(({ e, name }) => member(e, e.thin!, name, 'thin')),
    '',
    '/**',
    ' * The body of a webhook delivery to an endpoint registered with `payload: fat` (the default), one',
    ' * member per event type of the catalog, discriminated by `type`.',
    ' */',
    `export type WebhookEvent = ${fat.map((f) => f.name).join(' | ')};`,
    '/** The body of a delivery to an endpoint registered with `payload: thin`, discriminated by `type`. */',
    `export type ThinWebhookEvent = ${thin.length ? thin.map((f) => f.name).join(' | ') : 'never'};`,
    '/** Every event type of the catalog. */',
    "export type WebhookEventType = WebhookEvent['type'];",
    '',
  ].join('\n');
}
