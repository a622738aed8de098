// test-suite: once (the deletion rule is foreign keys and one service, identical on both engines)
/**
 * Deleting a user is one rule for every transport (decision 67): through SCIM's DELETE /Users/{id}
 * and through GraphQL's deleteUser, a user who wrote posts and comments, liked, followed and was
 * followed, managed someone, was in a group, held a session, uploaded files and owned a customer
 * with an order leaves no row in any table that names their id, except `deleted_users`, the
 * revocation record that refuses their old tokens, and the outbox's record of the directory events
 * subscribers were sent about them (`webhook_events`, ending with `user.deleted`). Business records
 * stay without them.
 */
import t, { type Test } from 'tap';
import { sql } from 'kysely';
import { Readable } from 'node:stream';
import type { Principal } from '../../src/auth/principal.ts';
import { gql } from '../graphql/gql.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { ENTERPRISE, scimTenant } from '../helpers/scim.ts';

/** Every table and column (any type, compared as text) whose value contains `id`. */
async function rowsNaming(server: TestServer, id: string): Promise<string[]> {
  const { db } = server.database;
  const columns = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
    order by c.table_name, c.column_name`.execute(db);
  const found: string[] = [];
  for (const { table_name: table, column_name: column } of columns.rows) {
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from ${sql.table(table)} where position(${id} in ${sql.ref(column)}::text) > 0`.execute(db);
    if (Number(rows[0]!.n) > 0) found.push(`${table}.${column}`);
  }
  return found;
}

const principal = (id: string): Principal => ({
  userId: id,
  roles: ['USER'],
  tenantRoles: [],
  storedUserId: id,
  tenantId: 'acme',
  sessionId: null,
});

t.test('deleting a user', async (t) => {
  const server = await sharedServer();
  const scim = await scimTenant(server, 'acme');
  const services = server.app.services;
  const operator = await server.token('operator', ['ADMIN']);

  /** A user with something in every table that can name them, and a colleague who stays. */
  async function leaverWithHistory(label: string) {
    const leaver = (await scim.post('/Users', { userName: `${label}-leaver@example.com` }, { expect: 201 })).body.id as string;
    const stayer = (await scim.post('/Users', { userName: `${label}-stayer@example.com` }, { expect: 201 })).body.id as string;
    const actor = principal(leaver);
    const colleague = principal(stayer);
    const own = await services.posts.create(actor, { title: 'Mine', content: 'text', status: 'PUBLISHED', tags: [`${label}-tag`] });
    const theirs = await services.posts.create(colleague, { title: 'Theirs', content: 'text', status: 'PUBLISHED' });
    await services.comments.add(actor, String(theirs.id), 'by the leaver');
    await services.comments.add(colleague, String(own.id), 'by the stayer, under the leaver’s post');
    await services.comments.add(colleague, String(theirs.id), 'by the stayer');
    await services.posts.like(actor, String(theirs.id));
    await services.posts.like(colleague, String(own.id));
    await services.users.follow(actor, stayer);
    await services.users.follow(colleague, leaver);
    await services.sessions.create(leaver);
    const product = await services.products.create({
      name: 'Thing',
      price: '5.00',
      sku: `SKU-${label.toUpperCase()}`,
      category: 'misc',
      stockQuantity: 10,
    });
    const customer = await services.customers.create(actor, { name: `${label} Ltd`, email: `billing@${label}.example` });
    const order = await services.orders.create(actor, { customerId: customer.id, items: [{ productId: product.id, quantity: 2 }] });
    const file = await services.files.store(actor, {
      filename: 'cv.txt',
      contentType: 'text/plain',
      size: 5,
      content: Readable.from([Buffer.from('hello')]),
    });
    const kept = await services.files.store(colleague, {
      filename: 'keep.txt',
      contentType: 'text/plain',
      size: 4,
      content: Readable.from([Buffer.from('keep')]),
    });
    await scim.post('/Groups', { displayName: `${label} team`, members: [{ value: leaver }, { value: stayer }] }, { expect: 201 });
    await scim.patch(`/Users/${stayer}`, [{ op: 'add', path: `${ENTERPRISE}:manager`, value: leaver }], { expect: 200 });
    t.ok((await rowsNaming(server, leaver)).length >= 10, 'before: the leaver is named across the schema');
    return { leaver, stayer, theirs, customer, order, kept, file };
  }

  async function checkAfter(t: Test, history: Awaited<ReturnType<typeof leaverWithHistory>>) {
    const { db } = server.database;
    t.same(
      await rowsNaming(server, history.leaver),
      ['deleted_users.user_id', 'webhook_events.object', 'webhook_events.resource_id', 'webhook_events.resource_path'],
      'no row names the id but the revocation record and the directory events sent about the user (decision 202)',
    );
    t.equal(
      (await db.selectFrom('customers').select('user_id').where('id', '=', history.customer.id).executeTakeFirstOrThrow()).user_id,
      null,
      'the customer stays, owned by no one',
    );
    t.ok(await db.selectFrom('orders').select('id').where('id', '=', history.order.id).executeTakeFirst(), 'its order stays');
    t.ok(await db.selectFrom('files').select('id').where('id', '=', history.kept.id).executeTakeFirst(), 'others’ files stay');
    t.notOk(await db.selectFrom('blobs').select('id').where('id', '=', history.file.blob_id).executeTakeFirst(), 'the leaver’s bytes go');
    t.same(
      (await db.selectFrom('comments').select('content').where('post_id', '=', history.theirs.id).execute()).map((c) => c.content),
      ['by the stayer'],
      'the colleague’s post keeps the colleague’s comment',
    );
    const stayer = (await scim.get(`/Users/${history.stayer}`, { expect: 200 })).body;
    t.notOk(stayer[ENTERPRISE], 'the colleague has no manager');
    t.equal(stayer.meta.version, 'W/"3"', 'and a new version (created, manager added, manager removed)');
  }

  await t.test('through SCIM DELETE /Users/{id}', async (t) => {
    const history = await leaverWithHistory('scim');
    await scim.delete(`/Users/${history.leaver}`, { expect: 204 });
    await checkAfter(t, history);
  });

  await t.test('through GraphQL deleteUser', async (t) => {
    const history = await leaverWithHistory('graphql');
    const deleted = await gql(server, 'mutation($id: ID!) { deleteUser(id: $id) }', { id: history.leaver }, operator);
    t.same(deleted.body, { data: { deleteUser: true } });
    await checkAfter(t, history);
  });

  await t.test('through plain SQL, the schema applies the same rule', async (t) => {
    const history = await leaverWithHistory('sql');
    await sql`delete from users where id = ${history.leaver}`.execute(server.database.db);
    await checkAfter(t, history);
  });
});
