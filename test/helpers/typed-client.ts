/**
 * The generated typed REST clients (generated/client/rest.ts), as tests drive them: every response
 * goes through a middleware that validates it against the OpenAPI documents (contract.ts), so a
 * test that reads a typed result has also checked the status, content type and body schema the
 * server answered with. Paths, parameters and bodies are checked by the compiler.
 */
import type { Middleware } from 'openapi-fetch';
import {
  createAdminClient,
  createOpsClient,
  createPostsClient,
  createRestV1Client,
  createRestV2Client,
  createWebhooksClient,
} from '../../generated/client/rest.ts';
import { contractRegistry, type ContractRegistry } from './contract.ts';

/** Validates each response against its documented operation; a violation rejects the call. */
export function contractMiddleware(registry: ContractRegistry = contractRegistry()): Middleware {
  return {
    async onResponse({ request, response }) {
      // A clone: openapi-fetch still reads the original body for the test.
      const text = await response.clone().text();
      const contentType = response.headers.get('content-type');
      const body = contentType && /json/.test(contentType) && text ? (JSON.parse(text) as unknown) : text;
      registry.validate(request.method, request.url, response.status, contentType, text === '' ? undefined : body);
    },
  };
}

export function typedClients(baseUrl: string, registry?: ContractRegistry) {
  const middleware = contractMiddleware(registry);
  const v1 = createRestV1Client({ baseUrl });
  const v2 = createRestV2Client({ baseUrl });
  const posts = createPostsClient({ baseUrl });
  const ops = createOpsClient({ baseUrl });
  const admin = createAdminClient({ baseUrl });
  const webhooks = createWebhooksClient({ baseUrl });
  // One call each: a loop over an array of the six would have the compiler reduce their union, a
  // second and a half of every typecheck.
  v1.use(middleware);
  v2.use(middleware);
  posts.use(middleware);
  ops.use(middleware);
  admin.use(middleware);
  webhooks.use(middleware);
  return { v1, v2, posts, ops, admin, webhooks };
}

export type TypedClients = ReturnType<typeof typedClients>;

/** The Authorization header of a bearer token, for a call's `headers` (none without a token). */
export function bearer(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

interface Answer {
  response: Response;
  data?: unknown;
  error?: unknown;
}

/**
 * Awaits a typed call and fails with the response body unless the server answered `status`
 * (the typed client resolves for every status, so a test would otherwise read `undefined` on).
 */
export async function expectStatus<R extends Answer>(status: number, call: Promise<R>): Promise<R> {
  const answer = await call;
  if (answer.response.status !== status) {
    const body = answer.error ?? answer.data;
    const detail = typeof body === 'string' ? body : JSON.stringify(body);
    throw new Error(`${answer.response.url}: expected ${status}, got ${answer.response.status}: ${String(detail).slice(0, 1000)}`);
  }
  return answer;
}

/** The body of a call that answered the success `status` (typed by the operation's response). */
export async function dataOf<R extends Answer>(status: number, call: Promise<R>): Promise<NonNullable<R['data']>> {
  const answer = await expectStatus(status, call);
  if (answer.data === undefined) throw new Error(`${answer.response.url}: ${status} without a body`);
  return answer.data as NonNullable<R['data']>;
}

/** The body of a call that answered the error `status` (a Problem Details document for REST errors). */
export async function errorOf<R extends Answer>(status: number, call: Promise<R>): Promise<NonNullable<R['error']>> {
  const answer = await expectStatus(status, call);
  return answer.error as NonNullable<R['error']>;
}

/**
 * The JSON body of an operation that also answers XML or CSV (its typed body is then a union with
 * string): fails when the server answered with text.
 */
export function json<T>(data: T): Exclude<T, string> {
  if (typeof data === 'string') throw new Error(`expected a JSON body, got text: ${data.slice(0, 200)}`);
  return data as Exclude<T, string>;
}
