/** JSON shapes of openapi/admin.yaml: tenants and SCIM tokens (a token's value only when issued). */
import type { components } from '../../../generated/openapi/admin.ts';
import { pageMetadata } from '../../paging.ts';
import type { IssuedScimToken, ScimTokenRecord } from './scim-tokens.service.ts';
import type { TenantRecord } from './tenants.service.ts';

type Tenant = components['schemas']['Tenant'];
type TenantPage = components['schemas']['TenantPage'];
type ScimToken = components['schemas']['ScimToken'];
type ScimTokenPage = components['schemas']['ScimTokenPage'];
type IssuedToken = components['schemas']['IssuedScimToken'];

export const tenantPath = (id: string) => `/api/v1/admin/tenants/${id}`;

export function toTenant(tenant: TenantRecord): Tenant {
  return { id: tenant.id, name: tenant.name, createdAt: tenant.created_at.toISOString() };
}

export function toTenantPage(result: { items: TenantRecord[]; totalElements: number }, number: number, size: number): TenantPage {
  return { content: result.items.map(toTenant), page: pageMetadata(number, size, result.totalElements) };
}

function toScimToken(token: ScimTokenRecord): ScimToken {
  return {
    id: token.id,
    tenantId: token.tenant_id,
    createdAt: token.created_at.toISOString(),
    lastUsedAt: token.last_used_at?.toISOString() ?? null,
    revokedAt: token.revoked_at?.toISOString() ?? null,
  };
}

export function toScimTokenPage(result: { items: ScimTokenRecord[]; totalElements: number }, number: number, size: number): ScimTokenPage {
  return { content: result.items.map(toScimToken), page: pageMetadata(number, size, result.totalElements) };
}

export function toIssuedScimToken({ record, token }: IssuedScimToken): IssuedToken {
  return { id: record.id, tenantId: record.tenant_id, createdAt: record.created_at.toISOString(), token };
}
