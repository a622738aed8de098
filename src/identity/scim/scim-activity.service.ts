/**
 * A tenant's SCIM provisioning activity: what its identity provider's requests were and how they
 * ended, for the administrator connecting it (the portal's SCIM screen). Recorded by the /scim/v2
 * scope after each response (scim-activity.ts), listed through admin.yaml `listScimActivity`.
 */
import type { Database } from '../../db/database.ts';
import { requireTenant } from '../tenants/tenants.repository.ts';
import * as repo from './scim-activity.repository.ts';
import type { ScimActivityEntry } from './scim-activity.ts';

export type { ScimActivityRecord } from './scim-activity.repository.ts';

export class ScimActivityService {
  constructor(private readonly db: Database) {}

  async record(tenantId: string, entry: ScimActivityEntry): Promise<void> {
    await repo.insertActivity(this.db, {
      tenant_id: tenantId,
      at: entry.at,
      method: entry.method,
      operation: entry.operation,
      resource_type: entry.resourceType,
      resource_id: entry.resourceId,
      resource_label: entry.resourceLabel,
      status: entry.status,
      outcome: entry.outcome,
      scim_type: entry.scimType,
      detail: entry.detail,
    });
  }

  /** Newest first. */
  async list(
    tenantId: string,
    query: { page: number; size: number; outcome?: repo.ScimActivityOutcome },
  ): Promise<{ items: repo.ScimActivityRecord[]; totalElements: number }> {
    await requireTenant(this.db, tenantId);
    const { rows, total } = await repo.pageActivity(this.db, { tenantId, ...query });
    return { items: rows, totalElements: total };
  }
}
