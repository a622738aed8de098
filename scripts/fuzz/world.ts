/**
 * What the fuzz run needs on the server it probes: a platform ADMIN and a plain USER (real users with
 * sessions), a tenant with a SCIM token and a provisioned user, a product, a post, a customer and an
 * order, whose ids the requests use now and then so that not every path parameter misses.
 */
import { buildSchema } from 'graphql';
import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../../src/app.ts';
import type { Principal } from '../../src/auth/principal.ts';
import type { FuzzTarget } from './run.ts';

type Json = Record<string, any>;

const generated = path.resolve(import.meta.dirname, '../../generated');

/** The published documents as the generator bundled them, and the SDL's schema. */
export function fuzzDocuments(): Pick<FuzzTarget, 'docs' | 'schema'> {
  const docs: Record<string, Json> = {};
  for (const file of fs.readdirSync(path.join(generated, 'openapi')).filter((f) => f.endsWith('.json'))) {
    docs[file.replace(/\.json$/, '')] = JSON.parse(fs.readFileSync(path.join(generated, 'openapi', file), 'utf8')) as Json;
  }
  return { docs, schema: buildSchema(fs.readFileSync(path.join(generated, 'graphql/schema.graphql'), 'utf8')) };
}

/**
 * `mint` signs a JWT for a user id and roles. JWTs, not sessions: the requests include
 * `POST /auth/logout` as every caller, which would end a session and leave the rest of the run
 * anonymous.
 */
export async function prepareFuzzWorld(
  app: App,
  mint: (sub: string, roles: string[]) => Promise<string>,
): Promise<Pick<FuzzTarget, 'credentials' | 'ids'>> {
  const { services } = app;
  const root = await services.users.create({ username: 'fz_root', email: 'fz_root@example.org', displayName: 'Fz Root' });
  const plain = await services.users.create({ username: 'fz_user', email: 'fz_user@example.org', displayName: 'Fz User' });
  const other = await services.users.create({ username: 'fz_other', email: 'fz_other@example.org', displayName: 'Fz Other' });
  // The ADMIN is an operator's token (no stored user) and the USER's id is in no pool, so that no
  // request of the run (deleteUser, a SCIM deactivation) can take a caller away from the rest of it.
  const admin = await mint('fz-operator', ['ADMIN']);
  const user = await mint(plain.id, []);
  await services.tenants.create({ id: 'fuzz', name: 'Fuzz' });
  const scim = (await services.scimTokens.issue('fuzz')).token;
  const scimUser = await services.scimUsers.create('fuzz', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: 'fz.provisioned@fuzz.example',
    emails: [{ value: 'fz.provisioned@fuzz.example', primary: true }],
  });
  const scimGroup = await services.scimGroups.create('fuzz', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
    displayName: 'Fuzzers',
    members: [{ value: scimUser.row.id }],
  });
  const actor: Principal = { userId: plain.id, roles: [], tenantRoles: [], storedUserId: plain.id, tenantId: 'default', sessionId: null };
  const product = await services.products.create({ name: 'Fuzz lamp', price: '19.99', sku: 'FZ-1', category: 'HOME', stockQuantity: 5 });
  const post = await services.posts.create(actor, { title: 'Fuzz post', content: 'text', tags: ['fuzz'], status: 'PUBLISHED' });
  const customer = await services.customers.create(actor, { name: 'Fuzz Customer', email: 'fz_customer@example.org' });
  return {
    credentials: { admin, user, scim },
    ids: {
      id: [product.id, post.id, customer.id, scimUser.row.id, other.id, root.id].map(String),
      userId: [other.id, root.id],
      tenantId: ['fuzz', 'default'],
      productId: [String(product.id)],
      customerId: [String(customer.id)],
      scimUserId: [scimUser.row.id],
      scimGroupId: [scimGroup.row.id],
    },
  };
}
