/**
 * Tenants: the organisations users, identity provider settings and SCIM clients belong to. A tenant's
 * id is a slug fixed at creation (migration 0008 holds the rule; openapi/admin.yaml states it).
 */
import type { Database } from '../../db/database.ts';
import { conflict, isCheckViolation, isUniqueViolation, validationFailed } from '../../errors.ts';
import * as repo from './tenants.repository.ts';

export type { TenantRecord } from './tenants.repository.ts';

export const TENANT_SORT_FIELDS = ['id', 'name', 'createdAt'] as const satisfies readonly repo.TenantSortField[];

export class TenantsService {
  constructor(private readonly db: Database) {}

  async create(input: { id: string; name: string }): Promise<repo.TenantRecord> {
    try {
      return await repo.insertTenant(this.db, { id: input.id, name: input.name });
    } catch (error) {
      if (isUniqueViolation(error, 'tenants_pkey')) throw conflict(`A tenant with id ${input.id} already exists`, 'DUPLICATE_TENANT');
      // Callers other than the REST API (whose validator checks the same pattern first) meet the rule here.
      if (isCheckViolation(error, 'tenants_id_check')) {
        throw validationFailed([{ field: ['id'], message: 'must be a slug: 1 to 63 lower-case letters, digits and inner hyphens' }]);
      }
      throw error;
    }
  }

  get(id: string): Promise<repo.TenantRecord> {
    return repo.requireTenant(this.db, id);
  }

  async list(query: repo.TenantPageQuery): Promise<{ items: repo.TenantRecord[]; totalElements: number }> {
    const { rows, total } = await repo.pageTenants(this.db, query);
    return { items: rows, totalElements: total };
  }
}
