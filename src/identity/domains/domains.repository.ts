import { sql } from 'kysely';
import type { NewTenantDomainsRow, TenantDomainsRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';

export type DomainRow = TenantDomainsRow;

/**
 * A domain starts unproven: its status, proof (verified_at, the mailed code) and SSO enforcement
 * change only through markVerified, setMailCode, countMailCodeAttempt and setEnforceSso.
 */
type NewDomain = Omit<
  NewTenantDomainsRow,
  'status' | 'verified_at' | 'enforce_sso' | 'mail_code_sha256' | 'mail_code_expires_at' | 'mail_code_attempts'
>;

export function insertDomain(db: Executor, row: NewDomain): Promise<DomainRow> {
  return db.insertInto('tenant_domains').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findDomain(db: Executor, tenantId: string, domain: string): Promise<DomainRow | undefined> {
  return db.selectFrom('tenant_domains').selectAll().where('tenant_id', '=', tenantId).where('domain', '=', domain).executeTakeFirst();
}

export function listDomains(db: Executor, tenantId: string): Promise<DomainRow[]> {
  return db.selectFrom('tenant_domains').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('domain').execute();
}

/** The verified owner of a domain, if any: what routes a sign-in. */
export function findVerifiedDomain(db: Executor, domain: string): Promise<DomainRow | undefined> {
  return db.selectFrom('tenant_domains').selectAll().where('domain', '=', domain).where('status', '=', 'verified').executeTakeFirst();
}

/** The domain of an e-mail address, lower-cased; null when the address has none. */
export function domainOfEmail(email: string): string | null {
  const at = email.lastIndexOf('@');
  const domain =
    at > 0
      ? email
          .slice(at + 1)
          .trim()
          .toLowerCase()
      : '';
  return domain ? domain : null;
}

/** The verified domain that routes a sign-in by `email`, if any. */
export function findRouteOf(db: Executor, email: string): Promise<DomainRow | undefined> {
  const domain = domainOfEmail(email);
  return domain ? findVerifiedDomain(db, domain) : Promise.resolve(undefined);
}

/** Marks a pending claim verified; undefined when it was not pending (verified meanwhile, or removed). */
export function markVerified(db: Executor, tenantId: string, domain: string): Promise<DomainRow | undefined> {
  return db
    .updateTable('tenant_domains')
    .set({ status: 'verified', verified_at: sql<Date>`coalesce(verified_at, now())`, mail_code_sha256: null, mail_code_expires_at: null })
    .where('tenant_id', '=', tenantId)
    .where('domain', '=', domain)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

export function setMailCode(db: Executor, tenantId: string, domain: string, digest: string, ttlS: number): Promise<DomainRow> {
  return db
    .updateTable('tenant_domains')
    .set({ mail_code_sha256: digest, mail_code_expires_at: sql<Date>`now() + make_interval(secs => ${ttlS})`, mail_code_attempts: 0 })
    .where('tenant_id', '=', tenantId)
    .where('domain', '=', domain)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Counts one guess at the mailed code; the row as it is after the guess. */
export function countMailCodeAttempt(db: Executor, tenantId: string, domain: string): Promise<DomainRow> {
  return db
    .updateTable('tenant_domains')
    .set((eb) => ({ mail_code_attempts: eb('mail_code_attempts', '+', 1) }))
    .where('tenant_id', '=', tenantId)
    .where('domain', '=', domain)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function setEnforceSso(db: Executor, tenantId: string, domain: string, enforce: boolean): Promise<DomainRow> {
  return db
    .updateTable('tenant_domains')
    .set({ enforce_sso: enforce })
    .where('tenant_id', '=', tenantId)
    .where('domain', '=', domain)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteDomain(db: Executor, tenantId: string, domain: string): Promise<boolean> {
  const result = await db.deleteFrom('tenant_domains').where('tenant_id', '=', tenantId).where('domain', '=', domain).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
