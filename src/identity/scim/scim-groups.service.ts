/**
 * SCIM groups of one tenant. Members are users of the same tenant: an id that names no such user
 * (unknown, or another tenant's) is refused with 400 `invalidValue`, so a group never reaches across
 * tenants. Membership changes are writes of the group (its version moves). Every write records its
 * directory events in its transaction (group-events.ts).
 */
import type { Database } from '../../db/database.ts';
import { inTransaction, type Executor } from '../../db/transaction.ts';
import { acceptsVersion, type ExpectedVersions } from '../../db/versioning.ts';
import { isUniqueViolation, VersionMismatch } from '../../errors.ts';
import { existingUserIds } from '../../users/provisioned-users.repository.ts';
import { recordGroupChanged, recordGroupCreated, recordGroupDeleted } from './group-events.ts';
import { scimInvalid, scimNotFound, scimUniqueness } from './scim-errors.ts';
import { groupColumnsFrom, toScimGroup, type GroupColumns, type ScimGroupRecord } from './scim-groups.representation.ts';
import * as repo from './scim-groups.repository.ts';
import { listGroupIds, type ScimListQuery } from './scim-list.ts';
import { applyPatch, type PatchOperation } from './scim-patch.ts';
import { canonicalResource } from './scim-values.ts';

type Json = Record<string, unknown>;

export class ScimGroupsService {
  constructor(private readonly db: Database) {}

  async create(tenantId: string, body: Json): Promise<ScimGroupRecord> {
    const columns = groupColumnsFrom(canonicalResource(body, 'Group'));
    return this.write(async (trx) => {
      await checkMembers(trx, tenantId, columns.memberIds);
      const row = await repo.insertGroup(trx, tenantId, columns);
      await repo.setMembers(trx, row.id, columns.memberIds);
      await recordGroupCreated(trx, row, columns.memberIds);
      return (await repo.withMembers(trx, [row]))[0]!;
    });
  }

  async get(tenantId: string, id: string): Promise<ScimGroupRecord> {
    const [record] = await repo.loadGroups(this.db, tenantId, [id]);
    if (!record) throw scimNotFound('Group', id);
    return record;
  }

  async list(query: ScimListQuery): Promise<{ totalResults: number; records: ScimGroupRecord[] }> {
    const { totalResults, ids } = await listGroupIds(this.db, query);
    return { totalResults, records: await repo.loadGroups(this.db, query.tenantId, ids) };
  }

  replace(tenantId: string, id: string, body: Json, expected: ExpectedVersions): Promise<ScimGroupRecord> {
    const columns = groupColumnsFrom(canonicalResource(body, 'Group'));
    return this.modify(tenantId, id, expected, () => columns);
  }

  patch(tenantId: string, id: string, operations: PatchOperation[], expected: ExpectedVersions): Promise<ScimGroupRecord> {
    return this.modify(tenantId, id, expected, (current) => groupColumnsFrom(applyPatch(toScimGroup(current, ''), 'Group', operations)));
  }

  async delete(tenantId: string, id: string, expected: ExpectedVersions): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const row = await repo.findGroup(trx, tenantId, id, true);
      if (!row) throw scimNotFound('Group', id);
      if (!acceptsVersion(expected, row.version)) throw new VersionMismatch(row.version, `Group ${id}`);
      if (!(await repo.deleteGroup(trx, tenantId, id, row.version))) throw new VersionMismatch(row.version, `Group ${id}`);
      await recordGroupDeleted(trx, row);
    });
  }

  private modify(
    tenantId: string,
    id: string,
    expected: ExpectedVersions,
    change: (current: ScimGroupRecord) => GroupColumns,
  ): Promise<ScimGroupRecord> {
    return this.write(async (trx) => {
      const row = await repo.findGroup(trx, tenantId, id, true);
      if (!row) throw scimNotFound('Group', id);
      if (!acceptsVersion(expected, row.version)) throw new VersionMismatch(row.version, `Group ${id}`);
      const current = (await repo.withMembers(trx, [row]))[0]!;
      const columns = change(current);
      const currentIds = current.members.map((m) => m.id);
      const sameMembers = currentIds.length === columns.memberIds.length && columns.memberIds.every((m) => currentIds.includes(m));
      if (sameMembers && row.display_name === columns.display_name && row.external_id === columns.external_id) return current;
      await checkMembers(
        trx,
        tenantId,
        columns.memberIds.filter((m) => !currentIds.includes(m)),
      );
      const updated = await repo.updateGroup(trx, tenantId, id, row.version, columns);
      if (!updated) throw new VersionMismatch(row.version, `Group ${id}`);
      await repo.setMembers(trx, id, columns.memberIds);
      await recordGroupChanged(trx, row, updated, { before: currentIds, after: columns.memberIds });
      return (await repo.withMembers(trx, [updated]))[0]!;
    });
  }

  private async write<T>(fn: (trx: Executor) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.db, fn);
    } catch (error) {
      if (isUniqueViolation(error, 'groups_tenant_display_name_uq'))
        throw scimUniqueness('Another group of this tenant already has this displayName');
      if (isUniqueViolation(error, 'groups_tenant_external_id_uq'))
        throw scimUniqueness('Another group of this tenant already has this externalId');
      throw error;
    }
  }
}

/** Refuses member ids that are not users of the tenant (unknown, or another tenant's: the same 400). */
async function checkMembers(db: Executor, tenantId: string, ids: readonly string[]): Promise<void> {
  const existing = await existingUserIds(db, tenantId, ids);
  const missing = ids.filter((id) => !existing.has(id));
  if (missing.length) throw scimInvalid('invalidValue', `members are not users of this tenant: ${missing.slice(0, 10).join(', ')}`);
}
