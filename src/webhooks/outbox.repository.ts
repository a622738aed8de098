/**
 * The transactional outbox: an event row and its fan-out to every subscribed endpoint, in ONE
 * statement run inside the caller's transaction. A committed change therefore always has its event
 * and its deliveries queued, and a rolled-back one has neither. The fan-out decides each delivery's
 * starting state from the endpoint's status at that moment: active → pending, degraded → held
 * (stored, sent once the endpoint is active again), disabled → skipped (replayable). The insert's
 * trigger wakes the workers on commit (migration 0011).
 */
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/transaction.ts';
import { ALL_EVENTS, type EventType } from './event-types.ts';

export interface NewEvent {
  type: EventType;
  resourceType: string;
  resourceId: string;
  /** The resource's version after the change (the envelope's `sequence`); null when it has none. */
  sequence: number | null;
  /** The resource in the current REST v1 shape. */
  object: Record<string, unknown>;
  /** Where the resource's latest version can be fetched (REST v1, from the base URL); null once deleted. */
  resourcePath: string | null;
  /** The changed attributes with their earlier values (REST field names); null when not a change. */
  previousAttributes?: Record<string, unknown> | null;
  /**
   * The tenant the change belongs to (directory events): delivered to that tenant's endpoints and
   * to platform endpoints that subscribe to every tenant's; absent or null, a platform event,
   * delivered to platform endpoints only.
   */
  tenantId?: string | null;
}

/**
 * Records the event and queues it for every subscribed endpoint; returns the event id. Which
 * endpoints: those subscribed to the type (or to `*`) in the event's audience: a platform event
 * goes to platform endpoints; a tenant's event to that tenant's endpoints and to platform endpoints
 * with `all_tenants`, never to another tenant's, whatever they subscribe to.
 */
export async function recordEvent(db: Executor, event: NewEvent): Promise<string> {
  const tenantId = event.tenantId ?? null;
  const { rows } = await sql<{ id: string }>`
    with event as (
      insert into webhook_events (type, resource_type, resource_id, sequence, object, previous_attributes, resource_path, tenant_id)
      values (${event.type}, ${event.resourceType}, ${event.resourceId}, ${event.sequence},
              ${JSON.stringify(event.object)}::jsonb, ${event.previousAttributes ? JSON.stringify(event.previousAttributes) : null}::jsonb,
              ${event.resourcePath}, ${tenantId})
      returning id, position
    ), queued as (${queueDeliveries(sql.raw('event'), sql`${event.type}`, sql`${`${event.resourceType}:${event.resourceId}`}`, sql`${tenantId}::text`)})
    select id from event`.execute(db);
  return rows[0]!.id;
}

/**
 * The fan-out of an event, as an INSERT for a common table expression: a delivery for every endpoint
 * subscribed to its type (or to every event) in its audience (the event's tenant's endpoints and the
 * platform's that take all tenants; the platform's alone for a platform event), pending for an active
 * endpoint, held for a degraded one, skipped for a disabled one. `event` names the CTE that inserted
 * the event (its `id` and `position`); the one rule of every writer of events (`recordEvent`, the
 * GraphQL planner's statements).
 */
export function queueDeliveries(
  event: RawBuilder<unknown>,
  type: RawBuilder<unknown>,
  orderingKey: RawBuilder<unknown>,
  tenantId: RawBuilder<unknown>,
) {
  return sql`insert into webhook_deliveries (endpoint_id, event_id, event_position, ordering_key, state)
      select e.id, ${event}.id, ${event}.position, ${orderingKey},
             case e.status when 'active' then 'pending' when 'degraded' then 'held' else 'skipped' end
      from webhook_endpoints e, ${event}
      where (${type} = any(e.events) or ${ALL_EVENTS} = any(e.events))
        and case when ${tenantId} is null then e.tenant_id is null
                 else e.tenant_id = ${tenantId} or (e.tenant_id is null and e.all_tenants) end`;
}

/**
 * The `sequence` of the next event of a resource that has no version of its own (a tenant's identity
 * provider, a domain claim): one past the last of that tenant's events of the resource. Called in
 * the change's transaction after its write, whose row lock makes concurrent changes of one resource
 * wait for each other, so no two events of it share a number.
 */
export async function nextSequence(db: Executor, resourceType: string, resourceId: string, tenantId: string | null): Promise<number> {
  const { rows } = await sql<{ sequence: string | number }>`
    select sequence from webhook_events
    where resource_type = ${resourceType} and resource_id = ${resourceId}
      and tenant_id is not distinct from ${tenantId}::text and sequence is not null
    order by position desc limit 1`.execute(db);
  return Number(rows[0]?.sequence ?? 0) + 1;
}

/**
 * Records a test event for one endpoint only (never fanned out, outside any ordering) and queues
 * its delivery whatever the endpoint's status: the operator asked for it explicitly. It belongs to
 * the endpoint's tenant (null for a platform endpoint).
 */
export async function recordTestEvent(db: Executor, endpointId: string, event: NewEvent): Promise<{ eventId: string; deliveryId: string }> {
  const { rows } = await sql<{ event_id: string; delivery_id: string }>`
    with event as (
      insert into webhook_events (type, resource_type, resource_id, sequence, object, previous_attributes, resource_path, test, tenant_id)
      values (${event.type}, ${event.resourceType}, ${event.resourceId}, ${event.sequence},
              ${JSON.stringify(event.object)}::jsonb, ${event.previousAttributes ? JSON.stringify(event.previousAttributes) : null}::jsonb,
              ${event.resourcePath}, true, (select tenant_id from webhook_endpoints where id = ${endpointId}::uuid))
      returning id, position
    )
    insert into webhook_deliveries (endpoint_id, event_id, event_position, ordering_key, state)
    select ${endpointId}::uuid, event.id, event.position, null, 'pending' from event
    returning event_id, id as delivery_id`.execute(db);
  return { eventId: rows[0]!.event_id, deliveryId: rows[0]!.delivery_id };
}
