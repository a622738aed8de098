/**
 * SCIM users of one tenant: create, read, list, replace, patch, delete. Every call names the tenant
 * (the SCIM token's) and never sees another's rows. Writes are compare-and-set on `version` (the
 * `meta.version` an `If-Match` names, else the version just read under the row lock).
 */
import type { Database } from '../../db/database.ts';
import { inTransaction, type Executor } from '../../db/transaction.ts';
import { acceptsVersion, type ExpectedVersions } from '../../db/versioning.ts';
import { isUniqueViolation, VersionMismatch } from '../../errors.ts';
import * as provisioned from '../../users/provisioned-users.repository.ts';
import { deleteUser } from '../../users/users.repository.ts';
import { recordUserChanged, recordUserCreated, recordUserDeleted } from '../../users/user-events.ts';
import { scimInvalid, scimNotFound, scimUniqueness } from './scim-errors.ts';
import { listUserIds, type ScimListQuery } from './scim-list.ts';
import { applyPatch, type PatchOperation } from './scim-patch.ts';
import { shownEmails, toScimUser, userColumnsFrom, type ScimUserRecord, type UserColumns } from './scim-users.representation.ts';
import * as repo from './scim-users.repository.ts';
import { canonicalResource } from './scim-values.ts';

type Json = Record<string, unknown>;

/** The unique indexes of `users` (migration 0001) and the attribute each protects. */
const UNIQUE: Record<string, string> = {
  users_tenant_username_uq: 'userName',
  users_tenant_email_uq: 'emails (the primary e-mail address)',
  users_tenant_external_id_uq: 'externalId',
};

function uniquenessError(error: unknown): Error | null {
  for (const [constraint, attribute] of Object.entries(UNIQUE)) {
    if (isUniqueViolation(error, constraint)) return scimUniqueness(`Another user of this tenant already has this ${attribute}`);
  }
  return null;
}

export class ScimUsersService {
  constructor(private readonly db: Database) {}

  async create(tenantId: string, body: Json): Promise<ScimUserRecord> {
    const columns = userColumnsFrom(canonicalResource(body, 'User'));
    return this.write(async (trx) => {
      await this.checkManager(trx, tenantId, null, columns.manager_id);
      const row = await provisioned.insertProvisionedUser(trx, tenantId, columns);
      await recordUserCreated(trx, row);
      return (await repo.withRelations(trx, tenantId, [row]))[0]!;
    });
  }

  async get(tenantId: string, id: string): Promise<ScimUserRecord> {
    const [record] = await repo.loadUsers(this.db, tenantId, [id]);
    if (!record) throw scimNotFound('User', id);
    return record;
  }

  async list(query: ScimListQuery): Promise<{ totalResults: number; records: ScimUserRecord[] }> {
    const { totalResults, ids } = await listUserIds(this.db, query);
    return { totalResults, records: await repo.loadUsers(this.db, query.tenantId, ids) };
  }

  /** PUT: the body replaces every writable attribute. */
  replace(tenantId: string, id: string, body: Json, expected: ExpectedVersions): Promise<ScimUserRecord> {
    const columns = userColumnsFrom(canonicalResource(body, 'User'));
    return this.modify(tenantId, id, expected, () => columns);
  }

  /** PATCH: the operations apply to the current representation, which then replaces the stored one. */
  patch(tenantId: string, id: string, operations: PatchOperation[], expected: ExpectedVersions): Promise<ScimUserRecord> {
    return this.modify(tenantId, id, expected, (current) => userColumnsFrom(applyPatch(toScimUser(current, ''), 'User', operations)));
  }

  /**
   * The users area's deletion (decision 67: `deleteUser`, its cascades and `user.deleted` in one
   * transaction, as GraphQL's deleteUser), compare-and-set on the version read here.
   */
  async delete(tenantId: string, id: string, expected: ExpectedVersions): Promise<void> {
    const row = await provisioned.findTenantUser(this.db, tenantId, id);
    if (!row) throw scimNotFound('User', id);
    if (!acceptsVersion(expected, row.version)) throw new VersionMismatch(row.version, `User ${id}`);
    await inTransaction(this.db, async (trx) => {
      const deleted = await deleteUser(trx, id, { tenantId, version: row.version });
      if (!deleted) throw new VersionMismatch(row.version, `User ${id}`);
      await recordUserDeleted(trx, deleted);
    });
  }

  private modify(
    tenantId: string,
    id: string,
    expected: ExpectedVersions,
    change: (current: ScimUserRecord) => UserColumns,
  ): Promise<ScimUserRecord> {
    return this.write(async (trx) => {
      const row = await provisioned.findTenantUser(trx, tenantId, id, true);
      if (!row) throw scimNotFound('User', id);
      if (!acceptsVersion(expected, row.version)) throw new VersionMismatch(row.version, `User ${id}`);
      const current = (await repo.withRelations(trx, tenantId, [row]))[0]!;
      const columns = change(current);
      if (unchanged(row, columns)) return current;
      await this.checkManager(trx, tenantId, id, columns.manager_id);
      // The row is locked, so the version read is the one compared; the WHERE states it all the same.
      const updated = await provisioned.updateProvisionedUser(trx, tenantId, id, row.version, columns);
      if (!updated) throw new VersionMismatch(row.version, `User ${id}`);
      await recordUserChanged(trx, row, updated);
      return (await repo.withRelations(trx, tenantId, [updated]))[0]!;
    });
  }

  private async checkManager(db: Executor, tenantId: string, self: string | null, managerId: string | null): Promise<void> {
    if (managerId === null) return;
    if (managerId === self) throw scimInvalid('invalidValue', 'A user cannot be their own manager');
    if (!(await provisioned.existingUserIds(db, tenantId, [managerId])).has(managerId))
      throw scimInvalid('invalidValue', `manager.value ${managerId} is not a user of this tenant`);
  }

  private async write<T>(fn: (trx: Executor) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.db, fn);
    } catch (error) {
      throw uniquenessError(error) ?? error;
    }
  }
}

/** Whether writing `columns` would change nothing a client can read (then nothing is written). */
function unchanged(row: ScimUserRecord['row'], columns: UserColumns): boolean {
  // A user SCIM never wrote shows its one address; the same list sent back is no change.
  return (Object.keys(columns) as (keyof UserColumns)[]).every((key) =>
    key === 'emails'
      ? JSON.stringify(shownEmails(row)) === JSON.stringify(columns.emails)
      : JSON.stringify(row[key]) === JSON.stringify(columns[key]),
  );
}
