// test-suite: once (the SCIM protocol's rules)
/**
 * SCIM Users over HTTP: the lifecycle with RFC 7644 shapes (201 with Location, ETag and meta; GET;
 * PUT; PATCH; DELETE then 404), uniqueness per tenant (userName regardless of case, e-mail,
 * externalId: 409 `uniqueness`, never 500), the e-mail rule, the enterprise extension with a manager
 * of the same tenant, If-Match on PUT/PATCH/DELETE (412 and nothing written), and what deleting a
 * user does to their posts, comments, customers with orders, and files (decision 67).
 */
import t from 'tap';
import { sql } from 'kysely';
import { Readable } from 'node:stream';
import { gql } from '../graphql/gql.ts';
import { sharedServer } from '../helpers/server.ts';
import { ENTERPRISE, scimTenant, USER_SCHEMA } from '../helpers/scim.ts';

t.test('SCIM users', async (t) => {
  const server = await sharedServer();
  const scim = await scimTenant(server, 'acme');

  await t.test('create, read, replace, delete', async (t) => {
    const created = await scim.post(
      '/Users',
      {
        schemas: [USER_SCHEMA],
        userName: 'Bjensen@Example.com',
        externalId: 'okta-1',
        name: { givenName: 'Barbara', familyName: 'Jensen' },
        emails: [{ value: 'Barbara@Example.com', type: 'work', primary: true }],
        nickName: 'ignored: not supported',
      },
      { expect: 201 },
    );
    const user = created.body;
    t.match(user, {
      schemas: [USER_SCHEMA],
      id: String,
      externalId: 'okta-1',
      userName: 'Bjensen@Example.com',
      active: true,
      emails: [{ value: 'Barbara@Example.com', type: 'work', primary: true }],
      meta: { resourceType: 'User', version: 'W/"1"' },
    });
    t.equal(user.meta.location, `${server.config.baseUrl}/scim/v2/Users/${user.id}`);
    t.equal(user.meta.created, user.meta.lastModified);
    t.notOk('nickName' in user, 'unsupported attributes are not kept');
    const row = await server.database.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    t.match(row, { tenant_id: 'acme', source: 'scim', email: 'barbara@example.com', active: true });
    t.notOk('displayName' in user, 'no displayName was sent, so none is answered');
    t.match(row, { display_name: 'Barbara Jensen', display_name_derived: true }, 'the rest of the application shows the name parts');

    const read = await scim.get(`/Users/${user.id}`, { expect: 200 });
    t.same(read.body, user, 'GET answers what POST did');

    const replaced = await scim.put(
      `/Users/${user.id}`,
      { schemas: [USER_SCHEMA], userName: 'bjensen@example.com', displayName: 'Babs', id: 'ignored', meta: { version: 'ignored' } },
      { expect: 200 },
    );
    t.match(replaced.body, { id: user.id, userName: 'bjensen@example.com', displayName: 'Babs', active: true, meta: { version: 'W/"2"' } });
    t.notOk('externalId' in replaced.body || 'name' in replaced.body, 'PUT clears what it leaves out');
    t.notOk('emails' in replaced.body, 'PUT without emails leaves none');
    const replacedRow = await server.database.db.selectFrom('users').select('email').where('id', '=', user.id).executeTakeFirstOrThrow();
    t.equal(replacedRow.email, 'bjensen@example.com', 'without emails the userName is the address of the user record');
    t.ok(replaced.body.meta.lastModified >= user.meta.lastModified);

    await scim.delete(`/Users/${user.id}`, { expect: 204 });
    await scim.get(`/Users/${user.id}`, { expect: 404 });
    await scim.delete(`/Users/${user.id}`, { expect: 404 });
    await scim.get('/Users/not-even-an-id', { expect: 404 });
  });

  await t.test('uniqueness within the tenant is a 409 uniqueness', async (t) => {
    const first = await scim.post('/Users', { userName: 'alice@example.com', externalId: 'ext-a' }, { expect: 201 });
    for (const [label, body] of [
      ['userName in another case', { userName: 'ALICE@example.COM', emails: [{ value: 'other@example.com' }] }],
      ['the e-mail address', { userName: 'alice2', emails: [{ value: 'Alice@Example.com', primary: true }] }],
      ['externalId', { userName: 'alice3@example.com', externalId: 'ext-a' }],
    ] as const) {
      const answer = await scim.post('/Users', body, { expect: 409 });
      t.equal(answer.body.scimType, 'uniqueness', label);
    }
    const other = await scim.post('/Users', { userName: 'bob@example.com' }, { expect: 201 });
    const clash = await scim.put(`/Users/${other.body.id}`, { userName: 'Alice@example.com' }, { expect: 409 });
    t.equal(clash.body.scimType, 'uniqueness', 'PUT too');
    const patched = await scim.patch(`/Users/${other.body.id}`, [{ op: 'replace', path: 'externalId', value: 'ext-a' }], { expect: 409 });
    t.equal(patched.body.scimType, 'uniqueness', 'PATCH too');
    t.equal((await scim.get(`/Users/${first.body.id}`)).body.meta.version, 'W/"1"');
    t.equal((await scim.get(`/Users/${other.body.id}`)).body.meta.version, 'W/"1"', 'nothing was written');
  });

  await t.test('an e-mail is required unless userName is one', async (t) => {
    const refused = await scim.post('/Users', { userName: 'plainname' }, { expect: 400 });
    t.equal(refused.body.scimType, 'invalidValue');
    t.match(refused.body.detail, /emails/);
    const accepted = await scim.post(
      '/Users',
      { userName: 'plainname', emails: [{ value: 'p@example.com' }, { value: 'q@example.com', primary: true }] },
      { expect: 201 },
    );
    const row = await server.database.db.selectFrom('users').select('email').where('id', '=', accepted.body.id).executeTakeFirstOrThrow();
    t.equal(row.email, 'q@example.com', 'the primary address is the user record e-mail');
    const removed = await scim.patch(`/Users/${accepted.body.id}`, [{ op: 'remove', path: 'emails' }], { expect: 400 });
    t.equal(removed.body.scimType, 'invalidValue', 'removing every e-mail of such a user is refused');
    const twoPrimaries = await scim.post(
      '/Users',
      {
        userName: 'twice',
        emails: [
          { value: 'a@example.com', primary: true },
          { value: 'b@example.com', primary: true },
        ],
      },
      { expect: 400 },
    );
    t.equal(twoPrimaries.body.scimType, 'invalidValue', 'at most one primary address');
    const moved = await scim.patch(
      `/Users/${accepted.body.id}`,
      [{ op: 'replace', path: 'emails[value eq "p@example.com"].primary', value: true }],
      {
        expect: 200,
      },
    );
    t.same(moved.body.emails, [
      { value: 'p@example.com', primary: true },
      { value: 'q@example.com', primary: false },
    ]);
    const primaryRow = await server.database.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', accepted.body.id)
      .executeTakeFirstOrThrow();
    t.equal(primaryRow.email, 'p@example.com', 'the record e-mail follows the primary');
    const missing = await scim.post('/Users', { displayName: 'no userName' }, { expect: 400 });
    t.equal(missing.body.scimType, 'invalidValue', 'a required attribute missing (RFC 7644 §3.12)');
    t.match(missing.body.detail, /userName/);
    const putMissing = await scim.put(`/Users/${accepted.body.id}`, { displayName: 'no userName' }, { expect: 400 });
    t.equal(putMissing.body.scimType, 'invalidValue', 'PUT too');
    t.match(putMissing.body.detail, /userName/);
    const wrongType = await scim.post('/Users', { userName: 'typed@example.com', emails: 'not a list' }, { expect: 400 });
    t.equal(wrongType.body.scimType, 'invalidSyntax', 'a body that breaks the schema otherwise stays invalidSyntax');
  });

  await t.test('enterprise extension and manager', async (t) => {
    const boss = await scim.post('/Users', { userName: 'boss@example.com', displayName: 'The Boss' }, { expect: 201 });
    const created = await scim.post(
      '/Users',
      {
        schemas: [USER_SCHEMA, ENTERPRISE],
        userName: 'worker@example.com',
        [ENTERPRISE]: { employeeNumber: '701984', department: 'Tour Operations', manager: { value: boss.body.id } },
      },
      { expect: 201 },
    );
    t.same(created.body.schemas, [USER_SCHEMA, ENTERPRISE]);
    t.same(created.body[ENTERPRISE], {
      employeeNumber: '701984',
      department: 'Tour Operations',
      manager: { value: boss.body.id, displayName: 'The Boss', $ref: `${server.config.baseUrl}/scim/v2/Users/${boss.body.id}` },
    });
    const unknown = await scim.patch(
      `/Users/${created.body.id}`,
      [{ op: 'replace', path: `${ENTERPRISE}:manager.value`, value: 'nobody' }],
      { expect: 400 },
    );
    t.equal(unknown.body.scimType, 'invalidValue', 'a manager must be a user of the tenant');
    const cleared = await scim.patch(`/Users/${created.body.id}`, [{ op: 'remove', path: `${ENTERPRISE}:manager` }], { expect: 200 });
    t.same(cleared.body[ENTERPRISE], { employeeNumber: '701984', department: 'Tour Operations' });
  });

  await t.test('If-Match makes PUT, PATCH and DELETE conditional', async (t) => {
    const created = await scim.post('/Users', { userName: 'carol@example.com' }, { expect: 201 });
    const path = `/Users/${created.body.id}`;
    const stale = { 'if-match': 'W/"7"' };
    for (const [label, call] of [
      ['PUT', () => scim.put(path, { userName: 'carol@example.com', displayName: 'x' }, { headers: stale })],
      ['PATCH', () => scim.patch(path, [{ op: 'replace', path: 'displayName', value: 'x' }], { headers: stale })],
      ['DELETE', () => scim.delete(path, { headers: stale })],
    ] as const) {
      const answer = await call();
      t.equal(answer.status, 412, `${label} with a stale version`);
      t.equal(answer.headers.get('etag'), 'W/"1"', `${label}: the 412 names the current version`);
    }
    t.same((await scim.get(path)).body, created.body, 'nothing was written');
    await scim.patch(path, [{ op: 'replace', path: 'displayName', value: 'Carol' }], { headers: { 'if-match': 'garbage' }, expect: 412 });
    const patched = await scim.patch(path, [{ op: 'replace', path: 'displayName', value: 'Carol' }], {
      headers: { 'if-match': 'W/"1"' },
      expect: 200,
    });
    t.equal(patched.body.meta.version, 'W/"2"');
    const put = await scim.put(path, { userName: 'carol@example.com', displayName: 'C' }, { headers: { 'if-match': '"2"' }, expect: 200 });
    t.equal(put.body.meta.version, 'W/"3"', 'a strong form of the tag matches too');
    await scim.patch(path, [{ op: 'replace', path: 'displayName', value: 'D' }], { headers: { 'if-match': '*' }, expect: 200 });
    await scim.delete(path, { headers: { 'if-match': 'W/"3"' }, expect: 412 });
    await scim.delete(path, { headers: { 'if-match': 'W/"1", W/"4"' }, expect: 204 });
  });

  await t.test('meta.lastModified and meta.created filters compare at the precision the representation shows', async (t) => {
    const created = await scim.post('/Users', { userName: 'precise@example.com' }, { expect: 201 });
    // PostgreSQL keeps microseconds; the representation shows milliseconds. Both columns get a
    // sub-millisecond part, so the test does not depend on the database clock's resolution.
    await server.database.db
      .updateTable('users')
      .set({
        created_at: sql<Date>`created_at + interval '456 microseconds'`,
        updated_at: sql<Date>`updated_at + interval '789 microseconds'`,
      })
      .where('id', '=', created.body.id)
      .execute();
    const { meta } = (await scim.get(`/Users/${created.body.id}`, { expect: 200 })).body;
    const ids = async (filter: string) =>
      (await scim.get(`/Users?filter=${encodeURIComponent(filter)}`, { expect: 200 })).body.Resources.map((r: { id: string }) => r.id);
    for (const attribute of ['meta.lastModified', 'meta.created']) {
      const value = attribute === 'meta.created' ? meta.created : meta.lastModified;
      for (const [op, expected] of [
        ['gt', false],
        ['ge', true],
        ['eq', true],
        ['ne', false],
        ['lt', false],
        ['le', true],
      ] as const) {
        const found = (await ids(`${attribute} ${op} "${value}"`)).includes(created.body.id);
        t.equal(found, expected, `${attribute} ${op} the value it shows`);
      }
    }
  });

  await t.test('SCIM returns what was provisioned: no derived displayName, no e-mail made from userName', async (t) => {
    const profile = async (id: string) =>
      (await gql(server, 'query($id: ID!) { user(id: $id) { displayName email } }', { id })).body.data.user as {
        displayName: string;
        email: string;
      };
    const filtered = async (filter: string) =>
      (await scim.get(`/Users?filter=${encodeURIComponent(filter)}`, { expect: 200 })).body.Resources.map((r: { id: string }) => r.id);

    const named = await scim.post(
      '/Users',
      { userName: 'Named@Example.com', name: { givenName: 'Ada', familyName: 'Lovelace' }, displayName: 'Countess' },
      { expect: 201 },
    );
    const id = named.body.id as string;
    t.equal(named.body.displayName, 'Countess');
    const removed = await scim.patch(`/Users/${id}`, [{ op: 'Remove', path: 'displayName' }], { expect: 200 });
    t.notOk('displayName' in removed.body, 'a removed displayName is not answered');
    t.notOk('displayName' in (await scim.get(`/Users/${id}`)).body, 'nor read');
    t.notOk((await filtered('displayName pr')).includes(id), 'nor matched by displayName pr');
    t.ok((await filtered('displayName eq null')).includes(id), 'it is absent to filters');
    t.equal((await profile(id)).displayName, 'Ada Lovelace', 'the content API still shows a name made from the name parts');
    const again = await scim.patch(`/Users/${id}`, [{ op: 'replace', path: 'name.givenName', value: 'Augusta' }], { expect: 200 });
    t.notOk('displayName' in again.body);
    t.equal((await profile(id)).displayName, 'Augusta Lovelace', 'the derived name follows the name parts');
    const chosen = await scim.patch(`/Users/${id}`, [{ op: 'add', path: 'displayName', value: 'Augusta Lovelace' }], { expect: 200 });
    t.equal(chosen.body.displayName, 'Augusta Lovelace', 'a displayName equal to the derived one is still the client’s own');
    t.ok((await filtered('displayName eq "augusta lovelace"')).includes(id));
    await scim.patch(`/Users/${id}`, [{ op: 'remove', path: 'displayName' }], { expect: 200 });
    const edited = await gql(
      server,
      'mutation($id: ID!) { updateUser(id: $id, input: { displayName: "Ada L." }) { displayName } }',
      { id },
      await server.token(id),
    );
    t.same(edited.body.data, { updateUser: { displayName: 'Ada L.' } });
    t.equal((await scim.get(`/Users/${id}`)).body.displayName, 'Ada L.', 'a name the user chose in the content API is answered');

    const bare = await scim.post('/Users', { userName: 'Bare@Example.com' }, { expect: 201 });
    t.notOk('emails' in bare.body, 'a user created without emails has none');
    t.notOk('emails' in (await scim.get(`/Users/${bare.body.id}`)).body);
    t.notOk('displayName' in bare.body, 'nor a displayName made from userName');
    t.notOk((await filtered('emails pr')).includes(bare.body.id), 'emails pr does not match it');
    t.notOk((await filtered('emails.value eq "bare@example.com"')).includes(bare.body.id));
    t.same(await filtered('userName eq "bare@example.com"'), [bare.body.id]);
    t.same(await profile(bare.body.id), { displayName: 'Bare@Example.com', email: 'bare@example.com' }, 'the content API uses userName');
    const unchanged = await scim.put(`/Users/${bare.body.id}`, { userName: 'Bare@Example.com' }, { expect: 200 });
    t.equal(unchanged.body.meta.version, 'W/"1"', 'the same representation sent back is no change');
    const withEmails = await scim.patch(
      `/Users/${bare.body.id}`,
      [{ op: 'add', path: 'emails', value: [{ value: 'work@example.com', type: 'work' }] }],
      { expect: 200 },
    );
    t.same(withEmails.body.emails, [{ value: 'work@example.com', type: 'work' }], 'added e-mails are exactly those sent');
  });

  await t.test('a PATCH whose value filter matches nothing is 400 noTarget and writes nothing', async (t) => {
    const created = await scim.post(
      '/Users',
      { userName: 'target@example.com', emails: [{ value: 'target@example.com', type: 'work', primary: true }] },
      { expect: 201 },
    );
    const answer = await scim.patch(
      `/Users/${created.body.id}`,
      [{ op: 'replace', path: 'emails[type eq "none"].value', value: 'other@example.com' }],
      { expect: 400 },
    );
    t.equal(answer.body.scimType, 'noTarget');
    t.same((await scim.get(`/Users/${created.body.id}`)).body, created.body, 'nothing was written');
  });

  await t.test('a PATCH that changes nothing writes nothing', async (t) => {
    const created = await scim.post('/Users', { userName: 'dave@example.com', displayName: 'Dave' }, { expect: 201 });
    const same = await scim.patch(`/Users/${created.body.id}`, [{ op: 'replace', path: 'displayName', value: 'Dave' }], { expect: 200 });
    t.equal(same.body.meta.version, 'W/"1"');
  });

  await t.test("DELETE: the user's content goes, business records stay without the user, nothing dangles", async (t) => {
    const { db } = server.database;
    const services = server.app.services;
    const doomed = await scim.post('/Users', { userName: 'leaver@example.com' }, { expect: 201 });
    const keeper = await scim.post('/Users', { userName: 'stayer@example.com' }, { expect: 201 });
    const actor = {
      userId: doomed.body.id as string,
      roles: ['USER'],
      tenantRoles: [],
      storedUserId: doomed.body.id as string,
      tenantId: 'default',
      sessionId: null,
    };
    const other = {
      userId: keeper.body.id as string,
      roles: ['USER'],
      tenantRoles: [],
      storedUserId: keeper.body.id as string,
      tenantId: 'default',
      sessionId: null,
    };
    const post = await services.posts.create(actor, { title: 'Mine', content: 'text', status: 'PUBLISHED' });
    const othersPost = await services.posts.create(other, { title: 'Theirs', content: 'text', status: 'PUBLISHED' });
    await services.comments.add(actor, String(othersPost.id), 'a comment by the leaver');
    await services.comments.add(other, String(othersPost.id), 'a comment by the stayer');
    const product = await services.products.create({ name: 'Thing', price: '5.00', sku: 'SKU-DEL-1', category: 'misc', stockQuantity: 10 });
    const customer = await services.customers.create(actor, { name: 'Leaver Ltd', email: 'billing@leaver.example' });
    const order = await services.orders.create(actor, { customerId: customer.id, items: [{ productId: product.id, quantity: 2 }] });
    const file = await services.files.store(actor, {
      filename: 'cv.txt',
      contentType: 'text/plain',
      size: 5,
      content: Readable.from([Buffer.from('hello')]),
    });
    const kept = await services.files.store(other, {
      filename: 'keep.txt',
      contentType: 'text/plain',
      size: 4,
      content: Readable.from([Buffer.from('keep')]),
    });
    const group = await scim.post(
      '/Groups',
      { displayName: 'Leavers', members: [{ value: doomed.body.id }, { value: keeper.body.id }] },
      { expect: 201 },
    );
    const managed = await scim.patch(`/Users/${keeper.body.id}`, [{ op: 'add', path: `${ENTERPRISE}:manager`, value: doomed.body.id }], {
      expect: 200,
    });

    await scim.delete(`/Users/${doomed.body.id}`, { expect: 204 });

    t.equal((await db.selectFrom('posts').select('id').where('id', '=', post.id).execute()).length, 0, 'their posts are deleted');
    t.same(
      (await db.selectFrom('comments').select('content').where('post_id', '=', othersPost.id).execute()).map((c) => c.content),
      ['a comment by the stayer'],
      "their comments on others' posts are deleted, others' stay",
    );
    const customerRow = await db.selectFrom('customers').selectAll().where('id', '=', customer.id).executeTakeFirstOrThrow();
    t.equal(customerRow.user_id, null, 'the customer is kept but no longer names the user');
    t.ok(await db.selectFrom('orders').select('id').where('id', '=', order.id).executeTakeFirst(), 'its orders are kept');
    t.equal((await db.selectFrom('files').select('id').where('id', '=', file.id).execute()).length, 0, 'their files are deleted');
    t.equal((await db.selectFrom('blobs').select('id').where('id', '=', file.blob_id).execute()).length, 0, 'with their bytes');
    t.ok(await db.selectFrom('files').select('id').where('id', '=', kept.id).executeTakeFirst(), "others' files stay");
    const members = (await scim.get(`/Groups/${group.body.id}`)).body.members.map((m: { value: string }) => m.value);
    t.same(members, [keeper.body.id], 'the membership is gone');
    t.not((await scim.get(`/Groups/${group.body.id}`)).body.meta.version, group.body.meta.version, 'the group has a new version');
    const keeperAfter = (await scim.get(`/Users/${keeper.body.id}`)).body;
    t.notOk(keeperAfter[ENTERPRISE], 'the users they managed have no manager');
    t.not(keeperAfter.meta.version, managed.body.meta.version, 'and a new version');
    const dangling = await db
      .selectFrom('users')
      .select((eb) => [
        eb.selectFrom('customers').select(eb.fn.countAll<number>().as('n')).where('user_id', '=', doomed.body.id).as('customers'),
        eb.selectFrom('files').select(eb.fn.countAll<number>().as('n')).where('uploaded_by', '=', doomed.body.id).as('files'),
        eb.selectFrom('follows').select(eb.fn.countAll<number>().as('n')).where('follower_id', '=', doomed.body.id).as('follows'),
      ])
      .limit(1)
      .executeTakeFirstOrThrow();
    t.same([Number(dangling.customers), Number(dangling.files), Number(dangling.follows)], [0, 0, 0], 'no row names the deleted user');
  });
});
