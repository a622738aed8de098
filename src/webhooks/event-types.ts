/**
 * The webhook event types and the api_version values a consumer can subscribe with. The types are the
 * catalog, the `webhooks` section of openapi/webhooks.yaml (decisions 75 and 199), generated into
 * generated/openapi/webhooks.events.ts: an area that records a type the catalog does not declare
 * does not compile (`NewEvent.type` is an `EventType`). `*` in an endpoint's `events` subscribes to all.
 */
import { EVENT_AUDIENCE, EVENT_TYPES, type EventType } from '../../generated/openapi/webhooks.events.ts';

export type { EventType };

export const ALL_EVENTS = '*';

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * Whether an endpoint of a tenant (tenantId) or of the platform (null) may subscribe to `type`: a
 * tenant's endpoint receives its tenant's events only, so only the catalog's `x-audience: tenant`
 * types; a platform endpoint any (a tenant's type reaches it with `all_tenants`).
 */
export function receivableBy(type: EventType, tenantId: string | null): boolean {
  return tenantId === null || EVENT_AUDIENCE[type] === 'tenant';
}

/** Payload formats, newest last; an endpoint registered without one gets the newest. */
const API_VERSIONS = ['2026-11-24'] as const;

export type ApiVersion = (typeof API_VERSIONS)[number];

export const CURRENT_API_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1]!;

export function isApiVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value);
}
