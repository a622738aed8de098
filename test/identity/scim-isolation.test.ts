// test-suite: once (tenant scope is in the repository helpers' SQL, the same on both engines)
/**
 * Tenant isolation of /scim/v2: a token of tenant A never reads, lists, filters, replaces, patches or
 * deletes tenant B's users or groups, nor reaches them through group members or a manager; the same
 * userName and group name may exist in both tenants. B's resources are unchanged at the end.
 */
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { ENTERPRISE, scimTenant } from '../helpers/scim.ts';

t.test('tenant isolation for every operation', async (t) => {
  const server = await sharedServer();
  const a = await scimTenant(server, 'tenant-a');
  const b = await scimTenant(server, 'tenant-b');

  const bUser = (await b.post('/Users', { userName: 'shared@example.com', externalId: 'x-1', displayName: 'B user' }, { expect: 201 }))
    .body;
  const bGroup = (await b.post('/Groups', { displayName: 'Shared', members: [{ value: bUser.id }] }, { expect: 201 })).body;
  const aUser = (await a.post('/Users', { userName: 'SHARED@example.com', externalId: 'x-1' }, { expect: 201 })).body;
  t.not(aUser.id, bUser.id, 'the same userName and externalId exist in both tenants');
  const aGroup = (await a.post('/Groups', { displayName: 'shared', members: [{ value: aUser.id }] }, { expect: 201 })).body;
  const bBefore = (await b.get(`/Users/${bUser.id}`, { expect: 200 })).body;

  const userPath = `/Users/${bUser.id}`;
  const groupPath = `/Groups/${bGroup.id}`;
  await a.get(userPath, { expect: 404 });
  await a.put(userPath, { userName: 'taken@example.com' }, { expect: 404 });
  await a.patch(userPath, [{ op: 'replace', path: 'active', value: false }], { expect: 404 });
  await a.delete(userPath, { expect: 404 });
  await a.get(groupPath, { expect: 404 });
  await a.put(groupPath, { displayName: 'Taken', members: [] }, { expect: 404 });
  await a.patch(groupPath, [{ op: 'add', path: 'members', value: [{ value: aUser.id }] }], { expect: 404 });
  await a.patch(groupPath, [{ op: 'remove', path: `members[value eq "${bUser.id}"]` }], { expect: 404 });
  await a.delete(groupPath, { expect: 404 });

  const users = await a.get('/Users', { expect: 200 });
  t.same(
    users.body.Resources.map((u: { id: string }) => u.id),
    [aUser.id],
    'the list holds only the own tenant',
  );
  t.equal(users.body.totalResults, 1);
  for (const filter of [`id eq "${bUser.id}"`, 'userName eq "shared@example.com"', 'externalId eq "x-1"']) {
    const found = await a.get(`/Users?filter=${encodeURIComponent(filter)}`, { expect: 200 });
    t.same(
      found.body.Resources.map((u: { id: string }) => u.id),
      filter.startsWith('id') ? [] : [aUser.id],
      `filter ${filter} finds only the own tenant`,
    );
  }
  const groups = await a.get(`/Groups?filter=${encodeURIComponent('displayName eq "Shared"')}`, { expect: 200 });
  t.same(
    groups.body.Resources.map((g: { id: string }) => g.id),
    [aGroup.id],
  );
  t.same((await a.get(`/Groups?filter=${encodeURIComponent(`id eq "${bGroup.id}"`)}`)).body.totalResults, 0);

  const asMember = await a.post('/Groups', { displayName: 'Poach', members: [{ value: bUser.id }] }, { expect: 400 });
  t.equal(asMember.body.scimType, 'invalidValue', "another tenant's user is no member");
  await a.put(`/Groups/${aGroup.id}`, { displayName: 'shared', members: [{ value: bUser.id }] }, { expect: 400 });
  const asManager = await a.patch(`/Users/${aUser.id}`, [{ op: 'add', path: `${ENTERPRISE}:manager`, value: bUser.id }], { expect: 400 });
  t.equal(asManager.body.scimType, 'invalidValue', "another tenant's user is no manager");
  t.same(
    (await a.get(`/Users/${aUser.id}`)).body.groups.map((g: { value: string }) => g.value),
    [aGroup.id],
    "a user's groups are the own tenant's",
  );

  const bAfter = (await b.get(userPath, { expect: 200 })).body;
  t.same(bAfter, bBefore, "B's user is unchanged");
  t.equal(bAfter.meta.version, 'W/"1"');
  t.same((await b.get(groupPath, { expect: 200 })).body, bGroup, "B's group is unchanged");
  t.same(
    (await b.get('/Users')).body.Resources.map((u: { id: string }) => u.id),
    [bUser.id],
  );
  await b.delete(userPath, { expect: 204 });
  t.equal((await a.get(`/Users/${aUser.id}`, { expect: 200 })).body.id, aUser.id, "B's delete leaves A's same-named user");
});
