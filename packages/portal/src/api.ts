/**
 * The portal's one way to reach the server: the SDK's generated clients (no second API layer), so a
 * spec change the portal does not follow fails `npm run typecheck`. Every call goes through `call`,
 * which turns an error answer into an `ApiError` carrying the Problem Details.
 */
import {
  createAdminClient,
  createPortalClient,
  createWebhooksClient,
  type AdminComponents,
  type PortalComponents,
  type WebhooksComponents,
} from '@schemaforge/sdk';

export type PortalSession = PortalComponents['schemas']['PortalSession'];
export type Intent = PortalComponents['schemas']['PortalIntent'];
export type Endpoint = WebhooksComponents['schemas']['WebhookEndpoint'];
export type EndpointWithSecret = WebhooksComponents['schemas']['WebhookEndpointWithSecret'];
export type Attempt = WebhooksComponents['schemas']['DeliveryAttempt'];
export type EventTypeInfo = WebhooksComponents['schemas']['EventTypeInfo'];
export type EventType = WebhooksComponents['schemas']['EventType'];
export type ScimToken = AdminComponents['schemas']['ScimToken'];
export type IssuedScimToken = AdminComponents['schemas']['IssuedScimToken'];
export type Domain = AdminComponents['schemas']['Domain'];
export type ScimActivity = AdminComponents['schemas']['ScimActivity'];
export type IdentityProvider = AdminComponents['schemas']['IdentityProvider'];
export type IdentityProviderInput = AdminComponents['schemas']['IdentityProviderInput'];
export type LastTestSignIn = AdminComponents['schemas']['LastTestSignIn'];

/** Problem Details as every operation answers errors (RFC 7807, `errors` on a validation failure). */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  errors?: { field: string; message: string }[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `The server answered ${status}`);
  }

  /**
   * Messages by body field: under the whole path (`/saml/ssoUrl` → `saml.ssoUrl`) and under its first
   * property (`/events/0` → `events`), so a form finds the message of a field or of a list; a
   * parameter's `query.x` → `x`.
   */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const { field, message } of this.problem.errors ?? []) {
      if (!field.startsWith('/')) {
        out[field.split('.')[1] ?? field] ??= message;
        continue;
      }
      const parts = field
        .slice(1)
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
      out[parts.join('.')] ??= message;
      out[parts[0] ?? ''] ??= message;
    }
    return out;
  }
}

/** The data of a call, or an ApiError (a network failure becomes one with status 0). */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request;
  } catch {
    throw new ApiError(0, { title: 'The server could not be reached', detail: 'Check your connection and try again.' });
  }
  if (result.response.ok) return result.data as T;
  const problem = (typeof result.error === 'object' && result.error !== null ? result.error : {}) as Problem;
  throw new ApiError(result.response.status, { status: result.response.status, ...problem });
}

export interface Clients {
  baseUrl: string;
  portal: ReturnType<typeof createPortalClient>;
  admin: ReturnType<typeof createAdminClient>;
  webhooks: ReturnType<typeof createWebhooksClient>;
}

/** The clients for a server; the session cookie goes with every request (`credentials: include`). */
export function clientsFor(baseUrl: string): Clients {
  const options = { baseUrl, credentials: 'include' as const };
  return {
    baseUrl,
    portal: createPortalClient(options),
    admin: createAdminClient(options),
    webhooks: createWebhooksClient(options),
  };
}
