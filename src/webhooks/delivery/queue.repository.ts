/**
 * Taking deliveries off the queue: claiming a batch (leased to one worker) and handing back the
 * ones a stopping worker claimed but never sent. Each is ONE SQL statement (CTEs), and no
 * transaction is ever held open across an HTTP call. Recording what an attempt got is
 * ./completions.repository.ts.
 */
import { sql } from 'kysely';
import { preparedName } from '../../db/prepared-statements.ts';
import type { Executor } from '../../db/transaction.ts';

interface ClaimOptions {
  workerId: string;
  limit: number;
  leaseMs: number;
  /**
   * Deliveries per second per endpoint, shared by every worker through the endpoint row: the
   * default (WEBHOOK_RATE_PER_ENDPOINT) for endpoints without a `rate_limit_per_second` of their own.
   */
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
  /** The event's object as JSON text: parsed once per event when its body is rendered, not per row. */
  event_object: string;
  /** Likewise, its previous attributes (JSON text), or null. */
  event_previous_attributes: string | null;
  event_resource_path: string | null;
  /** The tenant the event belongs to; null for a platform event. */
  event_tenant_id: string | null;
  event_test: boolean;
  event_created_at: Date;
  event_position: number;
  /**
   * When this claim spent the rest of the endpoint's rate window: in how many milliseconds (from the
   * claim's start) it opens again, so the worker can claim then instead of at its next poll. Null
   * while the window has room left.
   */
  rate_window_reopens_in_ms: number | null;
}

/**
 * Claims up to `limit` due deliveries with FOR UPDATE SKIP LOCKED and leases them to `workerId`.
 * - due: `pending`, `next_attempt_at` passed, not leased (or its lease ran out: its worker died);
 * - the endpoint is active, or degraded and this is a retry already scheduled (its new deliveries
 *   wait until it is active again); disabled endpoints get nothing;
 * - per-resource order: never while an earlier delivery of the same resource to the same endpoint
 *   is still pending or held;
 * - per-endpoint rate: at most the endpoint's `rate_limit_per_second` (the `ratePerEndpoint` default
 *   when null) in its one-second window (rate_window_start/count), which is shared by every worker;
 *   a window opens with the first claim that takes one of its deliveries after the last one closed,
 *   and lasts one second. The endpoint rows are locked while it is counted, so two workers cannot
 *   both spend it. A limited endpoint is held back alone: the others' rows are granted as before,
 *   and the scan passes over the rows of endpoints whose window is spent, so a backlog larger than
 *   the scan behind one limited endpoint does not hide the others' rows from the claim.
 *   The lock is taken with SKIP LOCKED: an endpoint another worker is counting (or a failure is
 *   being recorded for) is left to the next claim instead of making this one wait, so no claim is
 *   ever a barrier for the others.
 */
export async function claimDeliveries(db: Executor, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  // Rows looked at (and locked) for a batch: room for some that the endpoint, order or rate rules
  // leave out, without locking four rows for every one sent.
  const scan = Math.max(options.limit * 2, 64);
  const { rows } = await sql<ClaimedDelivery>`${sql.raw(preparedName('webhook-claim'))}
    with due as (
      select d.id, d.endpoint_id, d.attempts, d.ordering_key, d.event_position, d.next_attempt_at
      from webhook_deliveries d
      where d.state = 'pending' and d.next_attempt_at <= now()
        and (d.lease_expires_at is null or d.lease_expires_at < now())
        and not (d.endpoint_id = any(${[...options.skipEndpoints]}::uuid[]))
        -- Nor an endpoint whose window is spent (as this snapshot has it; the window below decides):
        -- a limited endpoint's backlog would fill the scan and hide every other endpoint's rows.
        -- Read once per claim as an array (an init plan): as a correlated NOT EXISTS the planner
        -- gave up the ordered index scan that stops at the scan's limit, and the webhook bench fell
        -- from about 1,200 deliveries/s to 280 (docs/benchmarks.md).
        and d.endpoint_id <> all(array(
          select e.id from webhook_endpoints e
          where e.rate_window_start > now() - interval '1 second'
            and e.rate_window_count >= coalesce(e.rate_limit_per_second, ${options.ratePerEndpoint})))
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
             coalesce(e.rate_limit_per_second, ${options.ratePerEndpoint}) as rate,
             case when e.rate_window_start > now() - interval '1 second' then e.rate_window_count else 0 end as used,
             case when e.rate_window_start > now() - interval '1 second' then e.rate_window_start else now() end as started
      from webhook_endpoints e
      where e.id in (select endpoint_id from eligible)
      -- NO KEY UPDATE: does not wait for writers inserting deliveries (their foreign keys hold KEY
      -- SHARE on these rows); skipped when locked (see above), so it never waits at all.
      for no key update skip locked
    ), granted as (
      select el.id, el.endpoint_id
      from eligible el join windows w on w.id = el.endpoint_id
      where el.rn <= least(${options.perEndpoint}, w.rate - w.used)
      order by el.rn
      limit ${options.limit}
    ), spent as (
      select endpoint_id, count(*)::int as n from granted group by endpoint_id
    ), counted as (
      update webhook_endpoints e
      set rate_window_start = w.started, rate_window_count = w.used + s.n
      from windows w, spent s
      where e.id = w.id and s.endpoint_id = w.id
    )
    update webhook_deliveries d
    set lease_expires_at = now() + ${options.leaseMs} * interval '1 millisecond',
        leased_by = ${options.workerId},
        attempts = d.attempts + 1
    from granted g, windows w, spent s, webhook_endpoints e, webhook_events ev
    where d.id = g.id and w.id = d.endpoint_id and s.endpoint_id = d.endpoint_id and e.id = d.endpoint_id and ev.id = d.event_id
    returning d.id, d.endpoint_id, d.attempts as attempt,
              e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.api_version, e.payload,
              ev.id as event_id, ev.type as event_type, ev.resource_type as event_resource_type,
              ev.resource_id as event_resource_id, ev.sequence as event_sequence, ev.object::text as event_object,
              ev.previous_attributes::text as event_previous_attributes, ev.resource_path as event_resource_path, ev.tenant_id as event_tenant_id, ev.test as event_test,
              ev.created_at as event_created_at, ev.position as event_position,
              case when w.used + s.n >= w.rate
                then ceil(extract(epoch from w.started + interval '1 second' - now()) * 1000)::int
              end as rate_window_reopens_in_ms`.execute(db);
  return rows;
}

/**
 * Hands deliveries this worker claimed but did not send back to the queue (a stopping worker's
 * prefetched ones): due at once for any worker, their attempt not counted.
 */
export async function releaseClaims(db: Executor, workerId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    update webhook_deliveries
    set lease_expires_at = null, leased_by = null, attempts = attempts - 1
    where id = any(${[...ids]}::uuid[]) and leased_by = ${workerId} and state = 'pending'`.execute(db);
}
