/**
 * The webhook event types and the api_version values a consumer can subscribe with. The types are the
 * catalog, the `webhooks` section of openapi/webhooks.yaml (decisions 75 and 199), generated into
 * generated/openapi/webhooks.events.ts: an area that records a type the catalog does not declare
 * does not compile (`NewEvent.type` is an `EventType`). `*` in an endpoint's `events` subscribes to all.
 */
import { EVENT_TYPES, type EventType } from '../../generated/openapi/webhooks.events.ts';

export type { EventType };

export const ALL_EVENTS = '*';

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** Payload formats, newest last; an endpoint registered without one gets the newest. */
const API_VERSIONS = ['2026-11-24'] as const;

export type ApiVersion = (typeof API_VERSIONS)[number];

export const CURRENT_API_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1]!;

export function isApiVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value);
}
