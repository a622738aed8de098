import { sql } from 'kysely';
import type { NewScimTokensRow, ScimTokensRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';

/** A token as stored and listed: its digest never leaves this module. */
export type ScimTokenRecord = Omit<ScimTokensRow, 'token_sha256'>;

const LISTED = ['id', 'tenant_id', 'created_at', 'last_used_at', 'revoked_at'] as const;

export function insertToken(db: Executor, token: NewScimTokensRow): Promise<ScimTokenRecord> {
  return db
    .insertInto('scim_tokens')
    .values(token)
    .returning([...LISTED])
    .executeTakeFirstOrThrow();
}

export async function pageTokens(
  db: Executor,
  query: { tenantId: string; page: number; size: number },
): Promise<{ rows: ScimTokenRecord[]; total: number }> {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('scim_tokens')
      .select([...LISTED])
      .where('tenant_id', '=', query.tenantId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'asc')
      .limit(query.size)
      .offset(query.page * query.size)
      .execute(),
    db
      .selectFrom('scim_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', query.tenantId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** Marks the token revoked, keeping the first revocation time; undefined when the tenant has no such token. */
export function revokeToken(db: Executor, tenantId: string, id: string): Promise<{ id: string } | undefined> {
  return db
    .updateTable('scim_tokens')
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
}

export function findValidToken(
  db: Executor,
  digest: string,
): Promise<Pick<ScimTokensRow, 'id' | 'tenant_id' | 'last_used_at'> | undefined> {
  return db
    .selectFrom('scim_tokens')
    .select(['id', 'tenant_id', 'last_used_at'])
    .where('token_sha256', '=', digest)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Records a use, unless one was recorded within `resolutionSeconds` (concurrent requests write once). */
export async function touchToken(db: Executor, id: string, resolutionSeconds: number): Promise<void> {
  await db
    .updateTable('scim_tokens')
    .set({ last_used_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - make_interval(secs => ${resolutionSeconds})`)]),
    )
    .execute();
}
