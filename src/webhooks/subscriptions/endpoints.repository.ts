/**
 * Webhook endpoints, attempts and dead letters as stored (migrations 0011, 0022). Every function a
 * subscriber's request reaches takes the caller's scope: a tenant's ADMIN sees and changes that
 * tenant's endpoints only (another's is not found); a platform ADMIN every endpoint.
 */
import { sql } from 'kysely';
import type {
  WebhookEventsRow,
  NewWebhookEndpointsRow,
  WebhookAttemptsRow,
  WebhookEndpointsRow,
  WebhookEndpointsRowChanges,
} from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';

export type EndpointRow = WebhookEndpointsRow;

/** Whose endpoints a caller reaches: one tenant's (its ADMIN), or every endpoint (null: a platform ADMIN). */
export interface EndpointScope {
  readonly tenantId: string | null;
}

/** Where a newest-first page continues: after the row with this time and id. */
export interface PageAfter {
  at: string;
  id: string;
}

export function findEndpoint(db: Executor, scope: EndpointScope, id: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .$if(scope.tenantId !== null, (q) => q.where('tenant_id', '=', scope.tenantId))
    .executeTakeFirst();
}

/**
 * What delivery and this module's own functions keep, never a subscriber's write: the status and
 * health counters (completions.repository.ts, enableEndpoint), the rate window, the secret being
 * rotated out (rotateSecret), `version` and the timestamps.
 */
type KeptColumns =
  | 'status'
  | 'total_attempts'
  | 'successful_deliveries'
  | 'consecutive_failures'
  | 'last_success_at'
  | 'last_failure_at'
  | 'disabled_at'
  | 'rate_window_start'
  | 'rate_window_count'
  | 'previous_secret'
  | 'previous_secret_expires_at'
  | 'version'
  | 'created_at'
  | 'updated_at';

export function insertEndpoint(db: Executor, row: Omit<NewWebhookEndpointsRow, KeptColumns>): Promise<EndpointRow> {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateEndpoint(
  db: Executor,
  scope: EndpointScope,
  id: string,
  // The id is the endpoint's name, its tenant fixed; the signing secret changes only by rotation (rotateSecret).
  changes: Omit<WebhookEndpointsRowChanges, KeptColumns | 'id' | 'secret' | 'tenant_id'>,
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ ...changes, version: sql<number>`version + 1`, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .$if(scope.tenantId !== null, (q) => q.where('tenant_id', '=', scope.tenantId))
    .returningAll()
    .executeTakeFirst();
}

export async function deleteEndpoint(db: Executor, scope: EndpointScope, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('id', '=', id)
    .$if(scope.tenantId !== null, (q) => q.where('tenant_id', '=', scope.tenantId))
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Disabled → active with the failure count reset; undefined when the endpoint is not disabled. */
export function enableEndpoint(db: Executor, scope: EndpointScope, id: string): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ status: 'active', consecutive_failures: 0, disabled_at: null, version: sql<number>`version + 1`, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .$if(scope.tenantId !== null, (q) => q.where('tenant_id', '=', scope.tenantId))
    .where('status', '=', 'disabled')
    .returningAll()
    .executeTakeFirst();
}

export function rotateSecret(
  db: Executor,
  scope: EndpointScope,
  id: string,
  secret: string,
  overlapSeconds: number,
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({
      previous_secret: sql<string>`secret`,
      previous_secret_expires_at: sql<Date>`now() + ${overlapSeconds} * interval '1 second'`,
      secret,
      version: sql<number>`version + 1`,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .$if(scope.tenantId !== null, (q) => q.where('tenant_id', '=', scope.tenantId))
    .returningAll()
    .executeTakeFirst();
}

/** `page_at`: the ordering time as PostgreSQL text, at full (microsecond) precision, for the cursor. */
type Paged<T> = T & { page_at: string };

export function pageEndpoints(db: Executor, scope: EndpointScope, limit: number, after?: PageAfter): Promise<Paged<EndpointRow>[]> {
  let query = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .select(sql<string>`created_at::text`.as('page_at'))
    .$if(scope.tenantId !== null, (q) => q.where('tenant_id', '=', scope.tenantId));
  if (after) query = query.where(sql<boolean>`(created_at, id) < (${after.at}::timestamptz, ${after.id}::uuid)`);
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

export function pageAttempts(db: Executor, endpointId: string, limit: number, after?: PageAfter): Promise<Paged<WebhookAttemptsRow>[]> {
  let query = db
    .selectFrom('webhook_attempts')
    .selectAll()
    .select(sql<string>`attempted_at::text`.as('page_at'))
    .where('endpoint_id', '=', endpointId);
  if (after) query = query.where(sql<boolean>`(attempted_at, id) < (${after.at}::timestamptz, ${after.id}::uuid)`);
  return query
    .orderBy('attempted_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

export interface DeadLetterRow {
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  last_error: string | null;
  dead_at: Date;
}

export function pageDeadLetters(
  db: Executor,
  scope: EndpointScope,
  endpointId: string | undefined,
  limit: number,
  after?: PageAfter,
): Promise<Paged<DeadLetterRow>[]> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select([
      'd.id as delivery_id',
      'd.endpoint_id',
      'd.event_id',
      'ev.type as event_type',
      'd.attempts',
      'd.last_error',
      sql<Date>`coalesce(d.completed_at, d.created_at)`.as('dead_at'),
      sql<string>`coalesce(d.completed_at, d.created_at)::text`.as('page_at'),
    ])
    .where('d.state', '=', 'dead')
    .$if(scope.tenantId !== null, (q) => q.where('e.tenant_id', '=', scope.tenantId));
  if (endpointId) query = query.where('d.endpoint_id', '=', endpointId);
  if (after)
    query = query.where(sql<boolean>`(coalesce(d.completed_at, d.created_at), d.id) < (${after.at}::timestamptz, ${after.id}::uuid)`);
  return query
    .orderBy(sql`coalesce(d.completed_at, d.created_at)`, 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit + 1)
    .execute();
}

/**
 * Queues the event for the endpoint again when it was ever queued for it: a new `pending` delivery
 * with the original's ordering key and position and a fresh set of attempts. Undefined otherwise.
 */
/** An event, when it was ever queued for `endpointId` (the stored event its deliveries render). */
export function findEndpointEvent(db: Executor, endpointId: string, eventId: string): Promise<WebhookEventsRow | undefined> {
  return db
    .selectFrom('webhook_events as e')
    .selectAll('e')
    .where('e.id', '=', eventId)
    .where((eb) =>
      eb.exists(
        eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id').where('d.endpoint_id', '=', endpointId),
      ),
    )
    .executeTakeFirst();
}

/** The most events one range replay queues (`replayWebhookRange`); the answer says where to go on. */
const REPLAY_RANGE_LIMIT = 1000;

/**
 * Queues again, oldest first, the events of `endpointId` created in [since, until), each once (its
 * first delivery's ordering columns), at most REPLAY_RANGE_LIMIT; with `onlyFailed`, the events whose
 * latest delivery ended failed, dead or skipped. Returns how many, and the created_at of the first
 * event left over (null when none is).
 */
export async function requeueRange(
  db: Executor,
  endpointId: string,
  range: { since: Date; until: Date; onlyFailed: boolean },
): Promise<{ queued: number; nextSince: Date | null }> {
  const { rows } = await sql<{ queued: number; next_since: Date | null }>`
    with candidates as (
      select distinct on (e.position) e.position, e.created_at, d.event_id, d.event_position, d.ordering_key
      from webhook_deliveries d
      join webhook_events e on e.id = d.event_id
      where d.endpoint_id = ${endpointId} and e.created_at >= ${range.since} and e.created_at < ${range.until}
        and (not ${range.onlyFailed} or (
          select last.state from webhook_deliveries last
          where last.endpoint_id = d.endpoint_id and last.event_id = d.event_id
          order by last.created_at desc limit 1
        ) in ('failed', 'dead', 'skipped'))
      order by e.position, d.created_at
      limit ${REPLAY_RANGE_LIMIT + 1}
    ), chosen as (
      select * from candidates order by position limit ${REPLAY_RANGE_LIMIT}
    ), inserted as (
      insert into webhook_deliveries (endpoint_id, event_id, event_position, ordering_key, state)
      select ${endpointId}, event_id, event_position, ordering_key, 'pending' from chosen order by position
      returning 1
    )
    select (select count(*)::int from inserted) as queued,
      (select created_at from candidates order by position offset ${REPLAY_RANGE_LIMIT} limit 1) as next_since`.execute(db);
  return { queued: rows[0]!.queued, nextSince: rows[0]!.next_since };
}

export async function requeue(db: Executor, endpointId: string, eventId: string): Promise<{ delivery_id: string } | undefined> {
  const { rows } = await sql<{ delivery_id: string }>`
    insert into webhook_deliveries (endpoint_id, event_id, event_position, ordering_key, state)
    select d.endpoint_id, d.event_id, d.event_position, d.ordering_key, 'pending'
    from webhook_deliveries d
    where d.endpoint_id = ${endpointId} and d.event_id = ${eventId}
    order by d.created_at
    limit 1
    returning id as delivery_id`.execute(db);
  return rows[0];
}
