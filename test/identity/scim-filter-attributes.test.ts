/**
 * `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5, §3.9) over a User and a Group as the
 * SCIM endpoints render them: short names, sub-attributes, fully qualified URNs, any case, the
 * attributes returned always, and unknown names refused as invalidValue.
 */
import t from 'tap';
import { projectAttributes } from '../../src/identity/scim/scim-attributes.ts';
import { scimErrorOf } from './scim-filter-seed.ts';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const META = {
  resourceType: 'User',
  created: '2026-01-01T00:00:00.000Z',
  lastModified: '2026-01-05T00:00:00.000Z',
  location: 'http://h/scim/v2/Users/u1',
  version: 'W/"3"',
};

const user = (): Record<string, unknown> => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE],
  id: 'u1',
  externalId: 'ext-1',
  userName: 'alice@example.com',
  name: { givenName: 'Alice', familyName: 'Liddell' },
  displayName: 'Alice Liddell',
  emails: [
    { value: 'alice@example.com', type: 'work', primary: true },
    { value: 'alice@home.org', type: 'home' },
  ],
  active: true,
  groups: [{ value: 'g1', display: 'Admins' }],
  [ENTERPRISE]: { employeeNumber: '100', department: 'Engineering', manager: { value: 'u0', displayName: 'Boss' } },
  meta: META,
});

const group = (): Record<string, unknown> => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
  id: 'g1',
  displayName: 'Admins',
  members: [{ value: 'u1', display: 'Alice Liddell', type: 'User' }],
  meta: { ...META, resourceType: 'Group', location: 'http://h/scim/v2/Groups/g1' },
});

const ALWAYS = { schemas: user().schemas, id: 'u1', meta: { resourceType: 'User' } };

t.test('attributes: only what is named, plus id, schemas and meta.resourceType', async (t) => {
  t.same(projectAttributes(user(), 'User', { attributes: 'userName' }), { ...ALWAYS, userName: 'alice@example.com' });
  t.same(projectAttributes(user(), 'User', { attributes: 'USERNAME, name.GIVENNAME' }), {
    ...ALWAYS,
    userName: 'alice@example.com',
    name: { givenName: 'Alice' },
  });
  t.same(projectAttributes(user(), 'User', { attributes: 'name.givenName,name' }), {
    ...ALWAYS,
    name: { givenName: 'Alice', familyName: 'Liddell' },
  });
  t.same(projectAttributes(user(), 'User', { attributes: 'emails.value' }), {
    ...ALWAYS,
    emails: [{ value: 'alice@example.com' }, { value: 'alice@home.org' }],
  });
  t.same(projectAttributes(user(), 'User', { attributes: 'urn:ietf:params:scim:schemas:core:2.0:User:displayName' }), {
    ...ALWAYS,
    displayName: 'Alice Liddell',
  });
  t.same(projectAttributes(user(), 'User', { attributes: `${ENTERPRISE}:department` }), {
    ...ALWAYS,
    [ENTERPRISE]: { department: 'Engineering' },
  });
  t.same(projectAttributes(user(), 'User', { attributes: `${ENTERPRISE.toUpperCase()}:manager.value` }), {
    ...ALWAYS,
    [ENTERPRISE]: { manager: { value: 'u0' } },
  });
  t.same(projectAttributes(user(), 'User', { attributes: 'department' }), { ...ALWAYS, [ENTERPRISE]: { department: 'Engineering' } });
  t.same(projectAttributes(user(), 'User', { attributes: ENTERPRISE }), { ...ALWAYS, [ENTERPRISE]: user()[ENTERPRISE] });
  t.same(projectAttributes(user(), 'User', { attributes: 'meta.created' }), {
    ...ALWAYS,
    meta: { resourceType: 'User', created: META.created },
  });
  t.same(projectAttributes(user(), 'User', { attributes: 'meta' }), { ...ALWAYS, meta: META });
  t.same(projectAttributes(user(), 'User', { attributes: 'id' }), ALWAYS);
  t.same(projectAttributes(group(), 'Group', { attributes: 'displayName' }), {
    schemas: group().schemas,
    id: 'g1',
    displayName: 'Admins',
    meta: { resourceType: 'Group' },
  });
  t.same(projectAttributes(group(), 'Group', { attributes: 'members.value' }), {
    schemas: group().schemas,
    id: 'g1',
    members: [{ value: 'u1' }],
    meta: { resourceType: 'Group' },
  });
});

t.test('excludedAttributes: everything else; what is returned always stays', async (t) => {
  const { emails: _emails, groups: _groups, ...rest } = user();
  t.same(projectAttributes(user(), 'User', { excludedAttributes: 'emails,GROUPS' }), rest);
  t.same(projectAttributes(user(), 'User', { excludedAttributes: 'id,schemas,meta.resourceType' }), user());
  t.same(projectAttributes(user(), 'User', { excludedAttributes: 'meta' }), { ...user(), meta: { resourceType: 'User' } });
  t.same(projectAttributes(user(), 'User', { excludedAttributes: 'name.givenName' }), { ...user(), name: { familyName: 'Liddell' } });
  t.same(projectAttributes(user(), 'User', { excludedAttributes: 'emails.type,emails.primary' }), {
    ...user(),
    emails: [{ value: 'alice@example.com' }, { value: 'alice@home.org' }],
  });
  t.same(projectAttributes(user(), 'User', { excludedAttributes: `${ENTERPRISE}:manager` }), {
    ...user(),
    [ENTERPRISE]: { employeeNumber: '100', department: 'Engineering' },
  });
  const { [ENTERPRISE]: _extension, ...withoutExtension } = user();
  t.same(projectAttributes(user(), 'User', { excludedAttributes: ENTERPRISE }), withoutExtension);
  const { members: _members, ...groupRest } = group();
  t.same(projectAttributes(group(), 'Group', { excludedAttributes: 'members' }), groupRest);
});

t.test('both, neither, and the resource left as it was', async (t) => {
  const original = user();
  t.equal(projectAttributes(original, 'User', {}), original);
  t.equal(projectAttributes(original, 'User', { attributes: '', excludedAttributes: ' ' }), original);
  t.same(projectAttributes(original, 'User', { attributes: 'name,userName', excludedAttributes: 'name.familyName' }), {
    ...ALWAYS,
    userName: 'alice@example.com',
    name: { givenName: 'Alice' },
  });
  t.same(projectAttributes(original, 'User', { attributes: 'userName,,' }), { ...ALWAYS, userName: 'alice@example.com' });
  t.same(original, user(), 'the input is not modified');
});

t.test('unknown names are invalidValue', async (t) => {
  for (const attributes of [
    'nickName',
    'name.middleName',
    'members',
    'urn:x:userName',
    `${ENTERPRISE}:userName`,
    'userName.value',
    'a.b.c',
    'emails..value',
  ]) {
    t.equal(await scimErrorOf(() => projectAttributes(user(), 'User', { attributes })), 'invalidValue', `attributes=${attributes}`);
    t.equal(
      await scimErrorOf(() => projectAttributes(user(), 'User', { excludedAttributes: attributes })),
      'invalidValue',
      `excludedAttributes=${attributes}`,
    );
  }
  for (const attributes of ['userName', 'groups', ENTERPRISE]) {
    t.equal(await scimErrorOf(() => projectAttributes(group(), 'Group', { attributes })), 'invalidValue', `Group attributes=${attributes}`);
  }
});
