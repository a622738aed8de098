/**
 * The admin's side of a tenant's SAML service provider keys (openapi/admin.yaml `listSamlKeys`,
 * `rotateSamlKeys`); the keys themselves, and the sign-on's reading of them, are
 * ./sp-keys.repository.ts.
 */
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { requireTenant } from '../tenants/tenants.repository.ts';
import { addSpKeyGeneration, requireSpKeys, type SpKeyPair } from './sp-keys.repository.ts';

export class SamlSpKeys {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {}

  /** The published keys of the tenant (the admin's list), created when it has none. */
  async list(tenantId: string): Promise<SpKeyPair[]> {
    await requireTenant(this.db, tenantId);
    const keys = await requireSpKeys(this.db, this.secrets, tenantId);
    return [...keys.signing, ...keys.encryption];
  }

  /** A new signing and encryption key; the older ones stay published for the grace period. */
  async rotate(tenantId: string): Promise<SpKeyPair[]> {
    await requireTenant(this.db, tenantId);
    await addSpKeyGeneration(this.db, this.secrets, tenantId, true);
    return this.list(tenantId);
  }
}
