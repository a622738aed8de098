/**
 * Registers Fastify routes straight from a bundled OpenAPI document. Each operation is served by the
 * handler with its operationId, behind the operation's security (its `security`, or the document's,
 * and `x-required-role`) and then the ajv validators that `npm run generate` precompiled for it.
 * The handler map is typed from the generated `operations`, so a wrong signature fails to compile.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { hasRole, hasRoleInOwnTenant } from '../auth/principal.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import { portalAuthentication } from '../auth/portal-hook.ts';
import { AppError, forbidden, notFound, unauthenticated, validationFailed, type Violation, type ViolationSource } from '../errors.ts';
import type { DocumentName } from '../../generated/openapi/index.ts';
import { loadOpenApiDocument } from './openapi-docs.ts';
import { SERVED_METHODS } from './openapi-methods.ts';
import { registerComponents, serializedResponses } from './response-schemas.ts';

type Json = Record<string, any>;

type Section<Op, K extends string> = Op extends { parameters: infer P }
  ? P extends Record<K, infer S>
    ? S extends undefined
      ? Record<string, never>
      : NonNullable<S>
    : Record<string, never>
  : Record<string, never>;
type BodyOf<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B
  : Op extends { requestBody?: { content: { 'application/x-www-form-urlencoded': infer F } } }
    ? F
    : unknown;

/** A JSON media type (`application/json`, `application/problem+json`, `application/scim+json`…). */
type JsonMediaType = 'application/json' | `${string}+json`;

/**
 * What a handler may send for one documented response: the schema's type for a JSON media type; for
 * any other (XML, CSV, a file) serialised bytes; nothing for a response without content (204, 304).
 */
type PayloadOf<R> = R extends { content: infer C }
  ? { [M in keyof C]: M extends JsonMediaType ? C[M] : string | Buffer | NodeJS.ReadableStream }[keyof C]
  : R extends { content?: never }
    ? undefined
    : unknown;

type ResponsesOf<Op> = Op extends { responses: infer R } ? R : never;

/** Every documented status of the operation and what may be sent with it (Fastify's `Reply` map). */
type ReplyOf<Op> = { [S in keyof ResponsesOf<Op> as S extends number ? S : never]: PayloadOf<ResponsesOf<Op>[S]> };

/** The documented 2xx statuses: what a handler's return value (sent with the current status) may be. */
type SuccessStatus<Op> = Extract<keyof ReplyOf<Op>, 200 | 201 | 202 | 203 | 206>;

type OperationRequest<Op> = FastifyRequest<{
  Params: Section<Op, 'path'>;
  Querystring: Section<Op, 'query'>;
  Body: BodyOf<Op>;
}>;

/** `send`'s arguments for a payload type: none for a response without content. */
type SendArgs<P> = [P] extends [undefined] ? [payload?: undefined] : [payload: P];

/**
 * Fastify's reply narrowed to one operation's document: `code(s)` accepts only the statuses it lists,
 * and `send` only what the chosen status documents (before `code()` the status is 200: only a
 * documented 200 may be sent without choosing one). Decision 1: an answer that does not match the
 * spec does not compile. (Fastify's own `Reply` generic is lost by `header()` and `type()`.)
 */
type StatusReply<Op, P> = Omit<FastifyReply, 'code' | 'status' | 'send' | 'header' | 'headers' | 'type'> & {
  code<S extends keyof ReplyOf<Op>>(status: S): StatusReply<Op, ReplyOf<Op>[S]>;
  status<S extends keyof ReplyOf<Op>>(status: S): StatusReply<Op, ReplyOf<Op>[S]>;
  send(...args: SendArgs<P>): FastifyReply;
  header(key: string, value: unknown): StatusReply<Op, P>;
  headers(values: Record<string, number | string | string[] | undefined>): StatusReply<Op, P>;
  type(contentType: string): StatusReply<Op, P>;
};

/** The reply of operation `Op`; Fastify's own for an operation not known at compile time (the mock server). */
type OperationReply<Op> = unknown extends Op ? FastifyReply : StatusReply<Op, 200 extends keyof ReplyOf<Op> ? ReplyOf<Op>[200] : never>;

/** What a helper that sets headers (not the status, not the body) needs of any operation's reply. */
export type ReplyHeaders = Pick<FastifyReply, 'getHeader' | 'hasHeader' | 'removeHeader'> & {
  header(key: string, value: unknown): unknown;
  type(contentType: string): unknown;
};

/** A handler returns the body of a documented 2xx JSON answer, or the reply it sent itself. */
type OperationResult<Op> = ReplyOf<Op>[SuccessStatus<Op>] | FastifyReply<any> | undefined;

export type OperationHandler<Op> = (request: OperationRequest<Op>, reply: OperationReply<Op>) => Promise<OperationResult<Op>>;

export type OperationHandlers<Ops> = { [K in keyof Ops]: OperationHandler<Ops[K]> };

export interface ValidatorSet {
  params: Record<string, ValidateFunction | undefined>;
  bodies: Record<string, ValidateFunction | undefined>;
}

/** `/api/v1/products/{id}` → `/api/v1/products/:id` */
function toFastifyPath(openapiPath: string): string {
  return openapiPath.replace(/\{([^}]+)\}/g, ':$1');
}

/** The segments of an RFC 6901 JSON Pointer (ajv's `instancePath`); `''` is the whole value. */
function segmentsOf(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const SOURCE: Record<'body' | 'query' | 'path', ViolationSource> = { body: 'input', query: 'parameter', path: 'identifier' };

/** The JSON Schema keywords that judge a value of the right type (Violation `rule: 'value'`); the others judge the shape. */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'enum',
  'const',
]);

function ruleOf(keyword: string): Violation['rule'] {
  if (keyword === 'required') return 'missing';
  return VALUE_KEYWORDS.has(keyword) ? 'value' : undefined;
}

/**
 * Turns ajv errors into violations: the body's properties are the operation's input, query
 * parameters its parameters, path parameters its identifiers (problem.ts renders them as `/price`,
 * `query.size`, `path.id`). `declared` lists the operation's query parameters, named when an
 * undeclared one is refused; `takenBy` names, for a parameter this operation lacks, the operation
 * beside it that takes it (`?q=` on a list: its `/search`).
 */
export function violationsFrom(
  errors: ErrorObject[] | null | undefined,
  location: 'body' | 'query' | 'path',
  declared: readonly string[] = [],
  takenBy: ReadonlyMap<string, string> = new Map(),
): Violation[] {
  const seen = new Set<string>();
  const out: Violation[] = [];
  for (const e of errors ?? []) {
    const field = segmentsOf(e.instancePath);
    if (e.keyword === 'required') field.push((e.params as { missingProperty: string }).missingProperty);
    if (e.keyword === 'additionalProperties') field.push((e.params as { additionalProperty: string }).additionalProperty);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') message = 'is required';
    if (e.keyword === 'additionalProperties') {
      const other = location === 'query' ? takenBy.get(field.at(-1) ?? '') : undefined;
      message =
        location !== 'query'
          ? 'is not an allowed property'
          : `is not a parameter of this operation; ${declared.length ? `accepted: ${declared.join(', ')}` : 'it takes no query parameters'}` +
            (other ? `; ${other} takes it` : '');
    }
    if (e.keyword === 'enum') message = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    const key = JSON.stringify([field, message]);
    if (seen.has(key)) continue;
    seen.add(key);
    const rule = ruleOf(e.keyword);
    out.push({ field, message, source: SOURCE[location], ...(rule ? { rule } : {}) });
  }
  return out;
}

const FORM = 'application/x-www-form-urlencoded';

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

function isFormContentType(header: string | undefined): boolean {
  return header?.split(';')[0]!.trim().toLowerCase() === FORM;
}

function resolveRef(doc: Json, value: Json): Json {
  if (typeof value?.$ref !== 'string' || !value.$ref.startsWith('#/')) return value;
  return value.$ref
    .slice(2)
    .split('/')
    .reduce((node: Json, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

function declaredQueryParameters(doc: Json, item: Json, op: Json): string[] {
  return [...(item.parameters ?? []), ...(op.parameters ?? [])]
    .map((p: Json) => resolveRef(doc, p))
    .filter((p: Json) => p?.in === 'query')
    .map((p: Json) => p.name as string);
}

/**
 * For each query parameter that an operation at `path` does not declare but an operation of the same
 * method one literal segment below it does (`GET /api/v1/products/search` beside
 * `GET /api/v1/products`), that operation, as `GET /api/v1/products/search`: read from the document,
 * so a new sub-resource is named without an edit here.
 */
function queryParametersBelow(doc: Json, path: string, method: string, declared: readonly string[]): Map<string, string> {
  const below = new Map<string, string>();
  for (const [other, item] of Object.entries<Json>(doc.paths ?? {})) {
    const rest = other.startsWith(`${path}/`) ? other.slice(path.length + 1) : '';
    if (!rest || rest.includes('/') || rest.includes('{') || !item[method]) continue;
    for (const name of declaredQueryParameters(doc, item, item[method])) {
      if (!declared.includes(name) && !below.has(name)) below.set(name, `${method.toUpperCase()} ${other}`);
    }
  }
  return below;
}

/**
 * The refusal of an operation's security, or null when anyone may call it. A requirement list with an
 * empty object (`security: [{}, {bearerAuth: []}]`) makes the caller optional; `security: []` (or
 * none, without a document default) makes the operation public. The check runs as the route's own
 * onRequest hook, after the scope's authentication hook and before the body is even read, so an
 * anonymous or under-privileged request is refused whatever it carries (401 or 403, never a 400).
 */
export function securityGuard(
  doc: Json,
  op: Json,
  isAuthenticated: (request: FastifyRequest) => boolean = (request) => request.principal !== null,
): onRequestHookHandler | null {
  const requirements: Json[] = op.security ?? doc.security ?? [];
  const role: string | undefined = op['x-required-role'];
  // `tenant`: the path's tenantId must be the caller's; `own-tenant`: the handler scopes what it
  // does to the caller's tenant (its resources carry no tenant in the path).
  const roleScope: unknown = op['x-role-scope'];
  // The intents a portal session needs one of (openapi/portal.yaml); a portal session is refused elsewhere.
  const portalIntents: unknown = op['x-portal-intent'];
  const required = Boolean(role) || (requirements.length > 0 && requirements.every((r) => Object.keys(r).length > 0));
  if (!required) return null;
  return (request, _reply, done) => {
    if (!isAuthenticated(request)) return done(unauthenticated('This operation requires a bearer token'));
    const portal = request.principal?.portal;
    if (portal && Array.isArray(portalIntents) && !portalIntents.some((intent) => portal.intents.includes(intent))) {
      return done(forbidden(`This portal session does not cover this operation (it needs one of: ${portalIntents.join(', ')})`));
    }
    if (role && !hasRole(request.principal, role)) {
      // The role a tenant grants its own user holds for that tenant's resources; `tenant`: those of
      // the path's tenantId, another tenant's answered as if they did not exist.
      const principal = request.principal;
      if ((roleScope !== 'tenant' && roleScope !== 'own-tenant') || !hasRoleInOwnTenant(principal, role))
        return done(forbidden(`This operation requires the ${role} role`));
      if (roleScope === 'own-tenant') return done();
      const tenantId = (request.params as Record<string, string | undefined>).tenantId;
      // The same answer as for a tenant that does not exist (src/identity/tenants/tenants.service.ts).
      if (tenantId !== principal.tenantId) return done(notFound(`Tenant not found: ${tenantId ?? ''}`, 'TENANT_NOT_FOUND'));
    }
    done();
  };
}

/** Whether an operation reads the portal session: its `x-portal-intent`, or a `portalSession` security requirement. */
function acceptsPortalSession(doc: Json, op: Json): boolean {
  const requirements: Json[] = op.security ?? doc.security ?? [];
  return Boolean(op['x-portal-intent']) || requirements.some((requirement) => 'portalSession' in requirement);
}

interface RegisterOptions {
  /**
   * The Fastify prefix the scope was registered with, which the document's (absolute) paths start
   * with: routes are registered without it, so the scope's own not-found handler covers the prefix.
   */
  prefix?: string;
  /**
   * Whether the request has a caller, for operations whose security requires one. Default: the
   * scope's bearer hook set `request.principal`. A scope with another scheme (SCIM tokens) says how.
   */
  isAuthenticated?: (request: FastifyRequest) => boolean;
  /**
   * The portal session's reader: given, the operations with `x-portal-intent` also accept the
   * `sf_portal` cookie (src/auth/portal-hook.ts), within their intents (securityGuard), and those
   * whose security is `portalSession` (the portal's own) take it; no other operation reads it.
   */
  portal?: Authenticator;
}

/**
 * Serves the operations of `generated/openapi/<document>.json` that `handlers` answers: a whole
 * document, or an area's slice of a shared one (`Ops` one of the generated `<Tag>Operations` types),
 * in the area's own scope. The map is complete by type, so a missing handler is a compile error
 * where the map is written; that every slice of every document is registered is checked when the
 * application starts (operation-coverage.ts), as is a map in code the compiler has not seen (`npm run dev`).
 */
export function registerOperations<Ops>(
  app: FastifyInstance,
  document: DocumentName,
  validators: ValidatorSet,
  handlers: OperationHandlers<Ops>,
  options: RegisterOptions = {},
): void {
  const doc = loadOpenApiDocument(document);
  const schemaId = registerComponents(app, document, doc);
  const table = handlers as Record<string, OperationHandler<unknown> | undefined>;
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of SERVED_METHODS) {
      const op = item[method];
      const operationId: string | undefined = op?.operationId;
      const handler = operationId ? table[operationId] : undefined;
      if (!operationId || !handler) continue;
      const validatePath = validators.params[`${operationId}_path`];
      const validateQuery = validators.params[`${operationId}_query`];
      const validateBody = validators.bodies[`${operationId}_body`];
      const bodyRequired = Boolean(resolveRef(doc, op.requestBody ?? {})?.required);
      // An operation takes a form body only when its document says so, and then only a form body.
      const takesForm = Boolean(resolveRef(doc, op.requestBody ?? {})?.content?.[FORM]);
      const declaredQuery = declaredQueryParameters(doc, item, op);
      const queryTakenBy = queryParametersBelow(doc, path, method, declaredQuery);
      const guard = securityGuard(doc, op, options.isAuthenticated);
      const portal = options.portal && acceptsPortalSession(doc, op) ? portalAuthentication(options.portal) : null;
      const onRequest = [...(portal ? [portal] : []), ...(guard ? [guard] : [])];
      const response = serializedResponses(doc, schemaId, op);
      if (options.prefix && !path.startsWith(`${options.prefix}/`)) throw new Error(`${document}: ${path} is outside ${options.prefix}`);
      app.route({
        method: method.toUpperCase(),
        url: toFastifyPath(options.prefix ? path.slice(options.prefix.length) : path),
        config: { operationId, openApiDocument: document },
        ...(onRequest.length ? { onRequest } : {}),
        // JSON 2xx bodies are written by fast-json-stringify from the response schema (response-schemas.ts).
        ...(response ? { schema: { response } } : {}),
        handler: async (request, reply) => {
          const violations: Violation[] = [];
          if (validatePath && !validatePath(request.params)) violations.push(...violationsFrom(validatePath.errors, 'path'));
          if (validateQuery && !validateQuery(request.query))
            violations.push(...violationsFrom(validateQuery.errors, 'query', declaredQuery, queryTakenBy));
          if (validateBody) {
            const hasBody = request.body !== undefined && request.body !== null;
            if (hasBody || bodyRequired) {
              if (takesForm ? !isFormContentType(request.headers['content-type']) : !isJsonContentType(request.headers['content-type'])) {
                // A bad parameter is a 400 whatever the body's media type.
                if (violations.length) throw validationFailed(violations, 'The request is invalid; see `errors` for each field');
                throw new AppError(
                  'UNSUPPORTED_MEDIA_TYPE',
                  takesForm
                    ? `This operation accepts ${FORM} request bodies only`
                    : 'This operation accepts JSON request bodies only (application/json or a +json type)',
                );
              }
              if (!validateBody(request.body)) violations.push(...violationsFrom(validateBody.errors, 'body'));
            }
          }
          if (violations.length) throw validationFailed(violations, 'The request is invalid; see `errors` for each field');
          return handler(request as never, reply);
        },
      });
    }
  }
}
