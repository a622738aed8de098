/**
 * A tenant's identity provider events (issue 44), recorded through the webhooks area's outbox in the
 * transaction of the change: `identity_provider.activated` (the tenant had none: single sign-on is
 * now on), `identity_provider.updated` (its settings replaced; previous_attributes = the changed
 * fields) and `identity_provider.deleted` (the last representation; single sign-on is off). The
 * object is the admin API's IdentityProvider, without a secret. A provider has no version, so
 * `sequence` counts the tenant's events of it (outbox.repository.ts `nextSequence`); each belongs to
 * the tenant.
 */
import type { Executor } from '../../db/transaction.ts';
import type { EventType } from '../../webhooks/event-types.ts';
import { previousAttributes } from '../../webhooks/events/changes.ts';
import { nextSequence, recordEvent, type NewEvent } from '../../webhooks/outbox.repository.ts';
import { toIdentityProvider } from '../tenants/sso-admin.representation.ts';
import type { IdentityProvider } from './provider-settings.ts';

const RESOURCE = 'identity_provider';

function providerEvent(
  type: EventType,
  provider: IdentityProvider,
  object: Record<string, unknown>,
  extra: Pick<NewEvent, 'sequence'> & Partial<NewEvent>,
): NewEvent {
  return {
    type,
    resourceType: RESOURCE,
    resourceId: provider.tenantId,
    object,
    // The admin API reads it at /api/v1/admin/tenants/{tenant_id}/identity-provider, an operator's
    // URL: the event names the tenant instead of a `url` a receiver could not call.
    resourcePath: null,
    tenantId: provider.tenantId,
    ...extra,
  };
}

async function record(
  db: Executor,
  type: EventType,
  provider: IdentityProvider,
  object: Record<string, unknown>,
  previous: Record<string, unknown> | null = null,
): Promise<void> {
  const sequence = await nextSequence(db, RESOURCE, provider.tenantId, provider.tenantId);
  await recordEvent(db, providerEvent(type, provider, object, { sequence, previousAttributes: previous }));
}

const objectOf = (provider: IdentityProvider, baseUrl: string) =>
  toIdentityProvider(provider, baseUrl) as unknown as Record<string, unknown>;

/** `activated` when the tenant had no provider (`before` null), else `updated` when a field changed. */
export async function recordProviderSet(
  db: Executor,
  before: IdentityProvider | null,
  after: IdentityProvider,
  baseUrl: string,
): Promise<void> {
  const object = objectOf(after, baseUrl);
  if (!before) return record(db, 'identity_provider.activated', after, object);
  const changed = previousAttributes(objectOf(before, baseUrl), object);
  // When it was written and how its metadata URL was last read are not settings.
  delete changed.updatedAt;
  delete changed.metadataRefresh;
  if (Object.keys(changed).length) await record(db, 'identity_provider.updated', after, object, changed);
}

export function recordProviderDeleted(db: Executor, provider: IdentityProvider, baseUrl: string): Promise<void> {
  return record(db, 'identity_provider.deleted', provider, objectOf(provider, baseUrl));
}

/** The provider a test event is about (decision 77): the `default` tenant's, made up, as its URLs say. */
const sampleProvider: IdentityProvider = {
  tenantId: 'default',
  protocol: 'saml',
  saml: {
    entityId: 'https://idp.example.invalid/metadata',
    ssoUrl: 'https://idp.example.invalid/sso',
    sloUrl: null,
    certificates: ['-----BEGIN CERTIFICATE-----\nMIIBsample\n-----END CERTIFICATE-----'],
    nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    signedAssertions: true,
    signedResponses: false,
    metadataUrl: null,
    allowIdpInitiated: false,
    signAuthnRequests: true,
    requireEncryptedAssertions: false,
  },
  metadataRefresh: null,
  attributeMapping: { email: 'email', firstName: 'firstName', lastName: 'lastName', groups: 'groups' },
  roleMapping: { 'Sample group': 'EDITOR' },
  updatedAt: new Date('2026-01-01T12:00:00.000Z'),
};

/** Test events of the provider's types, built as the real ones are (POST /api/webhooks/{id}/test). */
export function providerEventSamples(baseUrl: string): Record<Extract<EventType, `identity_provider.${string}`>, () => NewEvent> {
  const sample = (type: EventType, previous: Record<string, unknown> | null = null) =>
    providerEvent(type, sampleProvider, objectOf(sampleProvider, baseUrl), { sequence: null, previousAttributes: previous });
  return {
    'identity_provider.activated': () => sample('identity_provider.activated'),
    'identity_provider.updated': () => sample('identity_provider.updated', { roleMapping: {} }),
    'identity_provider.deleted': () => sample('identity_provider.deleted'),
  };
}
