/**
 * The catalog of webhook event types (the interface document leaves it open: decision 75) and the
 * api_version values a consumer can subscribe with. `*` in an endpoint's `events` subscribes to all.
 */
const EVENT_TYPES = [
  'order.created',
  'order.updated',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'product.created',
  'product.updated',
  'product.deleted',
  'user.created',
  'user.updated',
  'user.deactivated',
  'user.reactivated',
  'user.deleted',
  'group.created',
  'group.updated',
  'group.deleted',
  'group.member_added',
  'group.member_removed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

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
