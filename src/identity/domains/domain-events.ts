/**
 * `domain.verified` (issue 44): a tenant proved it holds a domain (by DNS or the mailed code), so
 * sign-ins of its addresses now route to the tenant. Recorded through the webhooks area's outbox in
 * the transaction that marks the claim verified, once per claim. The object is the admin API's
 * Domain. A claim has no version, so `sequence` counts the tenant's events of the domain
 * (outbox.repository.ts `nextSequence`); the event belongs to the tenant.
 */
import type { Executor } from '../../db/transaction.ts';
import type { EventType } from '../../webhooks/event-types.ts';
import { nextSequence, recordEvent, type NewEvent } from '../../webhooks/outbox.repository.ts';
import { toDomain } from '../tenants/sso-admin.representation.ts';
import type { DomainRow } from './domains.repository.ts';

const RESOURCE = 'domain';

const verifiedEvent = (domain: DomainRow, sequence: number | null): NewEvent => ({
  type: 'domain.verified',
  resourceType: RESOURCE,
  resourceId: domain.domain,
  sequence,
  object: toDomain(domain),
  // Read at /api/v1/admin/tenants/{tenant_id}/domains/{domain}, an operator's URL (see provider-events.ts).
  resourcePath: null,
  tenantId: domain.tenant_id,
});

export async function recordDomainVerified(db: Executor, domain: DomainRow): Promise<void> {
  await recordEvent(db, verifiedEvent(domain, await nextSequence(db, RESOURCE, domain.domain, domain.tenant_id)));
}

/** The claim a test event is about (decision 77): the `default` tenant's, of a reserved name. */
const sampleDomain: DomainRow = {
  domain: 'sample.example',
  tenant_id: 'default',
  verification_token: 'sample-verification-token',
  status: 'verified',
  enforce_sso: false,
  mail_code_sha256: null,
  mail_code_expires_at: null,
  mail_code_attempts: 0,
  created_at: new Date('2026-01-01T12:00:00.000Z'),
  verified_at: new Date('2026-01-01T12:00:00.000Z'),
};

/** The test event of `domain.verified`, built as the real one is (POST /api/webhooks/{id}/test). */
export const domainEventSamples: Record<Extract<EventType, `domain.${string}`>, () => NewEvent> = {
  'domain.verified': () => verifiedEvent(sampleDomain, null),
};
