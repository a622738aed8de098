/**
 * One event fans out to every subscribed endpoint, and every endpoint on the same API version and
 * payload gets the same bytes (the envelope is deterministic: decision 81), so each body is rendered
 * once and kept for the deliveries that follow it. Only the signature differs per endpoint.
 */
import { renderEnvelope } from '../events/envelope.ts';
import type { ClaimedDelivery } from './queue.repository.ts';

/** Bodies kept: a burst's events in flight at once, with room to spare; the oldest goes first. */
const KEPT = 2000;

export function createRenderedBodies(baseUrl: string): (d: ClaimedDelivery) => string {
  const bodies = new Map<string, string>();
  return (d) => {
    const key = `${d.event_id} ${d.api_version} ${d.payload}`;
    let body = bodies.get(key);
    if (body === undefined) {
      body = renderEnvelope(
        {
          id: d.event_id,
          type: d.event_type,
          resource_type: d.event_resource_type,
          resource_id: d.event_resource_id,
          sequence: d.event_sequence,
          object: JSON.parse(d.event_object) as Record<string, unknown>,
          previous_attributes:
            d.event_previous_attributes === null ? null : (JSON.parse(d.event_previous_attributes) as Record<string, unknown>),
          resource_path: d.event_resource_path,
          tenant_id: d.event_tenant_id,
          created_at: d.event_created_at,
        },
        { api_version: d.api_version, payload: d.payload },
        baseUrl,
      );
      if (bodies.size >= KEPT) bodies.delete(bodies.keys().next().value!);
      bodies.set(key, body);
    }
    return body;
  };
}
