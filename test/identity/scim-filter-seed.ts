/**
 * Users and groups of two tenants, written straight into the tables, for the SCIM filter tests.
 * Chosen so each operator has matches and non-matches, with case, LIKE metacharacters, null
 * attributes, stored and fallback e-mails, and one membership row that (against every invariant)
 * joins a tenant's group to another tenant's user, to prove that filters never follow it.
 */
import type { Database } from '../../src/db/database.ts';
import { ScimQueryError } from '../../src/identity/scim/scim-query-error.ts';

/** The scimType of the ScimQueryError `work` rejects with; anything else is returned as is to fail the test. */
export async function scimErrorOf(work: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof work === 'function' ? work() : work);
    return 'no error';
  } catch (error) {
    return error instanceof ScimQueryError ? error.scimType : error;
  }
}

export const GROUP = {
  admins: '0b4f6c1e-1111-4a2b-9c3d-000000000001',
  engineering: '0b4f6c1e-2222-4a2b-9c3d-000000000002',
  empty: '0b4f6c1e-3333-4a2b-9c3d-000000000003',
  globexAdmins: '0b4f6c1e-4444-4a2b-9c3d-000000000004',
} as const;

/** acme's users, in creation order (the default order of a list). */
export const ACME_USERS = ['u-alice', 'u-bob', 'u-carol', 'u-dave'];
export const GLOBEX_USERS = ['g-alice', 'g-eve'];

const at = (iso: string) => new Date(iso);

export async function seedScimTenants(db: Database): Promise<void> {
  await db
    .insertInto('tenants')
    .values([
      { id: 'acme', name: 'Acme' },
      { id: 'globex', name: 'Globex' },
    ])
    .execute();
  await db
    .insertInto('users')
    .values([
      {
        id: 'u-alice',
        tenant_id: 'acme',
        source: 'scim',
        username: 'Alice@Example.com',
        email: 'alice@example.com',
        emails: JSON.stringify([
          { value: 'alice@example.com', type: 'work', primary: true },
          { value: 'alice@home.org', type: 'home' },
        ]),
        display_name: 'Alice Liddell',
        given_name: 'Alice',
        family_name: 'Liddell',
        external_id: 'ext-A',
        department: 'Engineering',
        employee_number: '100',
        active: true,
        created_at: at('2026-01-01T00:00:00Z'),
        updated_at: at('2026-01-05T00:00:00Z'),
      },
      {
        // No stored `emails`: its one e-mail is users.email, primary.
        id: 'u-bob',
        tenant_id: 'acme',
        source: 'scim',
        username: 'bob',
        email: 'bob@builder.net',
        display_name: 'bob builder',
        given_name: 'Bob',
        family_name: 'Builder',
        external_id: 'EXT-B',
        department: 'sales',
        active: false,
        created_at: at('2026-02-01T00:00:00Z'),
        updated_at: at('2026-03-01T00:00:00Z'),
      },
      {
        id: 'u-carol',
        tenant_id: 'acme',
        source: 'scim',
        username: 'carol_100%',
        email: 'carol@example.com',
        emails: JSON.stringify([{ value: 'carol@example.com', type: 'work', primary: 'True' }]),
        display_name: 'Carol',
        active: true,
        created_at: at('2026-03-01T00:00:00Z'),
        updated_at: at('2026-03-02T00:00:00Z'),
      },
      {
        id: 'u-dave',
        tenant_id: 'acme',
        source: 'scim',
        username: 'dave\\x',
        email: 'dave@other.com',
        emails: JSON.stringify([{ value: 'dave@other.com', type: 'home', display: 'Dave \\ "D"' }]),
        display_name: 'dave',
        family_name: 'Zed',
        employee_number: '200',
        active: true,
        created_at: at('2026-04-01T00:00:00Z'),
        updated_at: at('2026-04-01T00:00:00Z'),
      },
      {
        id: 'g-alice',
        tenant_id: 'globex',
        source: 'scim',
        username: 'alice@example.com',
        email: 'alice@example.com',
        emails: JSON.stringify([{ value: 'alice@example.com', type: 'work', primary: true }]),
        display_name: 'Alice of Globex',
        department: 'Engineering',
        active: false,
        created_at: at('2026-01-01T00:00:00Z'),
        updated_at: at('2026-01-01T00:00:00Z'),
      },
      {
        id: 'g-eve',
        tenant_id: 'globex',
        source: 'scim',
        username: 'eve',
        email: 'eve@globex.com',
        display_name: 'Eve',
        active: true,
        created_at: at('2026-01-02T00:00:00Z'),
        updated_at: at('2026-01-02T00:00:00Z'),
      },
    ])
    .execute();
  await db.updateTable('users').set({ manager_id: 'u-alice' }).where('id', '=', 'u-bob').execute();
  await db
    .insertInto('groups')
    .values([
      {
        id: GROUP.admins,
        tenant_id: 'acme',
        display_name: 'Admins',
        created_at: at('2026-01-01T00:00:00Z'),
        updated_at: at('2026-01-01T00:00:00Z'),
      },
      {
        id: GROUP.engineering,
        tenant_id: 'acme',
        display_name: 'engineering',
        created_at: at('2026-01-02T00:00:00Z'),
        updated_at: at('2026-02-02T00:00:00Z'),
      },
      {
        id: GROUP.empty,
        tenant_id: 'acme',
        display_name: 'Empty',
        external_id: 'grp-3',
        created_at: at('2026-01-03T00:00:00Z'),
        updated_at: at('2026-01-03T00:00:00Z'),
      },
      {
        id: GROUP.globexAdmins,
        tenant_id: 'globex',
        display_name: 'Admins',
        created_at: at('2026-01-01T00:00:00Z'),
        updated_at: at('2026-01-01T00:00:00Z'),
      },
    ])
    .execute();
  await db
    .insertInto('group_members')
    .values([
      { group_id: GROUP.admins, user_id: 'u-alice' },
      { group_id: GROUP.admins, user_id: 'u-bob' },
      { group_id: GROUP.engineering, user_id: 'u-alice' },
      { group_id: GROUP.globexAdmins, user_id: 'g-alice' },
      // Crosses tenants: the SCIM API refuses to create this; filters must not follow it either.
      { group_id: GROUP.admins, user_id: 'g-eve' },
    ])
    .execute();
}
