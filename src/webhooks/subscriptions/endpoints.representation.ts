/** openapi/webhooks.yaml shapes of endpoints, health, attempts, dead letters and pages. */
import type { components } from '../../../generated/openapi/webhooks.ts';
import type { WebhookAttemptsRow } from '../../../generated/db/types.ts';
import type { DeadLetterRow, EndpointRow } from './endpoints.repository.ts';
import type { QueuedDelivery } from './endpoints.service.ts';

type Schemas = components['schemas'];

export const endpointPath = (id: string) => `/api/webhooks/${id}`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toEndpoint(e: EndpointRow): Schemas['WebhookEndpoint'] {
  return {
    id: e.id,
    tenant_id: e.tenant_id,
    all_tenants: e.all_tenants,
    url: e.url,
    events: e.events,
    description: e.description,
    api_version: e.api_version,
    payload: e.payload as 'fat' | 'thin',
    rate_limit_per_second: e.rate_limit_per_second,
    status: e.status as Schemas['EndpointStatus'],
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
    previous_secret_expires_at: e.previous_secret ? iso(e.previous_secret_expires_at) : null,
  };
}

export function toEndpointWithSecret(e: EndpointRow): Schemas['WebhookEndpointWithSecret'] {
  return { ...toEndpoint(e), secret: e.secret };
}

export function toHealth(e: EndpointRow): Schemas['EndpointHealth'] {
  return {
    endpoint_id: e.id,
    total_attempts: Number(e.total_attempts),
    successful_deliveries: Number(e.successful_deliveries),
    consecutive_failures: e.consecutive_failures,
    last_success_at: iso(e.last_success_at),
    last_failure_at: iso(e.last_failure_at),
    status: e.status as Schemas['EndpointStatus'],
  };
}

export function toAttempt(a: WebhookAttemptsRow): Schemas['DeliveryAttempt'] {
  return {
    id: a.id,
    event_id: a.event_id,
    status: a.status as 'delivered' | 'failed',
    response_code: a.response_code,
    response_time_ms: a.response_time_ms,
    ...(a.status === 'failed' && a.response_body !== null ? { response_body: a.response_body } : {}),
    ...(a.error !== null ? { error: a.error } : {}),
    ...(a.next_retry_at ? { next_retry_at: a.next_retry_at.toISOString() } : {}),
    attempted_at: a.attempted_at.toISOString(),
  };
}

export function toDeadLetter(d: DeadLetterRow): Schemas['DeadLetter'] {
  return {
    delivery_id: d.delivery_id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event_type: d.event_type,
    attempts: d.attempts,
    last_error: d.last_error,
    dead_at: d.dead_at.toISOString(),
  };
}

export function toQueued(q: QueuedDelivery): Schemas['QueuedDelivery'] {
  return { delivery_id: q.deliveryId, event_id: q.eventId, endpoint_id: q.endpointId, state: 'pending' };
}
