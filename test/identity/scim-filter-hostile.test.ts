// test-suite: once (hostile filters are refused before any SQL runs)
/**
 * Filters a client gets wrong or an attacker writes: each is refused as ScimQueryError
 * ('invalidFilter') quickly, before any SQL runs, and never as a database error, a stack
 * overflow or a hang. Values that look like SQL reach the database only as parameters.
 */
import t, { type Test } from 'tap';
import { filterCondition } from '../../src/identity/scim/scim-filter-sql.ts';
import { MAX_FILTER_LENGTH, MAX_FILTER_TERMS, parseScimFilter } from '../../src/identity/scim/scim-filter-parse.ts';
import { listGroupIds, listUserIds } from '../../src/identity/scim/scim-list.ts';
import { sharedServer } from '../helpers/server.ts';
import { ACME_USERS, GROUP, scimErrorOf, seedScimTenants } from './scim-filter-seed.ts';

const server = await sharedServer();
const { db } = server.database;
await seedScimTenants(db);

const users = (filter: string) => listUserIds(db, { tenantId: 'acme', filter, startIndex: 1, count: 200 });
const groups = (filter: string) => listGroupIds(db, { tenantId: 'acme', filter, startIndex: 1, count: 200 });

/** Refused as invalidFilter within a second, with no statement sent to the database. */
async function expectRefused(t: Test, filter: string, list: typeof users = users, label = filter.slice(0, 80)) {
  const statements: string[] = [];
  const stop = server.database.observeQueries((sql) => statements.push(sql));
  const started = performance.now();
  const outcome = await scimErrorOf(list(filter));
  const elapsed = performance.now() - started;
  stop();
  t.equal(outcome, 'invalidFilter', label);
  t.ok(elapsed < 1000, `${label}: refused in ${Math.round(elapsed)} ms`);
  t.same(statements, [], `${label}: no SQL ran`);
}

t.test('syntax errors', async (t) => {
  for (const filter of [
    '',
    '   ',
    '(userName eq "a"',
    'userName eq "a")',
    '((userName eq "a")',
    ')userName eq "a"(',
    'userName eq "a" and',
    'and userName eq "a"',
    'userName eq "a" garbage',
    'userName eq "a" userName eq "b"',
    'userName eq',
    'userName',
    'userName xx "a"',
    'userName === "a"',
    'userName eq "unterminated',
    'userName eq "bad \\x escape"',
    "userName eq 'single'",
    'userName eq x',
    'userName eq {"a":1}',
    'userName eq ["a"]',
    'userName pr "x"',
    'not userName',
    'emails[type eq "work"',
    'emails type eq "work"]',
    'userName eq "a"; drop table users',
    'userName eq "a" -- comment',
  ]) {
    await expectRefused(t, filter);
  }
});

t.test('unknown attributes and attributes out of place', async (t) => {
  for (const filter of [
    'nickName eq "x"',
    'name.middleName eq "x"',
    'name eq "x"',
    'meta.location eq "x"',
    'userName.value eq "x"',
    'emails.nope eq "x"',
    'emails[nope eq "x"]',
    'emails[value[type eq "x"]]',
    'emails[emails.value eq "x"]',
    'userName[value eq "x"]',
    'members[value eq "u-alice"]',
    'groups.$ref eq "x"',
    'urn:ietf:params:scim:schemas:core:2.0:Group:displayName eq "x"',
    'urn:ietf:params:scim:schemas:core:2.0:User eq "x"',
    'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:userName eq "x"',
    'urn:evil:userName eq "x"',
    'users.username eq "x"',
    'userName..x eq "x"',
  ]) {
    await expectRefused(t, filter);
  }
  for (const filter of ['userName eq "x"', 'groups pr', 'emails[value eq "x"]', 'name.givenName eq "x"'])
    await expectRefused(t, filter, groups);
});

t.test('comparisons that do not fit the attribute type', async (t) => {
  for (const filter of [
    'active co "t"',
    'active sw "t"',
    'active gt true',
    'active le false',
    'active eq "true"',
    'active eq 1',
    'emails[primary co "t"]',
    'userName eq 42',
    'userName eq true',
    'userName gt null',
    'userName co null',
    'meta.created gt "yesterday"',
    'meta.created gt "2026-02-30T00:00:00Z"',
    'meta.created gt "2026-13-01T00:00:00Z"',
    'meta.created gt "2026-01-01T24:00:00Z"',
    'meta.created gt "2026-01-01"',
    'meta.created gt "2026-01-01T00:00:00"',
    'meta.created gt "0000-01-01T00:00:00Z"',
    'meta.created gt "2026-01-01T00:00:00+25:00"',
    'meta.created co "2026"',
    'meta.created eq 20260101',
  ]) {
    await expectRefused(t, filter);
  }
  for (const filter of ['id gt 5', 'meta.lastModified sw "2026"', 'members eq true']) await expectRefused(t, filter, groups);
});

t.test('sizes and depths', async (t) => {
  await expectRefused(t, `userName eq "${'a'.repeat(10_000)}"`, users, '10,000-character value');
  await expectRefused(t, Array.from({ length: 800 }, (_, i) => `userName eq "u${i}"`).join(' or '), users, '10,000-character or-chain');
  await expectRefused(t, 'x'.repeat(MAX_FILTER_LENGTH + 1), users, 'one character over the limit');
  await expectRefused(t, `${'not ('.repeat(200)}userName eq "bob"${')'.repeat(200)}`, users, '200 nested not (…)');
  await expectRefused(t, `${'not '.repeat(200)}userName eq "bob"`, users, '200 nots without parentheses');
  await expectRefused(t, `${'('.repeat(2000)}userName eq "bob"${')'.repeat(2000)}`, users, '2,000 nested parentheses');
  await expectRefused(t, `${'('.repeat(2000)}`, users, '2,000 opening parentheses');
  await expectRefused(t, `emails[${'('.repeat(100)}value eq "x"${')'.repeat(100)}]`, users, '100 parentheses in a value path');
  await expectRefused(t, Array.from({ length: MAX_FILTER_TERMS + 1 }, () => 'userName pr').join(' and '), users, 'too many comparisons');
  // An unterminated string of line breaks: the library's string pattern backtracks exponentially on it.
  await expectRefused(t, `userName eq "${'\n'.repeat(40)}`, users, 'unterminated string of line breaks');
  await expectRefused(t, `"${'\n'.repeat(40)}`, users, 'a lone unterminated string of line breaks');
  const error = await users(`${'a'.repeat(MAX_FILTER_LENGTH - 10)} eq "x"`).catch((e: unknown) => e);
  t.match(error, { name: 'ScimQueryError', scimType: 'invalidFilter', message: /^a+…$/ }, 'a message quoting a long name is cut short');
  t.ok((error as Error).message.length <= 300);
  // At the limits, filters still work.
  t.same((await users(Array.from({ length: MAX_FILTER_TERMS }, () => 'userName pr').join(' and '))).ids, ACME_USERS);
  t.same((await users(`userName eq "bob" or userName eq "${'a'.repeat(MAX_FILTER_LENGTH - 40)}"`)).ids, ['u-bob']);
});

t.test('values that look like SQL are parameters, and match nothing', async (t) => {
  const hostile = [`x' or 1=1 --`, `x" or "1"="1`, `'; drop table users; --`, `%' or username like '%`, `x\\' or true --`, `) or (1=1`];
  for (const value of hostile) {
    const literal = JSON.stringify(value);
    for (const filter of [
      `userName eq ${literal}`,
      `userName co ${literal}`,
      `emails[value sw ${literal}]`,
      `groups.display ew ${literal}`,
      `externalId ne ${literal} and id eq ${literal}`,
    ]) {
      t.same(await users(filter), { totalResults: 0, ids: [] }, filter);
      const compiled = db
        .selectFrom('users')
        .select('id')
        .where(filterCondition('User', 'acme', parseScimFilter(filter)))
        .compile();
      t.notOk(compiled.sql.includes(value), `${filter}: the value is not in the SQL text`);
      t.ok(
        // Patterns of co/sw/ew carry the value with `\\`, `%` and `_` escaped.
        compiled.parameters.some((p) => typeof p === 'string' && (p.includes(value) || p.replace(/\\(.)/g, '$1').includes(value))),
        `${filter}: the value is a parameter`,
      );
    }
    t.same(await groups(`displayName eq ${literal} or members[value eq ${literal}] or id eq ${literal}`), { totalResults: 0, ids: [] });
  }
  t.same((await users('userName pr')).totalResults, ACME_USERS.length, 'the users table is intact');
  t.same((await groups('displayName pr')).ids.length, 3);
  t.same((await groups(`id eq "${GROUP.admins}' or '1'='1"`)).ids, [], 'a non-UUID id matches nothing, without a database error');
});
