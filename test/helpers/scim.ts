/**
 * SCIM test client: a tenant with a SCIM token, and calls under /scim/v2 whose every response is
 * checked against openapi/scim.yaml (ContractClient) and the RFC 7644 shapes the document cannot
 * state (error `status` equal to the HTTP status, the media type, `ETag` equal to `meta.version`,
 * `Location` equal to `meta.location`).
 */
import assert from 'node:assert/strict';
import type { CallOptions, CallResult } from './contract.ts';
import type { TestServer } from './server.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export interface ScimClient {
  tenantId: string;
  token: string;
  call<T = any>(method: string, path: string, options?: CallOptions & { json?: boolean }): Promise<CallResult<T>>;
  get<T = any>(path: string, options?: CallOptions): Promise<CallResult<T>>;
  post<T = any>(path: string, body: unknown, options?: CallOptions): Promise<CallResult<T>>;
  put<T = any>(path: string, body: unknown, options?: CallOptions): Promise<CallResult<T>>;
  patch<T = any>(path: string, operations: unknown[], options?: CallOptions): Promise<CallResult<T>>;
  delete<T = any>(path: string, options?: CallOptions): Promise<CallResult<T>>;
}

/** Asserts what every SCIM response must be beyond its schema. */
function checkScimResponse(result: CallResult, method: string): void {
  if (result.status === 204) {
    assert.equal(result.text, '', 'a 204 has no body');
    return;
  }
  assert.match(result.headers.get('content-type') ?? '', /^application\/scim\+json/, `${method}: SCIM media type`);
  const body = result.body as Record<string, any>;
  if (result.status >= 400) {
    assert.deepEqual(body.schemas, [ERROR_SCHEMA]);
    assert.equal(body.status, String(result.status), 'the error status is the HTTP status, as a string');
    if (result.status === 401) assert.equal(result.headers.get('www-authenticate'), 'Bearer');
    return;
  }
  if (body.meta?.version && (body.meta.resourceType === 'User' || body.meta.resourceType === 'Group')) {
    assert.equal(result.headers.get('etag'), body.meta.version, 'ETag is meta.version');
  }
  if (result.status === 201) assert.equal(result.headers.get('location'), body.meta.location, 'Location is meta.location');
}

export async function scimTenant(server: TestServer, tenantId: string): Promise<ScimClient> {
  const { tenants, scimTokens } = server.app.services;
  await tenants.create({ id: tenantId, name: tenantId });
  const { token } = await scimTokens.issue(tenantId);
  return scimClient(server, tenantId, token);
}

export function scimClient(server: TestServer, tenantId: string, token: string): ScimClient {
  const call = async <T>(method: string, path: string, options: CallOptions = {}): Promise<CallResult<T>> => {
    const headers = { 'content-type': 'application/scim+json', ...options.headers };
    const result = await server.api.call<T>(method, `/scim/v2${path}`, { token, ...options, headers });
    checkScimResponse(result, `${method} ${path}`);
    return result;
  };
  return {
    tenantId,
    token,
    call,
    get: (path, options) => call('GET', path, options),
    post: (path, body, options) => call('POST', path, { ...options, body }),
    put: (path, body, options) => call('PUT', path, { ...options, body }),
    patch: (path, operations, options) => call('PATCH', path, { ...options, body: { schemas: [PATCH_OP], Operations: operations } }),
    delete: (path, options) => call('DELETE', path, options),
  };
}
