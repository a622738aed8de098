/**
 * The body a delivery sends, rendered from the stored event for one endpoint (interface document,
 * "Event envelope"): id, type, created_at, api_version, data.object (fat, with the resource's `url`:
 * the base URL and the path the recording area stored) or data.object_id/object_type (thin),
 * data.previous_attributes when the event is a change, sequence, and tenant_id for a tenant's event. `api_version` picks the
 * renderer; a new version is a new entry in RENDERERS.
 * The output is deterministic (same event and endpoint, same bytes), so a retry signs the same body.
 */
import type { WebhookEventsRow } from '../../../generated/db/types.ts';
import { CURRENT_API_VERSION, type ApiVersion } from '../event-types.ts';

type StoredEvent = Pick<
  WebhookEventsRow,
  | 'id'
  | 'type'
  | 'resource_type'
  | 'resource_id'
  | 'sequence'
  | 'object'
  | 'previous_attributes'
  | 'resource_path'
  | 'tenant_id'
  | 'created_at'
>;

interface EndpointFormat {
  api_version: string;
  /** 'fat' or 'thin'; anything else renders fat. */
  payload: string;
}

type Renderer = (event: StoredEvent, payload: 'fat' | 'thin', baseUrl: string) => Record<string, unknown>;

const v20261124: Renderer = (event, payload, baseUrl) => {
  const path = event.resource_path;
  const data: Record<string, unknown> =
    payload === 'thin'
      ? { object_id: event.resource_id, object_type: event.resource_type }
      : { object: { ...(event.object as Record<string, unknown>), ...(path ? { url: `${baseUrl}${path}` } : {}) } };
  if (event.previous_attributes) data.previous_attributes = event.previous_attributes;
  return {
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    api_version: '2026-11-24',
    // A tenant's event says whose (a platform endpoint with all_tenants receives every tenant's).
    ...(event.tenant_id !== null ? { tenant_id: event.tenant_id } : {}),
    data,
    ...(event.sequence !== null ? { sequence: Number(event.sequence) } : {}),
  };
};

const RENDERERS: Record<ApiVersion, Renderer> = { '2026-11-24': v20261124 };

export function renderEnvelope(event: StoredEvent, endpoint: EndpointFormat, baseUrl: string): string {
  const render = RENDERERS[endpoint.api_version as ApiVersion] ?? RENDERERS[CURRENT_API_VERSION];
  return JSON.stringify(render(event, endpoint.payload === 'thin' ? 'thin' : 'fat', baseUrl));
}
