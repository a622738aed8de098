/**
 * Recording what attempts got. Successes, the common case, are recorded many at a time
 * (`recordSuccesses`: one statement per batch) and leave the endpoint row alone unless it was not
 * clean; the endpoint's counters are added up in memory and written about once a second
 * (`addEndpointCounters`). A failure is recorded at once, alone (`recordFailure`), because it drives
 * the endpoint's state table: degraded, disabled and the notifier must follow each failure exactly.
 */
import { sql } from 'kysely';
import { preparedName } from '../../db/prepared-statements.ts';
import type { Executor } from '../../db/transaction.ts';

export interface Success {
  deliveryId: string;
  /** The attempt's number, as the claim that leased the delivery to this worker counted it. */
  attempt: number;
  responseCode: number;
  responseTimeMs: number;
  /** When the answer came: the endpoint's last success. */
  answeredAt: Date;
}

interface WrittenSuccesses {
  /** Per endpoint, the successes the statement recorded (and only those): what its counters add. */
  counters: EndpointCounters[];
  /** The endpoints that came back to active (their held deliveries are due now). */
  reactivated: string[];
}

/**
 * Records delivered attempts in one statement: each delivery's state and its attempt row. An
 * endpoint that had failures counted (or was degraded) is made clean again, as a success does, and
 * its held deliveries are released when it comes back to active, its last success written with
 * that change; a clean endpoint's row is not written (its counters are, about once a second).
 *
 * A success is recorded only while the claim it answers still holds the delivery: leased to
 * `workerId`, with the attempt count that claim wrote. A success that waited in a batch past its
 * lease may find the delivery claimed again by another worker (or by this one), and what that later
 * attempt records must stand: such a success is neither written nor in the counters returned.
 * A lease that ran out with nobody claiming since still matches: the receiver did answer.
 */
export async function recordSuccesses(db: Executor, workerId: string, successes: readonly Success[]): Promise<WrittenSuccesses> {
  if (successes.length === 0) return { counters: [], reactivated: [] };
  const { rows } = await sql<{ endpoint_id: string; successes: number; last_success_at: Date; reactivated: boolean }>`${sql.raw(
    preparedName('webhook-successes'),
  )}
    with done as (
      select * from unnest(${successes.map((s) => s.deliveryId)}::uuid[], ${successes.map((s) => s.attempt)}::int[],
                           ${successes.map((s) => s.responseCode)}::int[], ${successes.map((s) => s.responseTimeMs)}::int[],
                           ${successes.map((s) => s.answeredAt)}::timestamptz[]) as done(id, attempt, code, ms, at)
    ), d as (
      update webhook_deliveries w
      set state = 'delivered', lease_expires_at = null, leased_by = null, last_error = null, completed_at = clock_timestamp()
      from done
      -- The claim's lease token: its worker and the attempt count it wrote (a later claim changes both).
      where w.id = done.id and w.leased_by = ${workerId} and w.attempts = done.attempt
      returning w.id, w.endpoint_id, w.event_id, w.attempts, done.code, done.ms, done.at
    ), attempt as (
      insert into webhook_attempts (delivery_id, endpoint_id, event_id, attempt, status, response_code, response_time_ms)
      select d.id, d.endpoint_id, d.event_id, d.attempts, 'delivered', d.code, d.ms from d
    ), latest as (
      select endpoint_id, count(*)::int as n, max(at) as at from d group by endpoint_id
    ), before as (
      select e.id, e.status from webhook_endpoints e
      where e.id in (select endpoint_id from latest) and (e.consecutive_failures > 0 or e.status = 'degraded')
    ), after as (
      update webhook_endpoints e
      set consecutive_failures = 0,
          status = case when e.status = 'disabled' then e.status else 'active' end,
          -- With the state it changes, not with the counters a second later: a health answer that
          -- says clean and active again never lacks the success that made it so.
          last_success_at = greatest(e.last_success_at, latest.at),
          updated_at = clock_timestamp()
      from before join latest on latest.endpoint_id = before.id
      where e.id = before.id and (e.consecutive_failures > 0 or e.status = 'degraded')
      returning e.id, e.status
    ), released as (
      update webhook_deliveries h set state = 'pending', next_attempt_at = now()
      from after join before on before.id = after.id
      where h.endpoint_id = after.id and h.state = 'held' and after.status = 'active' and before.status <> 'active'
    )
    select latest.endpoint_id, latest.n as successes, latest.at as last_success_at,
           coalesce(after.status = 'active' and before.status <> 'active', false) as reactivated
    from latest left join after on after.id = latest.endpoint_id left join before on before.id = latest.endpoint_id`.execute(db);
  return {
    counters: rows.map((r) => ({ endpointId: r.endpoint_id, successes: r.successes, lastSuccessAt: r.last_success_at })),
    reactivated: rows.filter((r) => r.reactivated).map((r) => r.endpoint_id),
  };
}

export interface EndpointCounters {
  endpointId: string;
  successes: number;
  lastSuccessAt: Date;
}

/** Adds successes counted in memory to the endpoints' health counters, in one statement. */
export async function addEndpointCounters(db: Executor, counters: readonly EndpointCounters[]): Promise<void> {
  if (counters.length === 0) return;
  await sql`${sql.raw(preparedName('webhook-endpoint-counters'))}
    update webhook_endpoints e
    set total_attempts = e.total_attempts + c.n,
        successful_deliveries = e.successful_deliveries + c.n,
        last_success_at = greatest(e.last_success_at, c.at),
        updated_at = clock_timestamp()
    from unnest(${counters.map((c) => c.endpointId)}::uuid[], ${counters.map((c) => c.successes)}::int[],
                ${counters.map((c) => c.lastSuccessAt)}::timestamptz[]) as c(id, n, at)
    where e.id = c.id`.execute(db);
}

export interface Failure {
  deliveryId: string;
  /** failed (final), pending (a retry at `nextAttemptAt`), dead (attempts exhausted). */
  state: 'failed' | 'pending' | 'dead';
  nextAttemptAt: Date | null;
  responseCode: number | null;
  responseTimeMs: number;
  responseBody: string | null;
  error: string | null;
  degradedAfter: number;
  disabledAfter: number;
}

interface EndpointChange {
  endpoint_id: string;
  status: 'active' | 'degraded' | 'disabled';
  consecutive_failures: number;
  url: string;
  /** This failure disabled the endpoint (exactly one failure is told so). */
  newly_disabled: boolean;
}

/**
 * Records one failed attempt in one statement: the delivery's new state, the attempt row, the
 * endpoint's health and status (the state table: more than `degradedAfter` consecutive failures
 * degraded, more than `disabledAfter` disabled), and when this failure disables the endpoint, the
 * deliveries still waiting for it are skipped (they stay replayable).
 */
export async function recordFailure(db: Executor, c: Failure): Promise<EndpointChange | undefined> {
  const { rows } = await sql<EndpointChange>`${sql.raw(preparedName('webhook-failure'))}
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
      select d.id, d.endpoint_id, d.event_id, d.attempts, 'failed', ${c.responseCode},
             ${c.responseTimeMs}, ${c.responseBody}, ${c.error},
             case when d.state = 'pending' then ${c.nextAttemptAt}::timestamptz end
      from d
    ), before as (
      select e.id, e.status, e.consecutive_failures from webhook_endpoints e where e.id = (select endpoint_id from d)
    ), after as (
      update webhook_endpoints e
      set total_attempts = e.total_attempts + 1,
          consecutive_failures = e.consecutive_failures + 1,
          last_failure_at = clock_timestamp(),
          status = case
            when e.consecutive_failures + 1 > ${c.disabledAfter} then 'disabled'
            when e.consecutive_failures + 1 > ${c.degradedAfter} and e.status = 'active' then 'degraded'
            else e.status end,
          disabled_at = case
            when e.status <> 'disabled' and e.consecutive_failures + 1 > ${c.disabledAfter} then statement_timestamp()
            else e.disabled_at end,
          updated_at = clock_timestamp()
      from before
      where e.id = before.id
      -- Decided on the row as updated (a concurrent completion may have disabled it first), so
      -- exactly one failure reports the disabling.
      returning e.id, e.status, e.consecutive_failures, e.url, e.disabled_at = statement_timestamp() as newly_disabled
    ), skipped as (
      update webhook_deliveries s set state = 'skipped', completed_at = clock_timestamp(), lease_expires_at = null
      from after, before
      where s.endpoint_id = after.id and s.id <> ${c.deliveryId} and s.state in ('pending', 'held')
        and after.status = 'disabled' and before.status <> 'disabled'
    )
    select after.id as endpoint_id, after.status, after.consecutive_failures, after.url,
           coalesce(after.newly_disabled, false) as newly_disabled
    from after`.execute(db);
  return rows[0];
}
