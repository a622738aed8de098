/**
 * What single sign-on keeps between requests, in the database so that any instance may receive the
 * callback: sign-ins in flight (`sso_requests`: a SAML request id or an OIDC state, one use each) and
 * ids already accepted (`sso_seen_ids`: SAML assertion and LogoutRequest ids, OIDC logout token ids).
 */
import { sql } from 'kysely';
import type { NewSsoRequestsRow, SsoRequestsRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';

export type SsoRequestRow = SsoRequestsRow;
/** A sign-in in flight (`saml`, `oidc`), or a SAML LogoutRequest this service sent (`saml-logout`). */
type SsoRequestProtocol = 'saml' | 'oidc' | 'saml-logout';

export function insertSsoRequest(db: Executor, row: Omit<NewSsoRequestsRow, 'expires_at'> & { ttlS: number }): Promise<void> {
  const { ttlS, ...values } = row;
  return db
    .insertInto('sso_requests')
    .values({ ...values, expires_at: sql<Date>`now() + make_interval(secs => ${ttlS})` })
    .execute()
    .then(() => undefined);
}

export function findSsoRequest(
  db: Executor,
  tenantId: string,
  protocol: SsoRequestProtocol,
  id: string,
): Promise<SsoRequestRow | undefined> {
  return db
    .selectFrom('sso_requests')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .where('protocol', '=', protocol)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

/** Deletes the request and returns it, so that of two callbacks with the same id only one proceeds. */
export function takeSsoRequest(
  db: Executor,
  tenantId: string,
  protocol: SsoRequestProtocol,
  id: string,
): Promise<SsoRequestRow | undefined> {
  return db
    .deleteFrom('sso_requests')
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .where('protocol', '=', protocol)
    .where('expires_at', '>', sql<Date>`now()`)
    .returningAll()
    .executeTakeFirst();
}

/** Records an id as seen until `expiresAt`; false when it was seen already (a replay). */
export async function rememberOnce(
  db: Executor,
  entry: { tenant_id: string; kind: 'saml-assertion' | 'oidc-logout-token' | 'saml-logout-request'; id: string; expires_at: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('sso_seen_ids')
    .values(entry)
    .onConflict((oc) => oc.columns(['tenant_id', 'kind', 'id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Deletes what has expired: requests never completed, ids past the time they could be replayed, spent rate windows. */
export async function deleteExpiredSsoState(db: Executor): Promise<void> {
  await db
    .deleteFrom('sso_requests')
    .where('expires_at', '<', sql<Date>`now()`)
    .execute();
  await db
    .deleteFrom('sso_seen_ids')
    .where('expires_at', '<', sql<Date>`now()`)
    .execute();
  await db
    .deleteFrom('rate_limit_windows')
    .where('window_start', '<', sql<Date>`now() - interval '1 hour'`)
    .execute();
}
