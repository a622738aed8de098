/**
 * SCIM bearer tokens: long random values, shown once when issued and stored only as their SHA-256.
 * A request's token yields its tenant (`tenantForToken`), which the SCIM endpoints use for every read
 * and write. A plain digest suffices (no salt, no slow hash): the value carries 256 random bits, so
 * there is nothing to guess from a leaked digest, and one indexed look-up keeps the check cheap.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import * as repo from './scim-tokens.repository.ts';
import { requireTenant } from './tenants.repository.ts';

export type { ScimTokenRecord } from './scim-tokens.repository.ts';

/** Recognisable in logs and by secret scanners; the rest is 32 random bytes in base64url (43 characters). */
const PREFIX = 'sfscim_';
const TOKEN_SHAPE = /^sfscim_[A-Za-z0-9_-]{43}$/;

/**
 * `last_used_at` is kept to the minute: a provisioning client sends bursts of requests, and one write
 * per token per minute is enough to tell an operator which tokens are still in use.
 */
const LAST_USED_RESOLUTION_S = 60;

export interface IssuedScimToken {
  record: repo.ScimTokenRecord;
  /** The bearer value; not stored, so this is the only time it exists outside the client. */
  token: string;
}

const digestOf = (token: string) => createHash('sha256').update(token).digest('hex');

const scimTokenNotFound = (id: string) => notFound(`SCIM token not found: ${id}`, 'SCIM_TOKEN_NOT_FOUND');

export class ScimTokensService {
  constructor(private readonly db: Database) {}

  async issue(tenantId: string): Promise<IssuedScimToken> {
    await requireTenant(this.db, tenantId);
    const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
    const record = await repo.insertToken(this.db, { tenant_id: tenantId, token_sha256: digestOf(token) });
    return { record, token };
  }

  async list(tenantId: string, query: { page: number; size: number }): Promise<{ items: repo.ScimTokenRecord[]; totalElements: number }> {
    await requireTenant(this.db, tenantId);
    const { rows, total } = await repo.pageTokens(this.db, { tenantId, ...query });
    return { items: rows, totalElements: total };
  }

  /** Revoking a revoked token again succeeds and keeps its first revocation time. */
  async revoke(tenantId: string, tokenId: string): Promise<void> {
    if (!(await repo.revokeToken(this.db, tenantId, tokenId))) throw scimTokenNotFound(tokenId);
  }

  /** The tenant a SCIM request acts for, or null when its token is malformed, unknown or revoked. */
  async tenantForToken(token: string): Promise<string | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const found = await repo.findValidToken(this.db, digestOf(token));
    if (!found) return null;
    const stale = found.last_used_at === null || Date.now() - found.last_used_at.getTime() >= LAST_USED_RESOLUTION_S * 1000;
    if (stale) await repo.touchToken(this.db, found.id, LAST_USED_RESOLUTION_S);
    return found.tenant_id;
  }
}
