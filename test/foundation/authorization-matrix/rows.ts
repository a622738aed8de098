/**
 * The rows of the authorization matrix: every operation of every OpenAPI document and every GraphQL
 * root field, each aimed at a resource of the world (./world.ts) and given the rule (./rules.ts) its
 * caller columns follow. Tenant-scoped administration appears twice: aimed at tenant A and at tenant B.
 */
import { deflateRawSync } from 'node:zlib';
import type { RecordingMail } from '../../sso/sso-fixtures.ts';
import { mailedCode } from '../../sso/sso-fixtures.ts';
import { multipart, ONE_PIXEL_PNG } from '../../catalog/fixtures.ts';
import { seed } from '../../graphql/gql.ts';
import type { TestServer } from '../../helpers/server.ts';
import type { RuleName } from './rules.ts';
import { SIGNED_IN, TENANT_A, TENANT_B, type Caller, type Tenant, type World } from './world.ts';

export interface Context {
  server: TestServer;
  mail: RecordingMail;
}

interface HttpRequest {
  path: string;
  body?: unknown;
  raw?: RequestInit['body'];
  headers?: Record<string, string>;
}

/** What a successful answer must show, or must not, to this caller: a problem, or null. */
type Check = (world: World, caller: Caller, body: any, text: string) => string | null;

export interface RestRow {
  kind: 'rest';
  operationId: string;
  target: string;
  rule: RuleName;
  /** The success status. */
  ok: number;
  request(world: World, caller: Caller, context: Context): HttpRequest | Promise<HttpRequest>;
  /** Whether a success changes stored data (the world is put back after it). Default: not for GET. */
  mutates?: boolean;
  check?: Check;
}

export interface GraphQLRow {
  kind: 'graphql';
  /** `Query.user`, `Mutation.createPost`, … */
  field: string;
  target: string;
  rule: RuleName;
  document: string;
  variables?(world: World, caller: Caller): Record<string, unknown>;
  check?: Check;
}

export interface SubscriptionRow {
  kind: 'subscription';
  field: string;
  target: string;
  rule: RuleName;
  document: string;
  variables?(world: World): Record<string, unknown>;
  /** Produces an event the subscription should deliver. */
  probe(server: TestServer, world: World): Promise<unknown>;
}

export type Row = RestRow | GraphQLRow | SubscriptionRow;

const rest = (
  operationId: string,
  target: string,
  rule: RuleName,
  ok: number,
  request: RestRow['request'],
  extra: Partial<RestRow> = {},
): RestRow => ({
  kind: 'rest',
  operationId,
  target,
  rule,
  ok,
  request,
  ...extra,
});

const graphql = (
  field: string,
  target: string,
  rule: RuleName,
  document: string,
  variables?: GraphQLRow['variables'],
  check?: Check,
): GraphQLRow => ({
  kind: 'graphql',
  field,
  target,
  rule,
  document,
  ...(variables ? { variables } : {}),
  ...(check ? { check } : {}),
});

const json = (body: unknown) => ({ body });
/** A LogoutRequest no provider signed, for the single logout service. */
const FORGED_LOGOUT_REQUEST = Buffer.from(
  '<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_forged" Version="2.0" IssueInstant="2026-01-01T00:00:00Z"><saml:Issuer>https://acme-idp.example/metadata</saml:Issuer><saml:NameID>dora@example.org</saml:NameID></samlp:LogoutRequest>',
);
const form = (fields: Record<string, string>) => ({
  raw: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});
const scim = (body: unknown) => ({ raw: JSON.stringify(body), headers: { 'content-type': 'application/scim+json' } });

/** A name unique to the caller (what a create uses, so no success depends on another's). */
const mine = (caller: Caller, what: string) => `${what}-${caller.toLowerCase()}`;

// ---- what answers must not show -------------------------------------------------------------

/** The users a caller's directory lists: its own tenant's (anonymous: the platform's), the platform ADMIN all. */
function directoryOf(world: World, caller: Caller): string[] {
  const everyone = Object.keys(world.userId) as (keyof World['userId'])[];
  if (caller === 'platformAdmin') return everyone.map((u) => world.userId[u]).sort();
  const tenant = caller === 'anonymous' ? 'default' : world.tenantOf[caller];
  return everyone
    .filter((u) => world.tenantOf[u] === tenant)
    .map((u) => world.userId[u])
    .sort();
}

const listsDirectory =
  (pick: (data: any) => { id: string }[]): Check =>
  (world, caller, body) => {
    const ids = pick(body.data)
      .map((u) => u.id)
      .sort();
    const expected = directoryOf(world, caller);
    return JSON.stringify(ids) === JSON.stringify(expected) ? null : `lists ${JSON.stringify(ids)}, expected ${JSON.stringify(expected)}`;
  };

/** A stream of posts shows no one's draft but the caller's own. */
const noForeignDrafts: Check = (world, caller, _body, text) => {
  const foreign = SIGNED_IN.filter((c) => c !== caller && text.includes(`draft of ${c}`));
  return foreign.length ? `shows the drafts of ${foreign.join(', ')}` : null;
};

/** Orders: a caller sees its own, the platform ADMIN everyone's. */
const ownOrdersOnly: Check = (world, caller, _body, text) => {
  const foreign = SIGNED_IN.filter((c) => c !== caller && caller !== 'platformAdmin' && text.includes(world.order[c]));
  if (foreign.length) return `shows the orders of ${foreign.join(', ')}`;
  if (caller !== 'anonymous' && !text.includes(world.order[caller])) return 'does not show the caller’s own order';
  return null;
};

const sessionOfCaller: Check = (world, caller, body) =>
  caller !== 'anonymous' && body.user?.id === world.userId[caller] ? null : `the session of ${String(body.user?.id)}`;

// ---- OpenAPI operations --------------------------------------------------------------------

function tenantAdministration(tenant: Tenant): RestRow[] {
  const rule: RuleName = tenant === TENANT_A ? 'ownTenantAdmin' : 'otherTenantAdmin';
  const target = tenant === TENANT_A ? 'tenant A' : 'tenant B';
  const base = `/api/v1/admin/tenants/${tenant}`;
  return [
    rest('getTenant', target, rule, 200, () => ({ path: base })),
    rest('createPortalLink', target, rule, 201, () => ({ path: `${base}/portal-links`, ...json({ intents: ['sso'] }) })),
    rest('listScimTokens', target, rule, 200, () => ({ path: `${base}/scim-tokens` })),
    rest('listScimActivity', target, rule, 200, () => ({ path: `${base}/scim-activity` })),
    rest('issueScimToken', target, rule, 201, () => ({ path: `${base}/scim-tokens`, ...json({}) })),
    rest('revokeScimToken', target, rule, 204, (w) => ({ path: `${base}/scim-tokens/${w.spareScimTokenId[tenant]}` })),
    rest('getIdentityProvider', target, rule, 200, () => ({ path: `${base}/identity-provider` })),
    rest('putIdentityProvider', target, rule, 200, (w) => ({
      path: `${base}/identity-provider`,
      ...json({ protocol: 'saml', metadataXml: w.samlIdp.metadataXml(), roleMapping: { admins: 'ADMIN' } }),
    })),
    rest('deleteIdentityProvider', target, rule, 204, () => ({ path: `${base}/identity-provider` })),
    rest('getLastTestSignIn', target, rule, 200, () => ({ path: `${base}/identity-provider/test-sign-in` })),
    rest('startTestSignIn', target, rule, 201, () => ({ path: `${base}/identity-provider/test-sign-in` })),
    rest('listSamlKeys', target, rule, 200, () => ({ path: `${base}/saml-keys` })),
    rest('rotateSamlKeys', target, rule, 200, () => ({ path: `${base}/saml-keys/rotate` })),
    rest('listDomains', target, rule, 200, () => ({ path: `${base}/domains` })),
    rest('addDomain', target, rule, 201, (_w, caller) => ({
      path: `${base}/domains`,
      ...json({ domain: `${mine(caller, 'new')}.${tenant}.example` }),
    })),
    rest('getDomain', target, rule, 200, () => ({ path: `${base}/domains/pending.${tenant}.example` })),
    rest('getDomainEnforcementImpact', target, rule, 200, () => ({ path: `${base}/domains/pending.${tenant}.example/enforcement-impact` })),
    rest('deleteDomain', target, rule, 204, () => ({ path: `${base}/domains/pending.${tenant}.example` })),
    rest('updateDomain', target, rule, 200, () => ({ path: `${base}/domains/${tenant}.example`, ...json({ enforceSso: true }) })),
    rest('verifyDomain', target, rule, 200, () => ({
      path: `${base}/domains/pending.${tenant}.example/verify`,
      ...json({ method: 'dns' }),
    })),
    rest('sendDomainVerificationMail', target, rule, 202, () => ({
      path: `${base}/domains/pending.${tenant}.example/verification-mail`,
      ...json({ to: `hostmaster@pending.${tenant}.example` }),
    })),
  ];
}

const product = (w: World) => `/api/v1/products/${w.productId}`;
const productV2 = (w: World) => `/api/v2/products/${w.productId}`;
/** The operations on one webhook endpoint, aimed at the endpoint `pick` names (with a disabled one and an event queued for it). */
function webhookEndpointRows(
  target: string,
  rule: RuleName,
  pick: (w: World) => { id: string; disabled: string; event: string },
  // A type the endpoint may be sent: a tenant's endpoint, its tenant's (directory) types only.
  testType: string,
): RestRow[] {
  const endpoint = (w: World) => `/api/webhooks/${pick(w).id}`;
  return [
    rest('getWebhookEndpoint', target, rule, 200, (w) => ({ path: endpoint(w) })),
    rest('updateWebhookEndpoint', target, rule, 200, (w) => ({ path: endpoint(w), ...json({ description: 'changed' }) })),
    rest('deleteWebhookEndpoint', target, rule, 204, (w) => ({ path: endpoint(w) })),
    rest('enableWebhookEndpoint', `${target}, disabled`, rule, 200, (w) => ({ path: `/api/webhooks/${pick(w).disabled}/enable` })),
    rest('rotateWebhookSecret', target, rule, 200, (w) => ({ path: `${endpoint(w)}/rotate-secret`, ...json({}) })),
    rest('testWebhookEndpoint', target, rule, 202, (w) => ({ path: `${endpoint(w)}/test`, ...json({ event_type: testType }) })),
    rest('replayWebhookEvent', target, rule, 202, (w) => ({ path: `${endpoint(w)}/replay`, ...json({ event_id: pick(w).event }) })),
    rest('getWebhookEvent', target, rule, 200, (w) => ({ path: `${endpoint(w)}/events/${pick(w).event}` })),
    rest('replayWebhookRange', target, rule, 202, (w) => ({
      path: `${endpoint(w)}/replay-range`,
      ...json({ since: '2000-01-01T00:00:00Z' }),
    })),
    rest('listWebhookAttempts', target, rule, 200, (w) => ({ path: `${endpoint(w)}/attempts` })),
    rest('getWebhookHealth', target, rule, 200, (w) => ({ path: `${endpoint(w)}/health` })),
  ];
}

export const REST_ROWS: RestRow[] = [
  // admin.yaml
  rest('listTenants', 'the platform', 'platformAdmin', 200, () => ({ path: '/api/v1/admin/tenants' })),
  rest('createTenant', 'the platform', 'platformAdmin', 201, (_w, c) => ({
    path: '/api/v1/admin/tenants',
    ...json({ id: mine(c, 'initech'), name: 'Initech' }),
  })),
  ...tenantAdministration(TENANT_A),
  ...tenantAdministration(TENANT_B),

  // auth.yaml
  rest('discoverSignIn', 'tenant A’s address', 'public', 200, () => ({ path: '/auth/discover?email=someone%40acme.example' })),
  rest(
    'registerLocal',
    'a new address',
    'public',
    201,
    (_w, c) => ({
      path: '/auth/local/register',
      ...json({
        email: `${mine(c, 'new')}@example.org`,
        password: 'another good passphrase',
        username: mine(c, 'new').replace(/-/g, '_'),
        displayName: 'New',
      }),
    }),
    { mutates: true },
  ),
  rest(
    'verifyEmail',
    'an address in tenant A’s domain',
    'public',
    200,
    async (_w, c, { server, mail }) => {
      const email = `${mine(c, 'proof')}@acme.example`;
      await server.api.post('/auth/local/register', {
        body: { email, password: 'another good passphrase', username: mine(c, 'proof').replace(/-/g, '_'), displayName: 'Proof' },
        expect: 202,
      });
      return { path: '/auth/local/verify-email', ...json({ email, code: mailedCode(mail, email) }) };
    },
    { mutates: true },
  ),
  rest(
    'login',
    'dora’s password account',
    'public',
    200,
    () => ({ path: '/auth/login', ...json({ email: 'dora@example.org', password: 'correct horse battery staple' }) }),
    {
      mutates: true,
    },
  ),
  rest('getSession', 'the caller’s session', 'signedIn', 200, () => ({ path: '/auth/session' }), { check: sessionOfCaller }),
  rest('logout', 'the caller’s session', 'signedIn', 200, () => ({ path: '/auth/logout' })),
  rest('samlLogin', 'tenant A', 'public', 302, () => ({ path: '/auth/saml/acme/login' }), { mutates: true }),
  rest('samlCallback', 'tenant A', 'providerAssertion', 302, (w) => ({
    path: '/auth/saml/acme/callback',
    ...form({ SAMLResponse: Buffer.from('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>').toString('base64') }),
  })),
  rest('samlSingleLogoutRedirect', 'tenant A', 'providerLogoutMessage', 302, () => ({
    path: `/auth/saml/acme/slo?SAMLRequest=${encodeURIComponent(deflateRawSync(FORGED_LOGOUT_REQUEST).toString('base64'))}`,
  })),
  rest('samlSingleLogoutPost', 'tenant A', 'providerLogoutMessage', 302, () => ({
    path: '/auth/saml/acme/slo',
    ...form({ SAMLRequest: Buffer.from(FORGED_LOGOUT_REQUEST).toString('base64') }),
  })),
  rest('samlMetadata', 'tenant A', 'public', 200, () => ({ path: '/saml/metadata/acme' })),
  rest('oidcLogin', 'tenant B', 'public', 302, () => ({ path: '/auth/oidc/globex/login' }), { mutates: true }),
  rest('oidcCallback', 'tenant B', 'providerAssertion', 302, () => ({ path: '/auth/oidc/globex/callback?code=forged&state=forged' })),
  rest('oidcBackchannelLogout', 'tenant B', 'providerToken', 200, () => ({
    path: '/auth/oidc/globex/backchannel-logout',
    ...form({ logout_token: 'eyJhbGciOiJub25lIn0.eyJzaWQiOiJ4In0.' }),
  })),

  // portal.yaml: a link is the credential that opens a session; the session's own routes take its cookie only.
  rest(
    'openPortalSession',
    'a portal link of tenant A',
    'public',
    201,
    async (w, _caller, { server }) => {
      const link = await server.api.post('/api/v1/admin/tenants/acme/portal-links', {
        token: w.token.platformAdmin,
        body: { intents: ['sso'] },
        expect: 201,
      });
      return { path: '/portal/session', ...json({ link: new URL(link.body.url as string).hash.slice('#link='.length) }) };
    },
    { mutates: true },
  ),
  rest('getPortalSession', 'the caller’s portal session', 'portalSession', 200, () => ({ path: '/portal/session' })),
  rest('closePortalSession', 'the caller’s portal session', 'portalSession', 204, () => ({ path: '/portal/session' })),

  // ops.yaml
  rest('healthz', 'the server', 'public', 200, () => ({ path: '/healthz' })),
  rest('readyz', 'the server', 'public', 200, () => ({ path: '/readyz' })),
  rest('metrics', 'the server', 'metricsToken', 200, () => ({ path: '/metrics' })),
  rest('listOpenApiDocuments', 'the published documents', 'public', 200, () => ({ path: '/openapi' })),
  rest('getOpenApiDocument', 'rest-v1', 'public', 200, () => ({ path: '/openapi/rest-v1.json' })),

  // posts.yaml
  rest('listPosts', 'every author’s posts', 'public', 200, () => ({ path: '/posts?limit=100' }), { check: noForeignDrafts }),
  rest('getFeed', 'every author’s posts', 'public', 200, () => ({ path: '/feed?limit=100' }), { check: noForeignDrafts }),

  // rest-v1.yaml: the catalog is the platform's
  rest('listProducts', 'the catalog', 'public', 200, () => ({ path: '/api/v1/products' })),
  rest('searchProducts', 'the catalog', 'public', 200, () => ({ path: '/api/v1/products/search?q=Product' })),
  rest('getProduct', 'a product', 'public', 200, (w) => ({ path: product(w) })),
  rest('getProductImage', 'a product image', 'public', 200, (w) => ({ path: `${product(w)}/images/${w.imageId}` })),
  rest('createProduct', 'the catalog', 'platformAdmin', 201, (_w, c) => ({
    path: '/api/v1/products',
    ...json({ name: 'Lamp', price: 10, sku: mine(c, 'SKU').toUpperCase(), category: 'HOME' }),
  })),
  rest('replaceProduct', 'a product', 'platformAdmin', 200, (w) => ({
    path: product(w),
    ...json({ name: 'Lamp', price: 11, sku: 'SKU-REPLACED', category: 'HOME' }),
  })),
  rest('patchProduct', 'a product', 'platformAdmin', 200, (w) => ({ path: product(w), ...json({ price: 1 }) })),
  rest('deleteProduct', 'a product', 'platformAdmin', 204, (w) => ({ path: product(w) })),
  rest('uploadProductImage', 'a product', 'platformAdmin', 201, (w) => ({
    path: `${product(w)}/images`,
    raw: multipart('file', ONE_PIXEL_PNG, 'pixel.png', 'image/png'),
  })),
  rest('getConfig', 'the config document', 'public', 200, () => ({ path: '/api/v1/files/config' })),
  rest('updateConfig', 'the config document', 'platformAdmin', 200, () => ({
    path: '/api/v1/files/config',
    ...json({ settings: { maintenanceMode: true } }),
  })),
  // customers and orders: their user's
  rest('createCustomer', 'the caller', 'signedIn', 201, (_w, c) => ({
    path: '/api/v1/customers',
    ...json({ name: 'New', email: `${mine(c, 'new')}@customers.example` }),
  })),
  rest('getCustomer', 'USER’s customer', 'owner', 200, (w) => ({ path: `/api/v1/customers/${w.customer.user}` })),
  rest('listOrders', 'every customer’s orders', 'signedIn', 200, () => ({ path: '/api/v1/orders?size=100' }), { check: ownOrdersOnly }),
  rest('createOrder', 'USER’s customer', 'owner', 201, (w) => ({
    path: '/api/v1/orders',
    ...json({ customerId: w.customer.user, items: [{ productId: w.productId, quantity: 1 }] }),
  })),
  rest('getOrder', 'USER’s order', 'owner', 200, (w) => ({ path: `/api/v1/orders/${w.order.user}` })),
  rest('confirmOrder', 'USER’s pending order', 'owner', 200, (w) => ({ path: `/api/v1/orders/${w.order.user}/confirm` })),
  rest('cancelOrder', 'USER’s pending order', 'owner', 200, (w) => ({ path: `/api/v1/orders/${w.order.user}/cancel` })),
  rest('shipOrder', 'USER’s confirmed order', 'platformAdmin', 200, (w) => ({
    path: `/api/v1/orders/${w.confirmedOrder}/ship`,
    ...json({ carrier: 'UPS', trackingNumber: '1Z999AA10123456785' }),
  })),
  rest('deliverOrder', 'USER’s shipped order', 'platformAdmin', 200, (w) => ({ path: `/api/v1/orders/${w.shippedOrder}/deliver` })),
  rest('getOrderTracking', 'USER’s shipped order', 'owner', 200, (w) => ({ path: `/api/v1/orders/${w.shippedOrder}/tracking` })),
  // files: their uploader's
  rest('uploadFile', 'the caller', 'signedIn', 201, () => ({
    path: '/api/v1/files',
    raw: multipart('file', Buffer.from('hello'), 'hello.txt', 'text/plain'),
  })),
  rest('downloadFile', 'USER’s file', 'ownerOnlyHidden', 200, (w) => ({ path: `/api/v1/files/${w.file.user}` })),

  // rest-v2.yaml
  rest('listProductsV2', 'the catalog', 'public', 200, () => ({ path: '/api/v2/products' })),
  rest('searchProductsV2', 'the catalog', 'public', 200, () => ({ path: '/api/v2/products/search?q=Product' })),
  rest('getProductV2', 'a product', 'public', 200, (w) => ({ path: productV2(w) })),
  rest('createProductV2', 'the catalog', 'platformAdmin', 201, (_w, c) => ({
    path: '/api/v2/products',
    ...json({ name: 'Lamp', price: { amount: '19.90', currency: 'USD' }, sku: mine(c, 'SKU2').toUpperCase(), category: 'HOME' }),
  })),
  rest('patchProductV2', 'a product', 'platformAdmin', 200, (w) => ({ path: productV2(w), ...json({ quantity: 3 }) })),
  rest('deleteProductV2', 'a product', 'platformAdmin', 204, (w) => ({ path: productV2(w) })),

  // scim.yaml: a tenant's SCIM token is its only key
  rest('scimListUsers', 'tenant A', 'scimClient', 200, () => ({ path: '/scim/v2/Users' })),
  rest('scimCreateUser', 'tenant A', 'scimClient', 201, () => ({ path: '/scim/v2/Users', ...scim({ userName: 'scim-new@acme.example' }) })),
  rest('scimGetUser', 'USER', 'scimClient', 200, (w) => ({ path: `/scim/v2/Users/${w.userId.user}` })),
  rest('scimReplaceUser', 'USER', 'scimClient', 200, (w) => ({
    path: `/scim/v2/Users/${w.userId.user}`,
    ...scim({ userName: 'mx_ursula@acme.example', active: false }),
  })),
  rest('scimPatchUser', 'USER', 'scimClient', 200, (w) => ({
    path: `/scim/v2/Users/${w.userId.user}`,
    ...scim({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] }),
  })),
  rest('scimDeleteUser', 'USER', 'scimClient', 204, (w) => ({ path: `/scim/v2/Users/${w.userId.user}` })),
  rest('scimListGroups', 'tenant A', 'scimClient', 200, () => ({ path: '/scim/v2/Groups' })),
  rest('scimCreateGroup', 'tenant A', 'scimClient', 201, () => ({ path: '/scim/v2/Groups', ...scim({ displayName: 'more admins' }) })),
  rest('scimGetGroup', 'tenant A’s admins', 'scimClient', 200, (w) => ({ path: `/scim/v2/Groups/${w.groupId.acme}` })),
  rest('scimReplaceGroup', 'tenant A’s admins', 'scimClient', 200, (w) => ({
    path: `/scim/v2/Groups/${w.groupId.acme}`,
    ...scim({ displayName: 'admins', members: [{ value: w.userId.user }] }),
  })),
  rest('scimPatchGroup', 'tenant A’s admins', 'scimClient', 200, (w) => ({
    path: `/scim/v2/Groups/${w.groupId.acme}`,
    ...scim({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'add', path: 'members', value: [{ value: w.userId.user }] }],
    }),
  })),
  rest('scimDeleteGroup', 'tenant A’s admins', 'scimClient', 204, (w) => ({ path: `/scim/v2/Groups/${w.groupId.acme}` })),
  rest('scimServiceProviderConfig', 'tenant A', 'scimClient', 200, () => ({ path: '/scim/v2/ServiceProviderConfig' })),
  rest('scimListResourceTypes', 'tenant A', 'scimClient', 200, () => ({ path: '/scim/v2/ResourceTypes' })),
  rest('scimGetResourceType', 'tenant A', 'scimClient', 200, () => ({ path: '/scim/v2/ResourceTypes/User' })),
  rest('scimListSchemas', 'tenant A', 'scimClient', 200, () => ({ path: '/scim/v2/Schemas' })),
  rest('scimGetSchema', 'tenant A', 'scimClient', 200, () => ({ path: '/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User' })),

  // webhooks.yaml: a tenant's ADMIN manages its tenant's endpoints, the platform ADMIN every one
  rest('listWebhookEndpoints', "the caller's scope", 'ownScopeAdmin', 200, () => ({ path: '/api/webhooks' })),
  rest('createWebhookEndpoint', "the caller's scope", 'ownScopeAdmin', 201, (_w, c) => ({
    path: '/api/webhooks',
    ...json({ url: `https://127.0.0.1:9/${mine(c, 'hook')}`, events: ['*'] }),
  })),
  rest('listWebhookEventTypes', "the caller's scope", 'ownScopeAdmin', 200, () => ({ path: '/api/webhooks/event-types' })),
  rest('listWebhookDeadLetters', "the caller's scope", 'ownScopeAdmin', 200, () => ({ path: '/api/webhooks/dead-letters' })),
  ...webhookEndpointRows(
    'a platform endpoint',
    'platformEndpoint',
    (w) => ({
      id: w.endpointId,
      disabled: w.disabledEndpointId,
      event: w.eventId,
    }),
    'order.shipped',
  ),
  ...webhookEndpointRows(
    "tenant A's endpoint",
    'ownScopeAdmin',
    (w) => ({
      id: w.tenantEndpointId,
      disabled: w.tenantDisabledEndpointId,
      event: w.tenantEventId,
    }),
    'user.updated',
  ),
];

// ---- GraphQL root fields -------------------------------------------------------------------

const byId = (pick: (w: World) => string) => (w: World) => ({ id: pick(w) });

export const GRAPHQL_ROWS: GraphQLRow[] = [
  graphql(
    'Query.user',
    'USER',
    'public',
    'query($id: ID!) { user(id: $id) { id } }',
    byId((w) => w.userId.user),
  ),
  graphql(
    'Query.user',
    'user of tenant B',
    'public',
    'query($id: ID!) { user(id: $id) { id } }',
    byId((w) => w.userId.tenantBUser),
  ),
  graphql(
    'Query.users',
    'the directory',
    'public',
    '{ users(size: 50) { content { id } } }',
    undefined,
    listsDirectory((d) => d.users.content),
  ),
  graphql(
    'Query.searchUsers',
    'the directory',
    'public',
    '{ searchUsers(query: "mx", limit: 50) { id } }',
    undefined,
    listsDirectory((d) => d.searchUsers),
  ),
  graphql(
    'Query.allUsers',
    'the directory',
    'gqlOwnTenantAdmin',
    '{ allUsers { id } }',
    undefined,
    listsDirectory((d) => d.allUsers),
  ),
  graphql(
    'Query.post',
    'USER’s published post',
    'public',
    'query($id: ID!) { post(id: $id) { id } }',
    byId((w) => w.published.user),
  ),
  graphql(
    'Query.post',
    'USER’s archived post',
    'public',
    'query($id: ID!) { post(id: $id) { id } }',
    byId((w) => w.archived),
  ),
  graphql(
    'Query.post',
    'USER’s draft',
    'gqlDraft',
    'query($id: ID!) { post(id: $id) { id } }',
    byId((w) => w.draft.user),
  ),

  graphql(
    'Mutation.createUser',
    'a new user',
    'public',
    'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }',
    (_w, c) => ({
      input: { username: mine(c, 'new').replace(/-/g, '_'), email: `${mine(c, 'new')}@example.org`, displayName: 'New' },
    }),
  ),
  graphql(
    'Mutation.updateUser',
    'USER',
    'gqlSelf',
    'mutation($id: ID!) { updateUser(id: $id, input: { bio: "changed" }) { id } }',
    byId((w) => w.userId.user),
  ),
  graphql(
    'Mutation.deleteUser',
    'USER (tenant A)',
    'gqlOwnTenantAdmin',
    'mutation($id: ID!) { deleteUser(id: $id) }',
    byId((w) => w.userId.user),
  ),
  graphql(
    'Mutation.deleteUser',
    'user of tenant B',
    'gqlOtherTenantAdmin',
    'mutation($id: ID!) { deleteUser(id: $id) }',
    byId((w) => w.userId.tenantBUser),
  ),
  graphql(
    'Mutation.followUser',
    'dora',
    'gqlSignedIn',
    'mutation($id: ID!) { followUser(userId: $id) { id } }',
    byId((w) => w.userId.dora),
  ),
  graphql(
    'Mutation.unfollowUser',
    'dora',
    'gqlSignedIn',
    'mutation($id: ID!) { unfollowUser(userId: $id) { id } }',
    byId((w) => w.userId.dora),
  ),
  graphql('Mutation.createPost', 'the caller', 'gqlSignedIn', 'mutation { createPost(input: { title: "New", content: "Text" }) { id } }'),
  graphql(
    'Mutation.updatePost',
    'USER’s published post',
    'gqlAuthor',
    'mutation($id: ID!) { updatePost(id: $id, input: { title: "Changed" }) { id } }',
    byId((w) => w.published.user),
  ),
  graphql(
    'Mutation.updatePost',
    'USER’s draft',
    'gqlDraftChange',
    'mutation($id: ID!) { updatePost(id: $id, input: { title: "Changed" }) { id } }',
    byId((w) => w.draft.user),
  ),
  graphql(
    'Mutation.publishPost',
    'USER’s draft',
    'gqlDraftChange',
    'mutation($id: ID!) { publishPost(id: $id) { id } }',
    byId((w) => w.draft.user),
  ),
  graphql(
    'Mutation.archivePost',
    'USER’s published post',
    'gqlAuthor',
    'mutation($id: ID!) { archivePost(id: $id) { id } }',
    byId((w) => w.published.user),
  ),
  graphql(
    'Mutation.restorePost',
    'USER’s archived post',
    'gqlAuthor',
    'mutation($id: ID!) { restorePost(id: $id) { id } }',
    byId((w) => w.archived),
  ),
  graphql(
    'Mutation.likePost',
    'USER’s published post',
    'gqlSignedIn',
    'mutation($id: ID!) { likePost(postId: $id) { id } }',
    byId((w) => w.published.user),
  ),
  graphql(
    'Mutation.likePost',
    'USER’s draft',
    'gqlDraftChange',
    'mutation($id: ID!) { likePost(postId: $id) { id } }',
    byId((w) => w.draft.user),
  ),
  graphql(
    'Mutation.unlikePost',
    'USER’s published post',
    'gqlSignedIn',
    'mutation($id: ID!) { unlikePost(postId: $id) { id } }',
    byId((w) => w.published.user),
  ),
  graphql(
    'Mutation.addComment',
    'USER’s published post',
    'gqlSignedIn',
    'mutation($id: ID!) { addComment(postId: $id, content: "Hi") { id } }',
    byId((w) => w.published.user),
  ),
  graphql(
    'Mutation.addComment',
    'USER’s draft',
    'gqlDraftChange',
    'mutation($id: ID!) { addComment(postId: $id, content: "Hi") { id } }',
    byId((w) => w.draft.user),
  ),
  graphql(
    'Mutation.replyToComment',
    'USER’s comment',
    'gqlSignedIn',
    'mutation($id: ID!) { replyToComment(commentId: $id, content: "Hi") { id } }',
    byId((w) => w.comment),
  ),
];

export const SUBSCRIPTION_ROWS: SubscriptionRow[] = [
  {
    kind: 'subscription',
    field: 'Subscription.postCreated',
    target: 'every author’s posts',
    rule: 'public',
    document: 'subscription { postCreated { id } }',
    probe: (server, w) => seed(server).post(w.userId.user, 'probe'),
  },
  {
    kind: 'subscription',
    field: 'Subscription.commentAdded',
    target: 'USER’s published post',
    rule: 'public',
    document: 'subscription($id: ID!) { commentAdded(postId: $id) { id } }',
    variables: (w) => ({ id: w.published.user }),
    probe: (server, w) => seed(server).comment(w.userId.user, Number(w.published.user)),
  },
  {
    kind: 'subscription',
    field: 'Subscription.commentAdded',
    target: 'USER’s draft',
    rule: 'gqlDraft',
    document: 'subscription($id: ID!) { commentAdded(postId: $id) { id } }',
    variables: (w) => ({ id: w.draft.user }),
    probe: (server, w) => seed(server).comment(w.userId.user, Number(w.draft.user)),
  },
];

export const ROWS: Row[] = [...REST_ROWS, ...GRAPHQL_ROWS, ...SUBSCRIPTION_ROWS];
