/**
 * SCIM requests the schemas alone would not produce: filter expressions built from the grammar of RFC
 * 7644 §3.4.2.2 (attribute paths, value filters, every operator, `and`/`or`/`not`, grouping), valid
 * and broken (unbalanced, unknown operators and attributes, values of the wrong kind), and PatchOps
 * of every `op` with attribute and value-filter paths and values of any kind. Sent with the tenant's
 * SCIM token now and then as another caller.
 */
import fc from 'fast-check';
import type { Caller, FuzzRequest, IdPool } from './rest-requests.ts';
import { hostileStrings } from './schema-values.ts';

const USER_ATTRIBUTES = [
  'userName',
  'displayName',
  'active',
  'externalId',
  'title',
  'name.givenName',
  'name.familyName',
  'emails',
  'emails.value',
  'emails.type',
  'emails.primary',
  'meta.lastModified',
  'meta.created',
  'id',
  'groups',
  'groups.value',
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber',
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value',
  'noSuchAttribute',
  'name.noSuch',
  'emails[type eq "work"].value',
];
const GROUP_ATTRIBUTES = ['displayName', 'externalId', 'members', 'members.value', 'members.display', 'id', 'meta.lastModified', 'noSuch'];
const OPERATORS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le', 'EQ', 'Co', 'xx', '=='];

const value: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('true', 'false', 'null', '42', '-1.5', '"2026-01-01T00:00:00Z"', '"not a date"', '1e999', "'single'", '"unterminated'),
  fc.constantFrom(...hostileStrings.slice(0, 14)).map((s) => JSON.stringify(s)),
);

function filter(attributes: string[]): fc.Arbitrary<string> {
  const { expression } = fc.letrec<{ expression: string; simple: string }>((tie) => ({
    simple: fc.oneof(
      fc.tuple(fc.constantFrom(...attributes), fc.constantFrom(...OPERATORS), value).map(([a, op, v]) => `${a} ${op} ${v}`),
      fc.constantFrom(...attributes).map((a) => `${a} pr`),
      fc
        .tuple(
          fc.constantFrom('emails', 'members', 'groups'),
          fc.constantFrom('type', 'value', 'primary', 'display'),
          fc.constantFrom(...OPERATORS),
          value,
        )
        .map(([a, sub, op, v]) => `${a}[${sub} ${op} ${v}]`),
    ),
    expression: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('simple'),
      fc.tuple(tie('expression'), fc.constantFrom('and', 'or', 'AND', 'xor'), tie('expression')).map(([a, op, b]) => `${a} ${op} ${b}`),
      tie('expression').map((e) => `not (${e})`),
      tie('expression').map((e) => `(${e})`),
      tie('expression').map((e) => `(${e}`),
      fc.constantFrom(
        '',
        ' ',
        'userName',
        'userName eq',
        'eq "x"',
        '()',
        '[',
        'userName eq "a" and',
        `${'('.repeat(300)}userName pr${')'.repeat(300)}`,
      ),
    ),
  }));
  return expression;
}

const patchValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.boolean(),
  fc.integer(),
  fc.constant(null),
  fc.constantFrom(...hostileStrings.slice(0, 14)),
  fc.record({ value: fc.string({ maxLength: 8 }), type: fc.constantFrom('work', 'home', 'other'), primary: fc.boolean() }).map((v) => [v]),
  fc.dictionary(fc.constantFrom('userName', 'displayName', 'active', 'title', 'name', 'emails', 'noSuch'), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 3,
  }),
);

function patchBody(attributes: string[]): fc.Arbitrary<unknown> {
  const operation = fc.record(
    {
      op: fc.constantFrom('add', 'replace', 'remove', 'Add', 'REPLACE', 'move', ''),
      path: fc.oneof(
        fc.constantFrom(...attributes),
        fc.constantFrom('emails[type eq "work"]', 'emails[type eq "work"].value', 'members[value eq "x"]', 'name', 'emails[', '', '..'),
      ),
      value: patchValue,
    },
    { requiredKeys: ['op'] },
  );
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .array(operation, { minLength: 1, maxLength: 4 })
        .map((Operations) => ({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<unknown>(
        { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'] },
        { Operations: [] },
        { schemas: [], Operations: 'x' },
        [],
      ),
    },
  );
}

const caller = fc.constantFrom<Caller>('scim', 'scim', 'scim', 'scim', 'anonymous');

export function scimRequests(ids: IdPool): fc.Arbitrary<FuzzRequest> {
  const userIds = ids.scimUserId ?? ['00000000-0000-4000-8000-000000000000'];
  const groupIds = ids.scimGroupId ?? ['00000000-0000-4000-8000-000000000000'];
  const list = fc.tuple(fc.constantFrom('Users', 'Groups'), caller, fc.nat(3)).chain(([resource, who, extra]) =>
    filter(resource === 'Users' ? USER_ATTRIBUTES : GROUP_ATTRIBUTES).map((expression): FuzzRequest => ({
      kind: 'rest',
      label: `scim filter ${resource}`,
      method: 'GET',
      path: `/scim/v2/${resource}?filter=${encodeURIComponent(expression)}${['', '&count=5', '&startIndex=0', '&sortBy=userName'][extra]}`,
      caller: who,
      headers: {},
    })),
  );
  const patch = fc.tuple(fc.constantFrom('Users', 'Groups'), caller).chain(([resource, who]) =>
    fc
      .tuple(
        fc.constantFrom(...(resource === 'Users' ? userIds : groupIds)),
        patchBody(resource === 'Users' ? USER_ATTRIBUTES : GROUP_ATTRIBUTES),
      )
      .map(([id, body]): FuzzRequest => ({
        kind: 'rest',
        label: `scim patch ${resource}`,
        method: 'PATCH',
        path: `/scim/v2/${resource}/${id}`,
        caller: who,
        headers: { 'content-type': 'application/scim+json' },
        body: JSON.stringify(body),
      })),
  );
  return fc.oneof(list, patch);
}
