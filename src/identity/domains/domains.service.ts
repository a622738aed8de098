/**
 * Domains a tenant claims, their verification, and the routing of sign-ins by e-mail domain
 * (decision 88). A claim starts `pending` with a random token; it becomes `verified` when a TXT record
 * `_schemaforge-verification.<domain>` holds `schemaforge-verification=<token>`, or when an
 * administrator of the domain types back a code mailed to one of the role addresses RFC 2142 and the
 * CA/Browser Forum reserve for that purpose (admin@, administrator@, hostmaster@, postmaster@,
 * webmaster@). Several tenants may claim a domain; the first to verify it owns it. Only a verified
 * domain routes users.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { PLATFORM_TENANT } from '../../auth/principal.ts';
import type { Database } from '../../db/database.ts';
import { inTransaction, type Executor } from '../../db/transaction.ts';
import { conflict, isUniqueViolation, notFound, validationFailed } from '../../errors.ts';
import { revokeSessionsOfUser } from '../sign-in/sessions.repository.ts';
import { moveAccountsOfDomain } from '../../users/accounts.repository.ts';
import { leaveGroupsOutside } from '../sign-in/memberships.repository.ts';
import { requireTenant } from '../tenants/tenants.repository.ts';
import * as repo from './domains.repository.ts';
import { recordDomainVerified } from './domain-events.ts';
import type { MailTransport } from './mail-transport.ts';
import { txtRecordName, txtRecordValue, type TxtLookup } from './txt-records.ts';
import { countPasswordAccountsAt } from '../../users/users.repository.ts';

const MAIL_CODE_TTL_S = 30 * 60;
const MAIL_CODE_MAX_ATTEMPTS = 5;
const ADMIN_MAILBOXES = ['admin', 'administrator', 'hostmaster', 'postmaster', 'webmaster'] as const;

// A DNS name of at least two labels, letters, digits and inner hyphens (IDNs in their xn-- form).
const DOMAIN = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

const digest = (value: string) => createHash('sha256').update(value).digest();
const domainNotFound = (tenantId: string, domain: string) =>
  notFound(`Tenant ${tenantId} has not claimed the domain ${domain}`, 'DOMAIN_NOT_FOUND');

/**
 * The password accounts registered at `domain` before a tenant verified it become the tenant's
 * (interface document: users are routed by the domain of their e-mail address). Moving them, rather
 * than having sign-in look for them where they were, keeps one place where an address lives: the
 * tenant's SCIM, single sign-on (which finds, and for an unproven address takes over, the account)
 * and roles all see the same record, and the pre-hijack rule applies as to any account of the tenant,
 * so one whose address was never proven proves it before it signs in. Their sessions were the
 * platform tenant's and end.
 */
async function adoptAccounts(db: Executor, tenantId: string, domain: string): Promise<void> {
  for (const userId of await moveAccountsOfDomain(db, PLATFORM_TENANT, tenantId, domain)) {
    await leaveGroupsOutside(db, userId, tenantId);
    await revokeSessionsOfUser(db, userId);
  }
}

export class DomainsService {
  constructor(
    private readonly db: Database,
    private readonly lookupTxt: TxtLookup,
    private readonly mail: () => MailTransport,
  ) {}

  async add(tenantId: string, rawDomain: string): Promise<repo.DomainRow> {
    await requireTenant(this.db, tenantId);
    const domain = rawDomain.trim().toLowerCase().replace(/\.$/, '');
    if (!DOMAIN.test(domain)) throw validationFailed([{ field: ['domain'], message: 'must be a DNS domain name such as example.com' }]);
    try {
      return await repo.insertDomain(this.db, { domain, tenant_id: tenantId, verification_token: randomBytes(24).toString('base64url') });
    } catch (error) {
      if (isUniqueViolation(error, 'tenant_domains_pk'))
        throw conflict(`Tenant ${tenantId} has already claimed ${domain}`, 'DUPLICATE_DOMAIN');
      throw error;
    }
  }

  async list(tenantId: string): Promise<repo.DomainRow[]> {
    await requireTenant(this.db, tenantId);
    return repo.listDomains(this.db, tenantId);
  }

  async get(tenantId: string, domain: string): Promise<repo.DomainRow> {
    await requireTenant(this.db, tenantId);
    const row = await repo.findDomain(this.db, tenantId, domain.toLowerCase());
    if (!row) throw domainNotFound(tenantId, domain);
    return row;
  }

  /** Verifies by DNS (default) or by the mailed code. A 409 says what was not found. */
  async verify(tenantId: string, domain: string, how: { method?: 'dns' | 'mail'; code?: string } = {}): Promise<repo.DomainRow> {
    const row = await this.get(tenantId, domain);
    if (row.status === 'verified') return row;
    const owner = await repo.findVerifiedDomain(this.db, row.domain);
    if (owner) throw conflict(`${row.domain} is already verified by another tenant`, 'DOMAIN_TAKEN');
    if ((how.method ?? 'dns') === 'dns') {
      const name = txtRecordName(row.domain);
      let values: string[];
      try {
        values = await this.lookupTxt(name);
      } catch (error) {
        throw conflict(`The TXT records of ${name} could not be read (${(error as Error).message})`, 'DOMAIN_NOT_VERIFIED');
      }
      if (!values.includes(txtRecordValue(row))) {
        throw conflict(
          `No TXT record ${name} holds "${txtRecordValue(row)}" (found ${values.length ? values.map((v) => `"${v}"`).join(', ') : 'no TXT record'})`,
          'DOMAIN_NOT_VERIFIED',
        );
      }
    } else {
      await this.checkMailCode(row, how.code);
    }
    try {
      return await inTransaction(this.db, async (trx) => {
        const verified = await repo.markVerified(trx, tenantId, row.domain);
        // Verified by a concurrent request (which recorded the event), or removed meanwhile.
        if (!verified) return this.get(tenantId, row.domain);
        await adoptAccounts(trx, tenantId, row.domain);
        await recordDomainVerified(trx, verified);
        return verified;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'tenant_domains_verified_uq'))
        throw conflict(`${row.domain} is already verified by another tenant`, 'DOMAIN_TAKEN');
      throw error;
    }
  }

  /** Mails a one-time code to an administrator mailbox of the domain; when it expires. */
  async sendVerificationMail(tenantId: string, domain: string, to: string): Promise<{ sentTo: string; expiresAt: Date }> {
    const row = await this.get(tenantId, domain);
    if (row.status === 'verified') throw conflict(`${row.domain} is already verified`, 'DOMAIN_ALREADY_VERIFIED');
    const address = to.trim().toLowerCase();
    const [local, host] = address.split('@');
    if (host !== row.domain || !(ADMIN_MAILBOXES as readonly string[]).includes(local ?? '')) {
      throw validationFailed([{ field: ['to'], message: `must be one of ${ADMIN_MAILBOXES.map((m) => `${m}@${row.domain}`).join(', ')}` }]);
    }
    const code = String(randomInt(0, 100_000_000)).padStart(8, '0');
    const updated = await repo.setMailCode(this.db, tenantId, row.domain, digest(code).toString('hex'), MAIL_CODE_TTL_S);
    await this.mail().send({
      to: address,
      subject: `Verify ${row.domain} for single sign-on`,
      text: `Someone asked to use ${row.domain} for single sign-on (tenant ${tenantId}). If that was your organisation, the verification code is ${code}. It expires in 30 minutes. If not, ignore this message.`,
    });
    return { sentTo: address, expiresAt: updated.mail_code_expires_at! };
  }

  /** What requiring single sign-on for a claimed domain would change: its password accounts. */
  async enforcementImpact(tenantId: string, domain: string): Promise<{ domain: string; passwordAccounts: number }> {
    const row = await this.get(tenantId, domain);
    return { domain: row.domain, passwordAccounts: await countPasswordAccountsAt(this.db, row.domain) };
  }

  async setEnforceSso(tenantId: string, domain: string, enforce: boolean, hasProvider: boolean): Promise<repo.DomainRow> {
    const row = await this.get(tenantId, domain);
    if (enforce && row.status !== 'verified')
      throw conflict(`${row.domain} is not verified; verify it before enforcing single sign-on`, 'DOMAIN_NOT_VERIFIED');
    if (enforce && !hasProvider) throw conflict(`Tenant ${tenantId} has no identity provider to enforce`, 'IDENTITY_PROVIDER_NOT_FOUND');
    return repo.setEnforceSso(this.db, tenantId, row.domain, enforce);
  }

  async remove(tenantId: string, domain: string): Promise<void> {
    await requireTenant(this.db, tenantId);
    if (!(await repo.deleteDomain(this.db, tenantId, domain.toLowerCase()))) throw domainNotFound(tenantId, domain);
  }

  private async checkMailCode(row: repo.DomainRow, code: string | undefined): Promise<void> {
    if (!code) throw validationFailed([{ field: ['code'], message: 'is required when method is mail' }]);
    if (!row.mail_code_sha256 || !row.mail_code_expires_at || row.mail_code_expires_at.getTime() < Date.now()) {
      throw conflict(
        'No verification code is outstanding for this domain (none was mailed, or it expired); request a new one',
        'DOMAIN_NOT_VERIFIED',
      );
    }
    const counted = await repo.countMailCodeAttempt(this.db, row.tenant_id, row.domain);
    if (counted.mail_code_attempts > MAIL_CODE_MAX_ATTEMPTS) {
      throw conflict('Too many wrong codes; request a new one', 'DOMAIN_NOT_VERIFIED');
    }
    const expected = Buffer.from(row.mail_code_sha256, 'hex');
    if (!timingSafeEqual(digest(code.trim()), expected)) throw conflict('The verification code does not match', 'DOMAIN_NOT_VERIFIED');
  }
}
