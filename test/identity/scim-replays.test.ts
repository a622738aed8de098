// test-suite: once (client request sequences against the SCIM protocol)
/**
 * Acceptance replays over HTTP against the live server: the request sequences of Okta's SCIM 2.0 spec
 * test (and its user / group CRUD runs) and of Microsoft's Entra ID SCIM validator, with the bodies
 * those clients send (Okta's path-less `replace` with `{active: false}` and its rename that carries
 * `id`; Entra's capitalised op names, `"False"`, `emails[type eq "work"].value`, bare manager ids,
 * `members` removal with a value list, unsupported attributes such as addresses). Every response is
 * checked against openapi/scim.yaml and the RFC 7644 rules of test/helpers/scim.ts.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { ENTERPRISE, GROUP_SCHEMA, LIST_SCHEMA, scimClient, scimTenant, USER_SCHEMA } from '../helpers/scim.ts';

const eq = (attribute: string, value: string) => `filter=${encodeURIComponent(`${attribute} eq "${value}"`)}`;

t.test('replays', async (t) => {
  const server = await sharedServer();
  const { db } = server.database;

  await t.test("Okta's SCIM 2.0 spec test and CRUD runs", async (t) => {
    const okta = await scimTenant(server, 'okta-tenant');
    const first = await okta.get('/Users?count=1&startIndex=1', { expect: 200 });
    t.match(first.body, { schemas: [LIST_SCHEMA], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
    t.equal((await okta.get(`/Users?${eq('userName', 'invalidUser@atko.com')}`, { expect: 200 })).body.totalResults, 0);
    const missing = await okta.get(`/Users/${randomUUID()}`, { expect: 404 });
    t.equal(missing.body.status, '404');

    const userName = `${randomUUID().slice(0, 8)}@atko.com`;
    t.equal((await okta.get(`/Users?${eq('userName', userName)}`)).body.totalResults, 0, 'the random user does not exist');
    const body = {
      schemas: [USER_SCHEMA],
      userName,
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: userName, type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    };
    const created = await okta.post('/Users', body, { expect: 201 });
    t.match(created.body, { userName, active: true, name: { givenName: 'Test', familyName: 'User' } });
    t.notOk('password' in created.body, 'a password is never stored or returned');
    const id = created.body.id as string;
    t.equal((await okta.get(`/Users/${id}`, { expect: 200 })).body.userName, userName);
    t.equal((await okta.post('/Users', body, { expect: 409 })).body.scimType, 'uniqueness', 'recreating the user fails');
    const upper = await okta.get(`/Users?${eq('userName', userName.toUpperCase())}`, { expect: 200 });
    t.equal(upper.body.totalResults, 1, 'userName filter ignores case');
    t.equal(upper.body.Resources[0].id, id);
    await okta.get('/Groups', { expect: 200 });
    const badAuth = await scimClient(server, 'okta-tenant', 'sfscim_wrong').get('/Users');
    t.equal(badAuth.status, 401);

    const updated = await okta.put(`/Users/${id}`, { ...body, id, name: { givenName: 'Another', familyName: 'User' } }, { expect: 200 });
    t.equal(updated.body.name.givenName, 'Another');
    const deactivated = await okta.patch(`/Users/${id}`, [{ op: 'replace', value: { active: false } }], { expect: 200 });
    t.equal(deactivated.body.active, false);
    const row = await db.selectFrom('users').select(['active', 'tenant_id']).where('id', '=', id).executeTakeFirstOrThrow();
    t.same(row, { active: false, tenant_id: 'okta-tenant' }, 'deactivated in the one user record');
    t.equal((await okta.get(`/Users/${id}`)).body.active, false);

    const group = await okta.post('/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Okta Test Group', members: [] }, { expect: 201 });
    const gid = group.body.id as string;
    t.equal((await okta.get(`/Groups?${eq('displayName', 'okta test group')}`)).body.Resources[0].id, gid);
    await okta.patch(`/Groups/${gid}`, [{ op: 'replace', value: { id: gid, displayName: 'Okta Renamed' } }], { expect: 200 });
    const added = await okta.patch(`/Groups/${gid}`, [{ op: 'add', path: 'members', value: [{ value: id, display: userName }] }], {
      expect: 200,
    });
    t.same(
      added.body.members.map((m: { value: string }) => m.value),
      [id],
    );
    const removed = await okta.patch(`/Groups/${gid}`, [{ op: 'remove', path: `members[value eq "${id}"]` }], { expect: 200 });
    t.same(removed.body.members, []);
    t.equal(removed.body.displayName, 'Okta Renamed');
    await okta.delete(`/Groups/${gid}`, { expect: 204 });
    await okta.delete(`/Users/${id}`, { expect: 204 });
    await okta.get(`/Users/${id}`, { expect: 404 });
  });

  await t.test("Entra ID's SCIM validator", async (t) => {
    const entra = await scimTenant(server, 'entra-tenant');
    const managerBody = {
      schemas: [USER_SCHEMA],
      userName: 'Manager_1@contoso.com',
      active: true,
      displayName: 'Manager One',
      externalId: 'mgr-1',
    };
    const manager = (await entra.post('/Users', managerBody, { expect: 201 })).body;
    const user = {
      schemas: [USER_SCHEMA, ENTERPRISE],
      externalId: 'e9e30dba-f08f-4109-8486-d5c6a331660a',
      userName: 'Test_User_ab6490ee@contoso.com',
      active: true,
      addresses: [{ type: 'work', formatted: '1 Main St', primary: true }],
      displayName: 'Test_User_Display',
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b@contoso.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      phoneNumbers: [{ primary: true, type: 'work', value: '+1 555 0100' }],
      roles: [],
      title: 'Engineer',
      [ENTERPRISE]: { employeeNumber: '42', department: 'Dept', manager: { value: manager.id } },
    };
    const created = await entra.post('/Users', user, { expect: 201 });
    const id = created.body.id as string;
    t.match(created.body, {
      userName: user.userName,
      externalId: user.externalId,
      [ENTERPRISE]: { employeeNumber: '42', manager: { value: manager.id } },
    });

    const byName = await entra.get(`/Users?${eq('userName', 'test_user_AB6490EE@CONTOSO.com')}`, { expect: 200 });
    t.equal(byName.body.totalResults, 1, 'mixed-case userName filter');
    t.equal((await entra.get(`/Users?${eq('externalId', user.externalId)}`)).body.Resources[0].id, id);
    t.equal((await entra.get(`/Users?${eq('userName', 'nobody@contoso.com')}`)).body.totalResults, 0);
    t.equal((await entra.post('/Users', user, { expect: 409 })).body.scimType, 'uniqueness');

    const patched = await entra.patch(
      `/Users/${id}`,
      [
        { op: 'Replace', path: 'displayName', value: 'Updated_Display' },
        { op: 'Add', path: 'emails[type eq "work"].value', value: 'Updated_fd0ea19b@contoso.com' },
        { op: 'Replace', path: 'name.familyName', value: 'Updated_Family' },
        { op: 'Replace', path: `${ENTERPRISE}:department`, value: 'Updated_Dept' },
        { op: 'Add', path: `${ENTERPRISE}:manager`, value: manager.id },
        { op: 'Replace', value: { externalId: 'updated-external', 'name.givenName': 'Updated_Given' } },
      ],
      { expect: 200 },
    );
    t.match(patched.body, {
      displayName: 'Updated_Display',
      externalId: 'updated-external',
      name: { givenName: 'Updated_Given', familyName: 'Updated_Family' },
      emails: [{ type: 'work', value: 'Updated_fd0ea19b@contoso.com', primary: true }],
      [ENTERPRISE]: { department: 'Updated_Dept', manager: { value: manager.id } },
    });
    const email = await db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow();
    t.equal(email.email, 'updated_fd0ea19b@contoso.com', 'the record e-mail follows the primary address');

    const disabled = await entra.patch(`/Users/${id}`, [{ op: 'Replace', path: 'active', value: 'False' }], { expect: 200 });
    t.equal(disabled.body.active, false, 'Entra deactivates with the string "False"');
    t.equal((await db.selectFrom('users').select('active').where('id', '=', id).executeTakeFirstOrThrow()).active, false);
    await entra.patch(`/Users/${id}`, [{ op: 'Remove', path: `${ENTERPRISE}:manager` }], { expect: 200 });

    const group = await entra.post(
      '/Groups',
      { schemas: [GROUP_SCHEMA], externalId: 'grp-ext-1', displayName: 'Group_Display_1', members: [] },
      { expect: 201 },
    );
    const gid = group.body.id as string;
    const listed = await entra.get(`/Groups?${eq('displayName', 'GROUP_DISPLAY_1')}&excludedAttributes=members`, { expect: 200 });
    t.equal(listed.body.totalResults, 1);
    t.notOk('members' in listed.body.Resources[0], 'excludedAttributes=members');
    t.notOk('members' in (await entra.get(`/Groups/${gid}?excludedAttributes=members`)).body);
    await entra.patch(`/Groups/${gid}`, [{ op: 'Add', path: 'members', value: [{ value: id }, { value: manager.id }] }], { expect: 200 });
    const afterRemove = await entra.patch(`/Groups/${gid}`, [{ op: 'Remove', path: 'members', value: [{ value: manager.id }] }], {
      expect: 200,
    });
    t.same(
      afterRemove.body.members.map((m: { value: string }) => m.value),
      [id],
    );
    const byFilter = await entra.patch(`/Groups/${gid}`, [{ op: 'Remove', path: `members[value eq "${id}"]` }], { expect: 200 });
    t.same(byFilter.body.members, []);
    const renamed = await entra.patch(`/Groups/${gid}`, [{ op: 'Replace', path: 'displayName', value: 'Group_Display_2' }], {
      expect: 200,
    });
    t.equal(renamed.body.displayName, 'Group_Display_2');
    await entra.delete(`/Groups/${gid}`, { expect: 204 });
    await entra.get(`/Groups/${gid}`, { expect: 404 });

    await entra.delete(`/Users/${id}`, { expect: 204 });
    await entra.get(`/Users/${id}`, { expect: 404 });
    t.equal((await entra.get(`/Users?${eq('userName', user.userName)}`)).body.totalResults, 0);
  });

  await t.test('the PatchOp schema URN is required of a PATCH body', async (t) => {
    const client = await scimTenant(server, 'strict');
    const created = await client.post('/Users', { userName: 'p@example.com' }, { expect: 201 });
    const answer = await client.call('PATCH', `/Users/${created.body.id}`, {
      body: { schemas: ['urn:wrong'], Operations: [{ op: 'replace', path: 'active', value: false }] },
    });
    t.equal(answer.status, 400);
    t.equal((await client.get(`/Users/${created.body.id}`)).body.active, true);
  });
});
