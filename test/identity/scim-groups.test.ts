// test-suite: once (the SCIM protocol's rules)
/**
 * SCIM Groups over HTTP: create with members, rename, member add/remove/replace by PATCH (plain and
 * `members[value eq "…"]` paths), PUT, DELETE (members stay users), displayName uniqueness per
 * tenant regardless of case, members that are no user of the tenant refused with 400 invalidValue,
 * a user's read-only `groups`, If-Match, and membership in group_members where sign-on reads it.
 */
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { GROUP_SCHEMA, scimTenant } from '../helpers/scim.ts';

t.test('SCIM groups', async (t) => {
  const server = await sharedServer();
  const scim = await scimTenant(server, 'acme');
  const other = await scimTenant(server, 'globex');
  const ids: string[] = [];
  for (const name of ['ann', 'ben', 'cat'])
    ids.push((await scim.post('/Users', { userName: `${name}@example.com`, displayName: name.toUpperCase() }, { expect: 201 })).body.id);
  const [ann, ben, cat] = ids as [string, string, string];
  const foreign = (await other.post('/Users', { userName: 'zed@example.com' }, { expect: 201 })).body.id as string;
  const memberIds = (group: { members?: { value: string }[] }) => (group.members ?? []).map((m) => m.value).sort();

  const created = await scim.post(
    '/Groups',
    { schemas: [GROUP_SCHEMA], displayName: 'Engineering', externalId: 'eng', members: [{ value: ann }, { value: ben }] },
    { expect: 201 },
  );
  const group = created.body;
  t.match(group, {
    schemas: [GROUP_SCHEMA],
    id: String,
    displayName: 'Engineering',
    externalId: 'eng',
    meta: { resourceType: 'Group', version: 'W/"1"' },
  });
  t.same(
    group.members.find((m: { value: string }) => m.value === ann),
    {
      value: ann,
      display: 'ANN',
      type: 'User',
      $ref: `${server.config.baseUrl}/scim/v2/Users/${ann}`,
    },
  );
  const path = `/Groups/${group.id}`;
  t.same(memberIds((await scim.get(path)).body), [ann, ben].sort());
  const rows = await server.database.db.selectFrom('group_members').select('user_id').where('group_id', '=', group.id).execute();
  t.same(rows.map((r) => r.user_id).sort(), [ann, ben].sort(), 'membership is in group_members');
  t.match((await scim.get(`/Users/${ann}`)).body.groups, [{ value: group.id, display: 'Engineering' }], "the user's groups show it");

  await t.test('uniqueness and member checks', async (t) => {
    const dup = await scim.post('/Groups', { displayName: 'ENGINEERING' }, { expect: 409 });
    t.equal(dup.body.scimType, 'uniqueness');
    t.equal((await other.post('/Groups', { displayName: 'Engineering' }, { expect: 201 })).status, 201, 'another tenant may use the name');
    for (const [label, value] of [
      ['an unknown id', 'no-such-user'],
      ["another tenant's user", foreign],
    ] as const) {
      const refused = await scim.post('/Groups', { displayName: `With ${label}`, members: [{ value }] }, { expect: 400 });
      t.equal(refused.body.scimType, 'invalidValue', label);
      const patched = await scim.patch(path, [{ op: 'add', path: 'members', value: [{ value }] }], { expect: 400 });
      t.equal(patched.body.scimType, 'invalidValue', `${label} by PATCH`);
    }
    const nameless = await scim.post('/Groups', { members: [] }, { expect: 400 });
    t.equal(nameless.body.scimType, 'invalidValue', 'a group without its required displayName');
    t.match(nameless.body.detail, /displayName/);
    await scim
      .get(`/Groups?filter=${encodeURIComponent('displayName eq "With an unknown id"')}`)
      .then((r) => t.equal(r.body.totalResults, 0, 'nothing was created'));
  });

  await t.test('PATCH members and rename', async (t) => {
    let answer = await scim.patch(path, [{ op: 'Add', path: 'members', value: [{ value: cat, display: 'ignored' }] }], { expect: 200 });
    t.same(memberIds(answer.body), [ann, ben, cat].sort());
    t.equal(answer.body.meta.version, 'W/"2"', 'a membership change is a write of the group');
    answer = await scim.patch(path, [{ op: 'remove', path: `members[value eq "${ann}"]` }], { expect: 200 });
    t.same(memberIds(answer.body), [ben, cat].sort());
    answer = await scim.patch(path, [{ op: 'Remove', path: 'members', value: [{ value: ben }] }], { expect: 200 });
    t.same(memberIds(answer.body), [cat]);
    answer = await scim.patch(path, [{ op: 'replace', path: 'members', value: [{ value: ann }, { value: ben }] }], { expect: 200 });
    t.same(memberIds(answer.body), [ann, ben].sort());
    answer = await scim.patch(path, [{ op: 'replace', path: 'displayName', value: 'Platform' }], { expect: 200 });
    t.equal(answer.body.displayName, 'Platform');
    answer = await scim.patch(path, [{ op: 'replace', value: { id: group.id, displayName: 'Platform Eng' } }], { expect: 200 });
    t.equal(answer.body.displayName, 'Platform Eng', "Okta's path-less rename");
    const readOnly = await scim.patch(`/Users/${ann}`, [{ op: 'add', path: 'groups', value: [{ value: group.id }] }], { expect: 400 });
    t.equal(readOnly.body.scimType, 'mutability', "a user's groups are changed through the group");
  });

  await t.test('PUT replaces name and members; If-Match; DELETE keeps the users', async (t) => {
    const current = (await scim.get(path)).body;
    await scim.put(path, { displayName: 'X', members: [] }, { headers: { 'if-match': 'W/"1"' }, expect: 412 });
    const replaced = await scim.put(
      path,
      { displayName: 'Ops', members: [{ value: cat }] },
      { headers: { 'if-match': current.meta.version }, expect: 200 },
    );
    t.same(memberIds(replaced.body), [cat]);
    t.notOk('externalId' in replaced.body, 'PUT clears what it leaves out');
    const list = await scim.get(`/Groups?filter=${encodeURIComponent('displayName eq "ops"')}`, { expect: 200 });
    t.equal(list.body.totalResults, 1, 'a filter on displayName ignores case');
    await scim.delete(path, { headers: { 'if-match': current.meta.version }, expect: 412 });
    await scim.delete(path, { expect: 204 });
    await scim.get(path, { expect: 404 });
    await scim.delete(path, { expect: 404 });
    t.equal((await scim.get(`/Users/${cat}`, { expect: 200 })).body.groups, undefined, 'the member is still a user, without the group');
    await scim.get('/Groups/not-a-uuid', { expect: 404 });
    await scim.patch('/Groups/not-a-uuid', [{ op: 'replace', path: 'displayName', value: 'x' }], { expect: 404 });
  });
});
