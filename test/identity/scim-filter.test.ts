// test-suite: once (the filter's SQL is the same text on both engines (C collation on both))
/**
 * SCIM list filters (RFC 7644 §3.4.2.2) translated to SQL, on the test database (PGlite, or
 * PostgreSQL with TEST_DATABASE_URL): every operator on every kind of attribute, value paths,
 * logic and precedence, case rules, tenant isolation (including through group membership),
 * sorting, paging and totalResults.
 */
import t, { type Test } from 'tap';
import { listGroupIds, listUserIds, SCIM_MAX_RESULTS, type ScimListQuery } from '../../src/identity/scim/scim-list.ts';
import { sharedServer } from '../helpers/server.ts';
import { ACME_USERS, GLOBEX_USERS, GROUP, scimErrorOf, seedScimTenants } from './scim-filter-seed.ts';

const server = await sharedServer();
const { db } = server.database;
await seedScimTenants(db);

const ACME_GROUPS: string[] = [GROUP.admins, GROUP.engineering, GROUP.empty];
type Options = Partial<Omit<ScimListQuery, 'filter'>>;

/** Ids of acme's users matching `filter`, checked to be acme's own. */
async function users(filter: string | undefined, options: Options = {}, tenantId = 'acme'): Promise<string[]> {
  const result = await listUserIds(db, {
    tenantId,
    startIndex: 1,
    count: SCIM_MAX_RESULTS,
    ...options,
    ...(filter === undefined ? {} : { filter }),
  });
  const own = tenantId === 'acme' ? ACME_USERS : GLOBEX_USERS;
  for (const id of result.ids) if (!own.includes(id)) throw new Error(`${id} of another tenant listed for ${tenantId}`);
  return result.ids;
}

async function groups(filter: string | undefined, options: Options = {}, tenantId = 'acme'): Promise<string[]> {
  const result = await listGroupIds(db, {
    tenantId,
    startIndex: 1,
    count: SCIM_MAX_RESULTS,
    ...options,
    ...(filter === undefined ? {} : { filter }),
  });
  const own = tenantId === 'acme' ? ACME_GROUPS : [GROUP.globexAdmins];
  for (const id of result.ids) if (!own.includes(id)) throw new Error(`${id} of another tenant listed for ${tenantId}`);
  return result.ids;
}

/** Each [filter, ids] pair, ids in the default order (creation, then id). */
async function expectUsers(t: Test, cases: [string, string[]][], tenantId = 'acme') {
  for (const [filter, expected] of cases) t.same(await users(filter, {}, tenantId), expected, filter);
}

t.test('string attributes: every operator, caseExact false', async (t) => {
  await expectUsers(t, [
    ['userName eq "alice@example.com"', ['u-alice']],
    ['USERNAME EQ "ALICE@EXAMPLE.COM"', ['u-alice']],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "BOB"', ['u-bob']],
    ['userName ne "bob"', ['u-alice', 'u-carol', 'u-dave']],
    ['userName co "EXAMPLE"', ['u-alice']],
    ['userName sw "B"', ['u-bob']],
    ['userName ew ".COM"', ['u-alice']],
    ['userName gt "bob"', ['u-carol', 'u-dave']],
    ['userName ge "BOB"', ['u-bob', 'u-carol', 'u-dave']],
    ['userName lt "bob"', ['u-alice']],
    ['userName le "Bob"', ['u-alice', 'u-bob']],
    ['userName pr', ACME_USERS],
    ['displayName co "BUILDER"', ['u-bob']],
    ['displayName Eq "dave"', ['u-dave']],
    ['name.familyName eq "liddell"', ['u-alice']],
    ['name.givenName pr', ['u-alice', 'u-bob']],
    ['name.familyName sw "z"', ['u-dave']],
    ['name pr', ['u-alice', 'u-bob', 'u-dave']],
    ['not (name pr)', ['u-carol']],
    ['name[givenName eq "bob" or familyName eq "zed"]', ['u-bob', 'u-dave']],
  ]);
});

t.test('LIKE metacharacters in values stand for themselves', async (t) => {
  await expectUsers(t, [
    ['userName co "%"', ['u-carol']],
    ['userName co "_"', ['u-carol']],
    ['userName sw "carol_1"', ['u-carol']],
    ['userName co "l%"', []],
    ['userName co "\\\\"', ['u-dave']],
    ['userName eq "dave\\\\x"', ['u-dave']],
    ['userName ew "\\\\X"', ['u-dave']],
    ['userName co "a_"', []],
  ]);
});

t.test('caseExact attributes: id and externalId', async (t) => {
  await expectUsers(t, [
    ['id eq "u-bob"', ['u-bob']],
    ['id eq "U-BOB"', []],
    ['externalId eq "ext-A"', ['u-alice']],
    ['externalId eq "EXT-A"', []],
    ['externalId sw "EXT"', ['u-bob']],
    ['externalId co "-"', ['u-alice', 'u-bob']],
    ['externalId pr', ['u-alice', 'u-bob']],
    ['externalId eq null', ['u-carol', 'u-dave']],
    ['externalId ne null', ['u-alice', 'u-bob']],
  ]);
});

t.test('booleans and dateTimes', async (t) => {
  await expectUsers(t, [
    ['active eq false', ['u-bob']],
    ['active eq true', ['u-alice', 'u-carol', 'u-dave']],
    ['active ne true', ['u-bob']],
    ['active pr', ACME_USERS],
    ['meta.created gt "2026-02-01T00:00:00Z"', ['u-carol', 'u-dave']],
    ['meta.created ge "2026-02-01T00:00:00Z"', ['u-bob', 'u-carol', 'u-dave']],
    ['meta.created eq "2026-01-01T01:00:00+01:00"', ['u-alice']],
    ['meta.created ne "2026-01-01T00:00:00.000Z"', ['u-bob', 'u-carol', 'u-dave']],
    ['meta.lastModified lt "2026-03-01T00:00:00Z"', ['u-alice']],
    ['meta.lastModified le "2026-03-01T00:00:00Z"', ['u-alice', 'u-bob']],
    ['meta.LASTMODIFIED gt "2026-03-01T12:00:00.5Z"', ['u-carol', 'u-dave']],
    ['meta.created pr', ACME_USERS],
    ['meta pr', ACME_USERS],
  ]);
});

t.test('emails: stored arrays, the users.email fallback, value paths', async (t) => {
  await expectUsers(t, [
    ['emails eq "ALICE@home.org"', ['u-alice']],
    ['emails co "@example.com"', ['u-alice', 'u-carol']],
    ['emails.value eq "bob@builder.net"', ['u-bob']],
    ['emails.value ew ".NET"', ['u-bob']],
    ['emails[type eq "work" and value co "@example.com"]', ['u-alice', 'u-carol']],
    // One element must satisfy the whole value filter: alice's home address is not at example.com…
    ['emails[type eq "home" and value co "@example.com"]', []],
    // …while two separate attribute expressions may be satisfied by different elements.
    ['emails.type eq "home" and emails.value co "@example.com"', ['u-alice']],
    ['emails[type eq "WORK"]', ['u-alice', 'u-carol']],
    ['emails[primary eq true]', ['u-alice', 'u-bob', 'u-carol']],
    ['emails[not (primary eq true)]', ['u-alice', 'u-dave']],
    ['emails.type pr', ['u-alice', 'u-carol', 'u-dave']],
    ['emails pr', ACME_USERS],
    ['not (emails co "example")', ['u-bob', 'u-dave']],
    ['emails.value ne "alice@example.com"', ['u-alice', 'u-bob', 'u-carol', 'u-dave']],
    ['urn:ietf:params:scim:schemas:core:2.0:User:emails[value sw "dave@"]', ['u-dave']],
    // Quotes and backslashes are escaped in the array's JSON text: such values are still found.
    ['emails.display co "\\\\ \\"d\\""', ['u-dave']],
    ['emails.display eq "dave \\\\ \\"d\\""', ['u-dave']],
    ['emails.display co "\\"d"', ['u-dave']],
  ]);
});

t.test('enterprise extension attributes, short and fully qualified', async (t) => {
  await expectUsers(t, [
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "engineering"', ['u-alice']],
    ['department pr', ['u-alice', 'u-bob']],
    ['department ne "sales"', ['u-alice', 'u-carol', 'u-dave']],
    ['not (department eq "sales")', ['u-alice', 'u-carol', 'u-dave']],
    ['employeeNumber eq "100"', ['u-alice']],
    ['employeeNumber gt "150"', ['u-dave']],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value eq "u-alice"', ['u-bob']],
    ['manager pr', ['u-bob']],
  ]);
});

t.test('groups of a user, by id and display name', async (t) => {
  await expectUsers(t, [
    [`groups eq "${GROUP.admins}"`, ['u-alice', 'u-bob']],
    [`groups[value eq "${GROUP.engineering.toUpperCase()}"]`, ['u-alice']],
    [`groups.value ne "${GROUP.admins}"`, ['u-alice']],
    [`groups.value sw "${GROUP.engineering.slice(0, 12).toUpperCase()}"`, ['u-alice']],
    ['groups.display eq "ADMINS"', ['u-alice', 'u-bob']],
    ['groups[display co "engin"]', ['u-alice']],
    ['groups pr', ['u-alice', 'u-bob']],
    ['not (groups pr)', ['u-carol', 'u-dave']],
    ['groups[value eq "not-a-uuid"]', []],
    [`groups[value eq "${GROUP.globexAdmins}"]`, []],
  ]);
});

t.test('logic: and, or, not, parentheses, precedence', async (t) => {
  await expectUsers(t, [
    ['userName eq "bob" or userName eq "carol_100%"', ['u-bob', 'u-carol']],
    ['userName eq "bob" OR userName eq "carol_100%" or id eq "u-dave"', ['u-bob', 'u-carol', 'u-dave']],
    ['active eq true and (emails co "example.com" or department eq "sales")', ['u-alice', 'u-carol']],
    ['(active eq true and emails co "example.com") or department eq "sales"', ['u-alice', 'u-bob', 'u-carol']],
    // `and` binds tighter than `or`.
    ['userName eq "bob" or active eq true and department pr', ['u-alice', 'u-bob']],
    ['not (active eq true) or userName sw "d"', ['u-bob', 'u-dave']],
    ['not (userName eq "bob" or userName eq "dave\\\\x") and active eq true', ['u-alice', 'u-carol']],
    ['not (not (userName eq "bob"))', ['u-bob']],
    [`${'not ('.repeat(30)}userName eq "bob"${')'.repeat(30)}`, ['u-bob']],
    [`${'not ('.repeat(29)}userName eq "bob"${')'.repeat(29)}`, ['u-alice', 'u-carol', 'u-dave']],
    [`${'not '.repeat(31)}userName eq "bob"`, ['u-alice', 'u-carol', 'u-dave']],
    ['(((userName eq "bob")))', ['u-bob']],
  ]);
});

t.test('tenant isolation: the same filters never reach another tenant', async (t) => {
  await expectUsers(t, [['userName eq "alice@example.com"', ['g-alice']]], 'globex');
  await expectUsers(t, [['department eq "Engineering"', ['g-alice']]], 'globex');
  t.same(await users(undefined, {}, 'globex'), ['g-alice', 'g-eve']);
  // g-eve's stray membership in acme's Admins is invisible from either side.
  await expectUsers(t, [['groups.display eq "Admins"', ['g-alice']]], 'globex');
  await expectUsers(t, [[`groups eq "${GROUP.admins}"`, []]], 'globex');
  t.same(await groups('members[value eq "g-eve"]'), []);
  t.same(await groups('members[value eq "u-alice"]', {}, 'globex'), []);
  t.same(await groups('displayName eq "admins"', {}, 'globex'), [GROUP.globexAdmins]);
  t.same(await users(undefined, {}, 'nobody'), []);
});

t.test('groups: every filterable attribute', async (t) => {
  const cases: [string, string[]][] = [
    ['displayName eq "ADMINS"', [GROUP.admins]],
    ['displayName sw "E"', [GROUP.engineering, GROUP.empty]],
    ['urn:ietf:params:scim:schemas:core:2.0:Group:displayName ew "S"', [GROUP.admins]],
    ['externalId eq "grp-3"', [GROUP.empty]],
    ['externalId eq "GRP-3"', []],
    ['externalId pr', [GROUP.empty]],
    ['members[value eq "u-alice"]', [GROUP.admins, GROUP.engineering]],
    ['members eq "u-bob"', [GROUP.admins]],
    ['members eq "U-BOB"', []],
    ['members.display co "BUILDER"', [GROUP.admins]],
    ['members pr', [GROUP.admins, GROUP.engineering]],
    ['not (members pr)', [GROUP.empty]],
    [`id eq "${GROUP.engineering}"`, [GROUP.engineering]],
    [`id eq "${GROUP.engineering.toUpperCase()}"`, [GROUP.engineering]],
    ['id eq "nope"', []],
    ['id eq "x\' or 1=1 --"', []],
    ['id ne "nope"', ACME_GROUPS],
    [`id ne "${GROUP.admins}"`, [GROUP.engineering, GROUP.empty]],
    ['id sw "0B4F6C1E-2222"', [GROUP.engineering]],
    ['meta.lastModified gt "2026-01-31T00:00:00Z"', [GROUP.engineering]],
    ['meta.created le "2026-01-02T00:00:00Z" and not (displayName eq "admins")', [GROUP.engineering]],
  ];
  for (const [filter, expected] of cases) t.same(await groups(filter), expected, filter);
});

t.test('sortBy and sortOrder', async (t) => {
  t.same(await users(undefined), ACME_USERS, 'default: creation order');
  t.same(await users(undefined, { sortOrder: 'descending' }), [...ACME_USERS].reverse(), 'default order, descending');
  // lower(): "bob builder" sorts before "Carol" whatever the database's collation.
  t.same(await users(undefined, { sortBy: 'displayName' }), ['u-alice', 'u-bob', 'u-carol', 'u-dave']);
  t.same(await users(undefined, { sortBy: 'DISPLAYNAME', sortOrder: 'descending' }), ['u-dave', 'u-carol', 'u-bob', 'u-alice']);
  t.same(await users(undefined, { sortBy: 'userName' }), ['u-alice', 'u-bob', 'u-carol', 'u-dave']);
  // Absent values sort last in both directions.
  t.same(await users(undefined, { sortBy: 'name.familyName' }), ['u-bob', 'u-alice', 'u-dave', 'u-carol']);
  t.same(await users(undefined, { sortBy: 'name.familyName', sortOrder: 'descending' }), ['u-dave', 'u-alice', 'u-bob', 'u-carol']);
  t.same(await users(undefined, { sortBy: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department' }), [
    'u-alice',
    'u-bob',
    'u-carol',
    'u-dave',
  ]);
  t.same(await users(undefined, { sortBy: 'meta.lastModified', sortOrder: 'descending' }), ['u-dave', 'u-carol', 'u-bob', 'u-alice']);
  t.same(await users(undefined, { sortBy: 'emails' }), ['u-alice', 'u-bob', 'u-carol', 'u-dave']);
  // Ties break on id, in the same direction.
  t.same(await users(undefined, { sortBy: 'active' }), ['u-bob', 'u-alice', 'u-carol', 'u-dave']);
  t.same(await users(undefined, { sortBy: 'active', sortOrder: 'descending' }), ['u-dave', 'u-carol', 'u-alice', 'u-bob']);
  t.same(await groups(undefined, { sortBy: 'displayName' }), [GROUP.admins, GROUP.empty, GROUP.engineering]);
  for (const sortBy of ['nickName', 'groups', 'emails.type', 'name', 'members', 'urn:x:y', '']) {
    t.equal(await scimErrorOf(users(undefined, { sortBy })), 'invalidValue', `sortBy=${sortBy}`);
  }
  t.equal(await scimErrorOf(groups(undefined, { sortBy: 'userName' })), 'invalidValue');
});

t.test('startIndex, count and totalResults', async (t) => {
  const page = (filter: string | undefined, startIndex: number, count: number) =>
    listUserIds(db, { tenantId: 'acme', startIndex, count, ...(filter === undefined ? {} : { filter }) });
  t.same(await page(undefined, 1, 200), { totalResults: 4, ids: ACME_USERS });
  t.same(await page(undefined, 2, 2), { totalResults: 4, ids: ['u-bob', 'u-carol'] });
  t.same(await page(undefined, 4, 2), { totalResults: 4, ids: ['u-dave'] });
  t.same(await page(undefined, 10, 2), { totalResults: 4, ids: [] });
  t.same(await page(undefined, 1, 0), { totalResults: 4, ids: [] });
  t.same(await page('active eq true', 2, 1), { totalResults: 3, ids: ['u-carol'] });
  t.same(await page('active eq true', 3, 5), { totalResults: 3, ids: ['u-dave'] });
  t.same(await page('active eq true', 4, 5), { totalResults: 3, ids: [] }, 'a filtered page past the end still counts');
  t.same(await page('active eq true', 1, 0), { totalResults: 3, ids: [] });
  t.same(await page('userName eq "nobody"', 1, 10), { totalResults: 0, ids: [] });
  t.same(await page('userName eq "nobody"', 5, 10), { totalResults: 0, ids: [] });
  t.same(await listGroupIds(db, { tenantId: 'acme', startIndex: 2, count: 5, filter: 'displayName pr' }), {
    totalResults: 3,
    ids: [GROUP.engineering, GROUP.empty],
  });
  t.same(await listGroupIds(db, { tenantId: 'globex', startIndex: 1, count: 5 }), { totalResults: 1, ids: [GROUP.globexAdmins] });
});
