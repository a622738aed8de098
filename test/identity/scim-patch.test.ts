/**
 * The PATCH engine (RFC 7644 §3.5.2) on in-memory representations: every operation with and without
 * path, value filters, sub-attributes, schema URNs, what Entra ID and Okta send, and the refusals
 * (`invalidPath`, `mutability`, `noTarget`, `invalidValue`, `invalidSyntax`) with nothing applied.
 */
import t, { type Test } from 'tap';
import { AppError } from '../../src/errors.ts';
import { applyPatch } from '../../src/identity/scim/scim-patch.ts';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

const user = () => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  id: 'u1',
  userName: 'bjensen@example.com',
  name: { givenName: 'Barbara', familyName: 'Jensen' },
  displayName: 'Babs',
  emails: [
    { value: 'bjensen@example.com', type: 'work', primary: true },
    { value: 'babs@home.example', type: 'home' },
  ],
  active: true,
  meta: { resourceType: 'User', version: 'W/"1"' },
});

const group = () => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
  id: 'g1',
  displayName: 'Admins',
  members: [
    { value: 'a', display: 'A', type: 'User' },
    { value: 'b', display: 'B', type: 'User' },
  ],
});

function refusal(t: Test, fn: () => unknown, scimType: string, message: string) {
  try {
    fn();
    t.fail(`${message}: no error`);
  } catch (error) {
    t.ok(error instanceof AppError, message);
    t.equal((error as AppError).reason, scimType, message);
  }
}

t.test('replace, add and remove with simple paths; op names in any case', async (t) => {
  const original = user();
  const out = applyPatch(original, 'User', [
    { op: 'Replace', path: 'displayName', value: 'Barbara J.' },
    { op: 'REPLACE', path: 'name.givenName', value: 'Barb' },
    { op: 'add', path: 'externalId', value: 'ext-1' },
    { op: 'remove', path: 'name.familyName' },
  ]);
  t.equal(out.displayName, 'Barbara J.');
  t.same(out.name, { givenName: 'Barb' });
  t.equal(out.externalId, 'ext-1');
  t.equal(original.displayName, 'Babs', 'the input is not modified');
  t.same(
    applyPatch(user(), 'User', [{ op: 'remove', path: 'DISPLAYNAME' }]).displayName,
    undefined,
    'attribute names are case-insensitive',
  );
});

t.test('Entra ID: booleans as strings, path-less replace with an object, URN paths, bare manager id', async (t) => {
  const out = applyPatch(user(), 'User', [
    { op: 'Replace', path: 'active', value: 'False' },
    { op: 'Replace', value: { displayName: 'New', 'name.familyName': 'Doe', [`${ENTERPRISE}:department`]: 'Sales' } },
    { op: 'Add', path: `${ENTERPRISE}:manager`, value: 'boss-id' },
    { op: 'Add', path: `${ENTERPRISE}:employeeNumber`, value: '42' },
  ]);
  t.equal(out.active, false, '"False" is false');
  t.equal(out.displayName, 'New');
  t.same(out.name, { givenName: 'Barbara', familyName: 'Doe' });
  t.same(out[ENTERPRISE], { department: 'Sales', manager: { value: 'boss-id' }, employeeNumber: '42' });
  t.equal(applyPatch(user(), 'User', [{ op: 'replace', value: { active: 'TRUE' } }]).active, true);
  refusal(
    t,
    () => applyPatch(user(), 'User', [{ op: 'replace', path: 'active', value: 'nope' }]),
    'invalidValue',
    'a non-boolean string is refused',
  );
  const extension = applyPatch(user(), 'User', [{ op: 'add', value: { [ENTERPRISE]: { department: 'R&D' } } }]);
  t.same(extension[ENTERPRISE], { department: 'R&D' }, 'a path-less value keyed by the extension URN');
  const whole = applyPatch(extension, 'User', [{ op: 'remove', path: ENTERPRISE }]);
  t.notOk(ENTERPRISE in whole, 'removing the extension URN removes all of it');
});

t.test('value filters in paths', async (t) => {
  const replaced = applyPatch(user(), 'User', [{ op: 'replace', path: 'emails[type eq "work"].value', value: 'new@example.com' }]);
  t.same(replaced.emails, [
    { value: 'new@example.com', type: 'work', primary: true },
    { value: 'babs@home.example', type: 'home' },
  ]);
  const caseless = applyPatch(user(), 'User', [{ op: 'replace', path: 'EMAILS[TYPE EQ "WORK"].value', value: 'x@example.com' }]);
  t.equal((caseless.emails as { value: string }[])[0]!.value, 'x@example.com', 'names, operators and non-caseExact values ignore case');
  const added = applyPatch(user(), 'User', [{ op: 'add', path: 'emails[type eq "other"].value', value: 'o@example.com' }]);
  t.same(
    (added.emails as object[])[2],
    { type: 'other', value: 'o@example.com' },
    'an eq filter without a match adds the value it describes',
  );
  const removed = applyPatch(user(), 'User', [{ op: 'remove', path: 'emails[type eq "home" or value co "nothing"]' }]);
  t.same(removed.emails, [{ value: 'bjensen@example.com', type: 'work', primary: true }]);
  const subRemoved = applyPatch(user(), 'User', [{ op: 'remove', path: 'emails[primary eq true].primary' }]);
  t.same((subRemoved.emails as object[])[0], { value: 'bjensen@example.com', type: 'work' });
  const whole = applyPatch(user(), 'User', [
    { op: 'replace', path: 'emails[type eq "home"]', value: { value: 'h@example.com', type: 'home' } },
  ]);
  t.same((whole.emails as object[])[1], { value: 'h@example.com', type: 'home' });
  refusal(
    t,
    () => applyPatch(user(), 'User', [{ op: 'replace', path: 'emails[type eq "none"]', value: { value: 'x' } }]),
    'noTarget',
    'replace without a match',
  );
  refusal(
    t,
    () => applyPatch(user(), 'User', [{ op: 'replace', path: 'emails[type eq "none"].value', value: 'x@example.com' }]),
    'noTarget',
    'replace of a sub-attribute without a match (RFC 7644 §3.5.2.3): only add creates the value a filter describes',
  );
  t.same(
    applyPatch(user(), 'User', [{ op: 'remove', path: 'emails[type eq "none"]' }]).emails,
    user().emails,
    'removing nothing is no error',
  );
});

t.test('a value written as primary makes the others non-primary', async (t) => {
  const added = applyPatch(user(), 'User', [
    { op: 'add', path: 'emails', value: [{ value: 'new@example.com', type: 'other', primary: true }] },
  ]);
  t.same(
    (added.emails as { primary?: boolean }[]).map((e) => e.primary),
    [false, undefined, true],
  );
  const flagged = applyPatch(user(), 'User', [{ op: 'replace', path: 'emails[type eq "home"].primary', value: 'True' }]);
  t.same(
    (flagged.emails as { primary?: boolean }[]).map((e) => e.primary),
    [false, true],
  );
  const created = applyPatch(user(), 'User', [{ op: 'add', path: 'emails[type eq "other"].primary', value: true }]);
  t.same(
    (created.emails as { primary?: boolean }[]).map((e) => e.primary),
    [false, undefined, true],
  );
});

t.test('multi-valued add appends without duplicates; replace sets the whole list', async (t) => {
  const added = applyPatch(group(), 'Group', [
    { op: 'add', path: 'members', value: [{ value: 'c' }, { value: 'a', display: 'A', type: 'User' }] },
  ]);
  t.same(
    (added.members as { value: string }[]).map((m) => m.value),
    ['a', 'b', 'c'],
  );
  const replaced = applyPatch(group(), 'Group', [{ op: 'replace', path: 'members', value: [{ value: 'z' }] }]);
  t.same(replaced.members, [{ value: 'z' }]);
  const filtered = applyPatch(group(), 'Group', [{ op: 'remove', path: 'members[value eq "a"]' }]);
  t.same(
    (filtered.members as { value: string }[]).map((m) => m.value),
    ['b'],
  );
  t.same(
    (applyPatch(group(), 'Group', [{ op: 'remove', path: 'members[value eq "A"]' }]).members as object[]).length,
    2,
    'member ids compare case-exactly',
  );
  const listed = applyPatch(group(), 'Group', [{ op: 'Remove', path: 'members', value: [{ value: 'b' }] }]);
  t.same(
    (listed.members as { value: string }[]).map((m) => m.value),
    ['a'],
    'remove members with a value removes only those (Entra ID)',
  );
  t.same(
    applyPatch(group(), 'Group', [{ op: 'remove', path: 'members' }]).members,
    undefined,
    'remove members without a value removes all',
  );
  const okta = applyPatch(group(), 'Group', [{ op: 'replace', value: { id: 'g1', displayName: 'Renamed' } }]);
  t.equal(okta.displayName, 'Renamed', "Okta's rename carries the id, which is ignored");
  t.equal(okta.id, 'g1');
});

t.test('refusals', async (t) => {
  refusal(t, () => applyPatch(user(), 'User', [{ op: 'replace', path: 'nickName', value: 'x' }]), 'invalidPath', 'unknown attribute');
  refusal(
    t,
    () => applyPatch(user(), 'User', [{ op: 'replace', path: 'name.middleName', value: 'x' }]),
    'invalidPath',
    'unknown sub-attribute',
  );
  refusal(
    t,
    () => applyPatch(user(), 'User', [{ op: 'replace', path: 'userName[value eq "x"]', value: 'x' }]),
    'invalidPath',
    'filter on a single value',
  );
  refusal(t, () => applyPatch(user(), 'User', [{ op: 'replace', path: 'emails[type eq ]', value: 'x' }]), 'invalidPath', 'broken filter');
  refusal(t, () => applyPatch(user(), 'User', [{ op: 'replace', path: 'id', value: 'x' }]), 'mutability', 'id is read-only');
  refusal(
    t,
    () => applyPatch(user(), 'User', [{ op: 'add', path: 'groups', value: [{ value: 'g' }] }]),
    'mutability',
    'groups are read-only on a user',
  );
  refusal(t, () => applyPatch(user(), 'User', [{ op: 'replace', path: 'meta.version', value: 'x' }]), 'mutability', 'meta is read-only');
  refusal(t, () => applyPatch(user(), 'User', [{ op: 'remove' }]), 'noTarget', 'remove without a path');
  refusal(t, () => applyPatch(user(), 'User', [{ op: 'replace', value: 'x' }]), 'invalidValue', 'path-less value that is not an object');
  refusal(t, () => applyPatch(user(), 'User', [{ op: 'replace', path: 'displayName' }]), 'invalidValue', 'replace without a value');
  refusal(t, () => applyPatch(user(), 'User', [{ op: 'move', path: 'displayName', value: 'x' }]), 'invalidSyntax', 'unknown op');
  refusal(t, () => applyPatch(user(), 'User', [{ op: 'replace', path: 'displayName', value: 3 }]), 'invalidValue', 'number for a string');
  const valueFilter = (filter: string) => () => applyPatch(user(), 'User', [{ op: 'remove', path: `emails[${filter}]` }]);
  refusal(t, valueFilter('not ('.repeat(60) + 'value pr' + ')'.repeat(60)), 'invalidPath', 'deep nesting');
  refusal(t, valueFilter('x'.repeat(5000)), 'invalidPath', 'overlong filter');
  refusal(t, valueFilter('value eq "a" and (type eq "b"'), 'invalidPath', 'unbalanced parentheses');
  refusal(t, valueFilter('value eq "\\x"'), 'invalidPath', 'malformed JSON string');
  refusal(t, valueFilter('value[type eq "a"]'), 'invalidPath', 'a nested value filter');
});
