/**
 * The world the authorization matrix runs in, built once per database through the public API (and
 * the services where the API has no door, e.g. a session for a SCIM-provisioned user, which a sign-in
 * would make). Six callers, each owning resources of every kind:
 *
 * - `user` and `otherUser`: plain users of tenant A (`acme`, SAML, provisioned by acme's SCIM client);
 * - `tenantAdmin`: an acme user whom acme's own SCIM group `admins` makes ADMIN through acme's role
 *   mapping, so an ADMIN of acme only;
 * - `tenantBUser`: a plain user of tenant B (`globex`, OpenID Connect);
 * - `platformAdmin`: an ADMIN of the platform's own tenant `default`;
 * - and, beside them, a portal session of tenant A with every intent (`World.portal`), whose expected
 *   answers follow from the others' (rules.ts `portalCell`).
 *
 * The resources an operation is aimed at belong to `user` (tenant A) unless a row says otherwise.
 */
import type { Test } from 'tap';
import { createProduct, multipart, ONE_PIXEL_PNG } from '../../catalog/fixtures.ts';
import { gql } from '../../graphql/gql.ts';
import type { DnsServer } from '../../helpers/dns-server.ts';
import { startOidcProvider } from '../../helpers/oidc-idp.ts';
import { TestSamlIdp } from '../../helpers/saml-idp.ts';
import { GROUP_SCHEMA, scimTenant, type ScimClient } from '../../helpers/scim.ts';
import type { TestServer } from '../../helpers/server.ts';
import { recordTestSignIn } from '../../../src/identity/providers/identity-providers.repository.ts';

const TEST_SIGN_IN = {
  protocol: 'saml' as const,
  subject: 'tess@acme.example',
  attributes: { email: ['tess@acme.example'] },
  mapped: { email: 'tess@acme.example', firstName: null, lastName: null, department: null, groups: [] },
  roles: [],
  outcome: 'create-user' as const,
  refusal: null,
};

export const CALLERS = ['anonymous', 'user', 'otherUser', 'tenantAdmin', 'tenantBUser', 'platformAdmin'] as const;
export type Caller = (typeof CALLERS)[number];
export type SignedIn = Exclude<Caller, 'anonymous'>;
export const SIGNED_IN = CALLERS.filter((c): c is SignedIn => c !== 'anonymous');

/** The column headings of the table in docs/security.md. */
export const CALLER_HEADINGS: Record<Caller, string> = {
  anonymous: 'anonymous',
  user: 'USER (owner)',
  otherUser: 'another USER',
  tenantAdmin: 'ADMIN of tenant A',
  tenantBUser: 'user of tenant B',
  platformAdmin: 'platform ADMIN',
};

export type Tenant = 'acme' | 'globex';
export const TENANT_A: Tenant = 'acme';
export const TENANT_B: Tenant = 'globex';

const PASSWORD = 'correct horse battery staple';

export interface World {
  token: Record<SignedIn, string>;
  /** User ids of the callers, and of `dora`, a password user of the platform's tenant nobody else is. */
  userId: Record<SignedIn | 'dora', string>;
  tenantOf: Record<SignedIn | 'dora', Tenant | 'default'>;
  scim: Record<Tenant, ScimClient>;
  /** A SCIM token of each tenant besides the one its client uses (the one the revoke rows revoke). */
  spareScimTokenId: Record<Tenant, string>;
  /** Each tenant's `admins` group. */
  groupId: Record<Tenant, string>;
  samlIdp: TestSamlIdp;
  /** Posts of every caller: one published, one draft; `user` also has an archived one. */
  published: Record<SignedIn, string>;
  draft: Record<SignedIn, string>;
  archived: string;
  /** `user`'s comment on its published post. */
  comment: string;
  productId: string;
  imageId: string;
  /** Every caller's customer and pending order; `user` also has an order CONFIRMED and one SHIPPED. */
  customer: Record<SignedIn, string>;
  order: Record<SignedIn, string>;
  confirmedOrder: string;
  shippedOrder: string;
  /** A file every caller uploaded. */
  file: Record<SignedIn, string>;
  endpointId: string;
  disabledEndpointId: string;
  /** An event queued for `endpointId` (the replay row's). */
  eventId: string;
  /** Tenant A's own endpoints (registered by its ADMIN): one active with an event queued, one disabled. */
  tenantEndpointId: string;
  tenantDisabledEndpointId: string;
  tenantEventId: string;
  /**
   * The seventh caller: a portal session of tenant A with every intent, as its `sf_portal` cookie
   * (a Cookie header) beside this server's Origin, which its unsafe requests need.
   */
  portal: { cookie: string; origin: string };
}

/** Tenant `id` with a SCIM client, a spare SCIM token and a group `admins` that its role mapping makes ADMIN. */
async function tenant(server: TestServer, admin: string, id: Tenant) {
  const scim = await scimTenant(server, id);
  const spare = await server.api.post(`/api/v1/admin/tenants/${id}/scim-tokens`, { token: admin, body: {}, expect: 201 });
  return { scim, spareTokenId: spare.body.id as string };
}

async function scimUser(server: TestServer, scim: ScimClient, name: string, domain: string) {
  const userName = `mx_${name}@${domain}`;
  const created = await scim.post(
    '/Users',
    { userName, displayName: `Mx ${name}`, emails: [{ value: userName, primary: true }] },
    { expect: 201 },
  );
  const id = created.body.id as string;
  return { id, token: (await server.app.services.sessions.create(id)).token };
}

/** Claims `domain` for `tenantId` and publishes its TXT record; verifies it when `verify`. */
async function domain(server: TestServer, dns: DnsServer, admin: string, tenantId: Tenant, name: string, verify: boolean) {
  const claim = await server.api.post(`/api/v1/admin/tenants/${tenantId}/domains`, { token: admin, body: { domain: name }, expect: 201 });
  dns.setTxt(claim.body.txtRecordName, [claim.body.txtRecordValue]);
  if (verify) {
    await server.api.post(`/api/v1/admin/tenants/${tenantId}/domains/${name}/verify`, {
      token: admin,
      body: { method: 'dns' },
      expect: 200,
    });
  }
}

export async function buildWorld(t: Test, server: TestServer, dns: DnsServer): Promise<World> {
  const { api } = server;
  const operator = await server.token('matrix-operator', ['ADMIN']);

  // The platform's tenant: its ADMIN, and dora, who signs in with a password.
  const root = await server.app.services.users.create({ username: 'mx_root', email: 'root@example.org', displayName: 'Mx Root' });
  const rootToken = (await server.app.services.sessions.create(root.id, { roles: ['ADMIN'] })).token;
  const dora = await api.post('/auth/local/register', {
    body: { email: 'dora@example.org', password: PASSWORD, username: 'mx_dora', displayName: 'Mx Dora' },
    expect: 201,
  });

  // Tenant A: SAML, role mapping admins → ADMIN, its own SCIM client making tenantAdmin an ADMIN.
  const acme = await tenant(server, operator, TENANT_A);
  const samlIdp = await TestSamlIdp.create('acme-idp');
  await api.put('/api/v1/admin/tenants/acme/identity-provider', {
    token: operator,
    body: { protocol: 'saml', metadataXml: samlIdp.metadataXml(), roleMapping: { admins: 'ADMIN' } },
    expect: 200,
  });
  // Tenant A's service provider keys, made once here rather than after every restore of the world
  // (each is an RSA key generation, the dearest thing a SAML row would otherwise repeat).
  await api.get('/saml/metadata/acme', { expect: 200 });
  // A latest test sign-in of each tenant, for the row that reads it (written as the sign-ins write it).
  await recordTestSignIn(server.database.db, TENANT_A, TEST_SIGN_IN);
  const user = await scimUser(server, acme.scim, 'ursula', 'acme.example');
  const otherUser = await scimUser(server, acme.scim, 'oscar', 'acme.example');
  const tenantAdmin = await scimUser(server, acme.scim, 'tara', 'acme.example');
  const acmeAdmins = await acme.scim.post(
    '/Groups',
    { schemas: [GROUP_SCHEMA], displayName: 'admins', members: [{ value: tenantAdmin.id }] },
    { expect: 201 },
  );
  await domain(server, dns, operator, TENANT_A, 'acme.example', true);
  await domain(server, dns, operator, TENANT_A, 'pending.acme.example', false);

  // Tenant B: OpenID Connect (a real provider on loopback), the same role mapping, one plain user.
  const globex = await tenant(server, operator, TENANT_B);
  const oidc = await startOidcProvider(t);
  await oidc.setClient({
    redirectUri: `${server.baseUrl}/auth/oidc/globex/callback`,
    backchannelLogoutUri: `${server.baseUrl}/auth/oidc/globex/backchannel-logout`,
  });
  await api.put('/api/v1/admin/tenants/globex/identity-provider', {
    token: operator,
    body: {
      protocol: 'oidc',
      oidc: { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret },
      roleMapping: { admins: 'ADMIN' },
    },
    expect: 200,
  });
  await recordTestSignIn(server.database.db, TENANT_B, { ...TEST_SIGN_IN, protocol: 'oidc' });
  const tenantBUser = await scimUser(server, globex.scim, 'gina', 'globex.example');
  const globexAdmins = await globex.scim.post('/Groups', { schemas: [GROUP_SCHEMA], displayName: 'admins' }, { expect: 201 });
  await domain(server, dns, operator, TENANT_B, 'globex.example', true);
  await domain(server, dns, operator, TENANT_B, 'pending.globex.example', false);

  const token: Record<SignedIn, string> = {
    user: user.token,
    otherUser: otherUser.token,
    tenantAdmin: tenantAdmin.token,
    tenantBUser: tenantBUser.token,
    platformAdmin: rootToken,
  };
  const userId: World['userId'] = {
    user: user.id,
    otherUser: otherUser.id,
    tenantAdmin: tenantAdmin.id,
    tenantBUser: tenantBUser.id,
    platformAdmin: root.id,
    dora: dora.body.user.id as string,
  };

  // Content: each caller's published post and draft; user's archived post and comment.
  const published = {} as Record<SignedIn, string>;
  const draft = {} as Record<SignedIn, string>;
  const createPost = `mutation($input: CreatePostInput!) { createPost(input: $input) { id } }`;
  for (const caller of SIGNED_IN) {
    for (const status of ['PUBLISHED', 'DRAFT'] as const) {
      const title = `${status === 'DRAFT' ? 'draft' : 'published'} of ${caller}`;
      const r = await gql(server, createPost, { input: { title, content: title, status } }, token[caller]);
      (status === 'DRAFT' ? draft : published)[caller] = r.body.data.createPost.id as string;
    }
  }
  const archivedPost = await gql(
    server,
    createPost,
    { input: { title: 'archived of user', content: 'x', status: 'PUBLISHED' } },
    token.user,
  );
  const archived = archivedPost.body.data.createPost.id as string;
  await gql(server, `mutation($id: ID!) { archivePost(id: $id) { id } }`, { id: archived }, token.user);
  const comment = await gql(
    server,
    `mutation($id: ID!) { addComment(postId: $id, content: "first") { id } }`,
    { id: published.user },
    token.user,
  );

  // The catalog (the platform's), every caller's customer, order and file.
  const product = await createProduct(server, { stockQuantity: 1000 });
  const image = await api.post(`/api/v1/products/${product.id}/images`, {
    raw: multipart('file', ONE_PIXEL_PNG, 'pixel.png', 'image/png'),
    token: rootToken,
    expect: 201,
  });
  const customer = {} as Record<SignedIn, string>;
  const order = {} as Record<SignedIn, string>;
  const file = {} as Record<SignedIn, string>;
  const newOrder = async (caller: SignedIn) =>
    (
      await api.post('/api/v1/orders', {
        token: token[caller],
        body: { customerId: customer[caller], items: [{ productId: product.id, quantity: 1 }] },
        expect: 201,
      })
    ).body.id as string;
  for (const caller of SIGNED_IN) {
    const created = await api.post('/api/v1/customers', {
      token: token[caller],
      body: { name: `customer of ${caller}`, email: `${caller}@customers.example` },
      expect: 201,
    });
    customer[caller] = created.body.id as string;
    order[caller] = await newOrder(caller);
    const uploaded = await api.post('/api/v1/files', {
      raw: multipart('file', Buffer.from(`file of ${caller}`), `${caller}.txt`, 'text/plain'),
      token: token[caller],
      expect: 201,
    });
    file[caller] = uploaded.body.id as string;
  }
  const confirmedOrder = await newOrder('user');
  await api.post(`/api/v1/orders/${confirmedOrder}/confirm`, { token: token.user, expect: 200 });
  const shippedOrder = await newOrder('user');
  await api.post(`/api/v1/orders/${shippedOrder}/confirm`, { token: token.user, expect: 200 });
  await api.post(`/api/v1/orders/${shippedOrder}/ship`, {
    token: rootToken,
    body: { carrier: 'UPS', trackingNumber: '1Z999AA10123456784' },
    expect: 200,
  });

  // Webhook endpoints of the platform: one active with an event queued, one disabled.
  const endpoint = await api.post('/api/webhooks', {
    token: rootToken,
    body: { url: 'https://127.0.0.1:9/hooks', events: ['*'] },
    expect: 201,
  });
  const queued = await api.post(`/api/webhooks/${endpoint.body.id as string}/test`, {
    token: rootToken,
    body: { event_type: 'order.created' },
    expect: 202,
  });
  const disabled = await api.post('/api/webhooks', {
    token: rootToken,
    body: { url: 'https://127.0.0.1:9/disabled', events: ['*'] },
    expect: 201,
  });
  // Tenant A's own, registered by its ADMIN.
  const tenantEndpoint = await api.post('/api/webhooks', {
    token: token.tenantAdmin,
    body: { url: 'https://127.0.0.1:9/acme-hooks', events: ['*'] },
    expect: 201,
  });
  const tenantQueued = await api.post(`/api/webhooks/${tenantEndpoint.body.id as string}/test`, {
    token: token.tenantAdmin,
    body: { event_type: 'user.created' },
    expect: 202,
  });
  const tenantDisabled = await api.post('/api/webhooks', {
    token: token.tenantAdmin,
    body: { url: 'https://127.0.0.1:9/acme-disabled', events: ['*'] },
    expect: 201,
  });
  await server.database.db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_at: new Date() })
    .where('id', 'in', [disabled.body.id as string, tenantDisabled.body.id as string])
    .execute();

  // A portal session of tenant A with every intent, opened with a link as a browser would.
  const link = await api.post(`/api/v1/admin/tenants/${TENANT_A}/portal-links`, {
    token: operator,
    body: { intents: ['sso', 'domains', 'scim', 'webhooks'] },
    expect: 201,
  });
  const opened = await api.post('/portal/session', {
    body: { link: new URL(link.body.url as string).hash.slice('#link='.length) },
    expect: 201,
  });
  const portalCookie = opened.headers
    .getSetCookie()
    .find((line) => line.startsWith('sf_portal='))!
    .split(';')[0]!;

  return {
    portal: { cookie: portalCookie, origin: server.baseUrl },
    token,
    userId,
    tenantOf: {
      user: 'acme',
      otherUser: 'acme',
      tenantAdmin: 'acme',
      tenantBUser: 'globex',
      platformAdmin: 'default',
      dora: 'default',
    },
    scim: { acme: acme.scim, globex: globex.scim },
    spareScimTokenId: { acme: acme.spareTokenId, globex: globex.spareTokenId },
    groupId: { acme: acmeAdmins.body.id as string, globex: globexAdmins.body.id as string },
    samlIdp,
    published,
    draft,
    archived,
    comment: comment.body.data.addComment.id as string,
    productId: product.id,
    imageId: image.body.id as string,
    customer,
    order,
    confirmedOrder,
    shippedOrder,
    file,
    endpointId: endpoint.body.id as string,
    disabledEndpointId: disabled.body.id as string,
    eventId: queued.body.event_id as string,
    tenantEndpointId: tenantEndpoint.body.id as string,
    tenantDisabledEndpointId: tenantDisabled.body.id as string,
    tenantEventId: tenantQueued.body.event_id as string,
  };
}
