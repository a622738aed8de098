/**
 * The delivery queue's two statements: claiming a batch and completing one delivery. Each is ONE
 * SQL statement (CTEs), so a delivery costs one completion plus its share of a claim and of the
 * event's insert, and no transaction is ever held open across the HTTP call.
 */
import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.ts';

interface ClaimOptions {
  workerId: string;
  limit: number;
  leaseMs: number;
  /** Deliveries per second per endpoint, shared by every worker through the endpoint row. */
  ratePerEndpoint: number;
  /** Most deliveries one claim takes for one endpoint. */
  perEndpoint: number;
  /** Endpoints this worker already has enough in flight for. */
  skipEndpoints: readonly string[];
}

export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  /** This attempt's number (1-based). */
  attempt: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  api_version: string;
  payload: 'fat' | 'thin';
  event_id: string;
  event_type: string;
  event_resource_type: string;
  event_resource_id: string;
  event_sequence: number | null;
  event_object: Record<string, unknown>;
  event_previous_attributes: Record<string, unknown> | null;
  event_resource_path: string | null;
  event_test: boolean;
  event_created_at: Date;
  event_position: number;
}

/**
 * Claims up to `limit` due deliveries with FOR UPDATE SKIP LOCKED and leases them to `workerId`.
 * - due: `pending`, `next_attempt_at` passed, not leased (or its lease ran out: its worker died);
 * - the endpoint is active, or degraded and this is a retry already scheduled (its new deliveries
 *   wait until it is active again); disabled endpoints get nothing;
 * - per-resource order: never while an earlier delivery of the same resource to the same endpoint
 *   is still pending or held;
 * - per-endpoint rate: the endpoint's one-second window (rate_window_start/count) is shared by every
 *   worker; the endpoint rows are locked while it is counted, so two workers cannot both spend it.
 */
export async function claimDeliveries(db: Executor, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const scan = Math.max(options.limit * 4, 64);
  const { rows } = await sql<ClaimedDelivery>`
    with due as (
      select d.id, d.endpoint_id, d.attempts, d.ordering_key, d.event_position, d.next_attempt_at
      from webhook_deliveries d
      where d.state = 'pending' and d.next_attempt_at <= now()
        and (d.lease_expires_at is null or d.lease_expires_at < now())
        and not (d.endpoint_id = any(${[...options.skipEndpoints]}::uuid[]))
      order by d.next_attempt_at, d.event_position
      limit ${scan}
      for update of d skip locked
    ), eligible as (
      select due.id, due.endpoint_id,
             row_number() over (partition by due.endpoint_id order by due.next_attempt_at, due.event_position) as rn
      from due join webhook_endpoints e on e.id = due.endpoint_id
      where (e.status = 'active' or (e.status = 'degraded' and due.attempts > 0))
        and (due.ordering_key is null or not exists (
          select 1 from webhook_deliveries p
          where p.endpoint_id = due.endpoint_id and p.ordering_key = due.ordering_key
            and p.state in ('pending', 'held') and p.event_position < due.event_position))
    ), windows as (
      select e.id,
             case when e.rate_window_start > now() - interval '1 second' then e.rate_window_count else 0 end as used,
             case when e.rate_window_start > now() - interval '1 second' then e.rate_window_start else now() end as started
      from webhook_endpoints e
      where e.id in (select endpoint_id from eligible)
      -- NO KEY UPDATE: does not wait for writers inserting deliveries (their foreign keys hold KEY
      -- SHARE on these rows); in id order, so two workers lock endpoints in one order (no deadlock).
      order by e.id
      for no key update
    ), granted as (
      select el.id, el.endpoint_id
      from eligible el join windows w on w.id = el.endpoint_id
      where el.rn <= least(${options.perEndpoint}, ${options.ratePerEndpoint} - w.used)
      order by el.rn
      limit ${options.limit}
    ), counted as (
      update webhook_endpoints e
      set rate_window_start = w.started, rate_window_count = w.used + g.n
      from windows w, (select endpoint_id, count(*)::int as n from granted group by endpoint_id) g
      where e.id = w.id and g.endpoint_id = w.id
    )
    update webhook_deliveries d
    set lease_expires_at = now() + ${options.leaseMs} * interval '1 millisecond',
        leased_by = ${options.workerId},
        attempts = d.attempts + 1
    from granted g, webhook_endpoints e, webhook_events ev
    where d.id = g.id and e.id = d.endpoint_id and ev.id = d.event_id
    returning d.id, d.endpoint_id, d.attempts as attempt,
              e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.api_version, e.payload,
              ev.id as event_id, ev.type as event_type, ev.resource_type as event_resource_type,
              ev.resource_id as event_resource_id, ev.sequence as event_sequence, ev.object as event_object,
              ev.previous_attributes as event_previous_attributes, ev.resource_path as event_resource_path, ev.test as event_test,
              ev.created_at as event_created_at, ev.position as event_position`.execute(db);
  return rows;
}

export interface Completion {
  deliveryId: string;
  /** delivered (2xx), failed (final), pending (a retry at `nextAttemptAt`), dead (attempts exhausted). */
  state: 'delivered' | 'failed' | 'pending' | 'dead';
  nextAttemptAt: Date | null;
  responseCode: number | null;
  responseTimeMs: number;
  /** Kept on failures only. */
  responseBody: string | null;
  error: string | null;
  degradedAfter: number;
  disabledAfter: number;
}

interface EndpointChange {
  endpoint_id: string;
  status: 'active' | 'degraded' | 'disabled';
  previous_status: 'active' | 'degraded' | 'disabled';
  consecutive_failures: number;
  url: string;
  /** This completion disabled the endpoint (exactly one completion is told so). */
  newly_disabled: boolean;
}

/**
 * Records one attempt's result in one statement: the delivery's new state, the attempt row, the
 * endpoint's health and status (the state table: a success makes it active; more than
 * `degradedAfter` consecutive failures degraded, more than `disabledAfter` disabled), and the
 * consequences of a status change: back to active releases the held deliveries (in order, through
 * the claim's ordering rule), disabled skips the ones still waiting (they stay replayable).
 */
export async function completeDelivery(db: Executor, c: Completion): Promise<EndpointChange | undefined> {
  const success = c.state === 'delivered';
  const { rows } = await sql<EndpointChange>`
    with d as (
      update webhook_deliveries
      -- A retry of an endpoint that is (or with this failure becomes) disabled is skipped instead.
      set state = case
            when ${c.state} = 'pending' and (state = 'skipped' or exists (
              select 1 from webhook_endpoints e
              where e.id = webhook_deliveries.endpoint_id and (e.status = 'disabled' or e.consecutive_failures + 1 > ${c.disabledAfter})))
            then 'skipped'
            else ${c.state} end,
          next_attempt_at = coalesce(${c.nextAttemptAt}::timestamptz, next_attempt_at),
          lease_expires_at = null, leased_by = null,
          last_error = ${c.error},
          completed_at = clock_timestamp()
      where id = ${c.deliveryId}
      returning id, endpoint_id, event_id, attempts, state
    ), attempt as (
      insert into webhook_attempts (delivery_id, endpoint_id, event_id, attempt, status, response_code,
                                    response_time_ms, response_body, error, next_retry_at)
      select d.id, d.endpoint_id, d.event_id, d.attempts, ${success ? 'delivered' : 'failed'}, ${c.responseCode},
             ${c.responseTimeMs}, ${c.responseBody}, ${c.error},
             case when d.state = 'pending' then ${c.nextAttemptAt}::timestamptz end
      from d
    ), before as (
      select e.id, e.status, e.consecutive_failures from webhook_endpoints e where e.id = (select endpoint_id from d)
    ), after as (
      update webhook_endpoints e
      set total_attempts = e.total_attempts + 1,
          successful_deliveries = e.successful_deliveries + ${success ? 1 : 0},
          consecutive_failures = case when ${success} then 0 else e.consecutive_failures + 1 end,
          last_success_at = case when ${success} then clock_timestamp() else e.last_success_at end,
          last_failure_at = case when ${success} then e.last_failure_at else clock_timestamp() end,
          status = case
            when ${success} and e.status <> 'disabled' then 'active'
            when e.consecutive_failures + 1 > ${c.disabledAfter} then 'disabled'
            when e.consecutive_failures + 1 > ${c.degradedAfter} and e.status = 'active' then 'degraded'
            else e.status end,
          disabled_at = case
            when not ${success} and e.status <> 'disabled' and e.consecutive_failures + 1 > ${c.disabledAfter} then statement_timestamp()
            else e.disabled_at end,
          updated_at = clock_timestamp()
      from before
      where e.id = before.id
      -- Decided on the row as updated (a concurrent completion may have disabled it first), so
      -- exactly one completion reports the disabling.
      returning e.id, e.status, e.consecutive_failures, e.url, e.disabled_at = statement_timestamp() as newly_disabled
    ), released as (
      update webhook_deliveries h set state = 'pending', next_attempt_at = now()
      from after, before
      where h.endpoint_id = after.id and h.state = 'held' and after.status = 'active' and before.status <> 'active'
    ), skipped as (
      update webhook_deliveries s set state = 'skipped', completed_at = clock_timestamp(), lease_expires_at = null
      from after, before
      where s.endpoint_id = after.id and s.id <> ${c.deliveryId} and s.state in ('pending', 'held')
        and after.status = 'disabled' and before.status <> 'disabled'
    )
    select after.id as endpoint_id, after.status, before.status as previous_status, after.consecutive_failures, after.url,
           coalesce(after.newly_disabled, false) as newly_disabled
    from after, before`.execute(db);
  return rows[0];
}
