/**
 * Webhooks: the tenant's endpoints with their health; adding one with an event picker built from
 * the server's catalog (`GET /api/webhooks/event-types`: descriptions and examples); per endpoint the
 * secret's rotation, a test event, the attempts log with each response, and replaying a delivery.
 */
import { useState } from 'preact/hooks';
import {
  call,
  type ApiError,
  type Attempt,
  type Clients,
  type Endpoint,
  type EndpointWithSecret,
  type EventType,
  type EventTypeInfo,
} from '../api.ts';
import { asApiError, Badge, Button, Empty, ErrorNotice, Field, Load, Notice, Secret, Time, useLoad } from '../ui.tsx';

type View = { kind: 'list' } | { kind: 'add' } | { kind: 'endpoint'; id: string; created?: EndpointWithSecret };

export function WebhooksScreen({ clients }: { clients: Clients }) {
  const [view, setView] = useState<View>({ kind: 'list' });
  if (view.kind === 'add')
    return (
      <AddEndpoint
        clients={clients}
        onCancel={() => setView({ kind: 'list' })}
        onCreated={(created) => setView({ kind: 'endpoint', id: created.id, created })}
      />
    );
  if (view.kind === 'endpoint')
    return <EndpointDetail clients={clients} id={view.id} created={view.created} onBack={() => setView({ kind: 'list' })} />;
  return <EndpointList clients={clients} onAdd={() => setView({ kind: 'add' })} onOpen={(id) => setView({ kind: 'endpoint', id })} />;
}

const STATUS_TONE = { active: 'good', degraded: 'warn', disabled: 'bad' } as const;

function StatusBadge({ status }: { status: Endpoint['status'] }) {
  return <Badge tone={STATUS_TONE[status] ?? 'neutral'}>{status}</Badge>;
}

function EndpointList({ clients, onAdd, onOpen }: { clients: Clients; onAdd: () => void; onOpen: (id: string) => void }) {
  const [loaded, reload] = useLoad(() => call(clients.webhooks.GET('/api/webhooks', { params: { query: { limit: 100 } } })));
  return (
    <section aria-labelledby="webhooks-title">
      <div class="section-head">
        <h1 id="webhooks-title">Webhooks</h1>
        <Button onClick={onAdd}>Add endpoint</Button>
      </div>
      <p class="lead">
        Endpoints receive a signed HTTPS POST for each event they subscribe to, in order per resource, retried for up to a day.
      </p>
      <Load loaded={loaded} retry={reload}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No endpoints yet">
              <p>Add an endpoint to start receiving events from this organization.</p>
            </Empty>
          ) : (
            <ul class="cards">
              {page.data.map((endpoint) => (
                <li key={endpoint.id} class="card">
                  <div class="card-main">
                    <p class="card-title">
                      <code>{endpoint.url}</code>
                    </p>
                    <p class="muted">
                      {endpoint.description ?? 'No description'} ·{' '}
                      {endpoint.events.includes('*')
                        ? 'every event'
                        : `${endpoint.events.length} event type${endpoint.events.length === 1 ? '' : 's'}`}
                    </p>
                  </div>
                  <StatusBadge status={endpoint.status} />
                  <Button kind="secondary" onClick={() => onOpen(endpoint.id)} aria-label={`Manage ${endpoint.url}`}>
                    Manage
                  </Button>
                </li>
              ))}
            </ul>
          )
        }
      </Load>
    </section>
  );
}

/** The catalog's types grouped by resource (`user.created` → `user`), in the catalog's order. */
function byResource(types: EventTypeInfo[]): [string, EventTypeInfo[]][] {
  const groups = new Map<string, EventTypeInfo[]>();
  for (const info of types) {
    const resource = info.type.split('.')[0]!;
    groups.set(resource, [...(groups.get(resource) ?? []), info]);
  }
  return [...groups];
}

/** The catalog's summaries are Markdown: their `code` spans shown as code, the rest as text. */
function withCode(text: string) {
  return text.split('`').map((part, index) => (index % 2 ? <code key={index}>{part}</code> : part));
}

const RESOURCE_LABELS: Record<string, string> = { user: 'Users', group: 'Groups', identity_provider: 'Single sign-on', domain: 'Domains' };

function AddEndpoint({
  clients,
  onCancel,
  onCreated,
}: {
  clients: Clients;
  onCancel: () => void;
  onCreated: (created: EndpointWithSecret) => void;
}) {
  const [catalog, reload] = useLoad(() => call(clients.webhooks.GET('/api/webhooks/event-types')));
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<Set<EventType>>(new Set());
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiError>();
  const errors = failure?.fieldErrors() ?? {};
  const toggle = (type: EventType) => {
    const next = new Set(events);
    if (next.has(type)) next.delete(type);
    else next.add(type);
    setEvents(next);
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      onCreated(
        await call(clients.webhooks.POST('/api/webhooks', { body: { url, events: [...events], description: description || null } })),
      );
    } catch (error) {
      setFailure(asApiError(error));
    } finally {
      setBusy(false);
    }
  };
  const eventsError = errors.events;
  return (
    <section aria-labelledby="add-title">
      <h1 id="add-title">Add an endpoint</h1>
      <form onSubmit={submit} noValidate>
        <Field
          label="Endpoint URL"
          hint="An HTTPS address on the public internet that answers 2xx within 10 seconds."
          type="url"
          name="url"
          value={url}
          required
          error={errors.url}
          onValue={setUrl}
        />
        <Field label="Description (optional)" name="description" value={description} error={errors.description} onValue={setDescription} />
        <fieldset class={eventsError ? 'events field-invalid' : 'events'} aria-describedby={eventsError ? 'events-error' : undefined}>
          <legend>Events to receive</legend>
          {eventsError ? (
            <p class="field-error" id="events-error">
              {eventsError}
            </p>
          ) : null}
          <Load loaded={catalog} retry={reload}>
            {(list) =>
              byResource(list.data).map(([resource, types]) => (
                <div class="event-group" key={resource}>
                  <p class="event-group-title">{RESOURCE_LABELS[resource] ?? resource}</p>
                  {types.map((info) => (
                    <div class="event" key={info.type}>
                      <label class="check">
                        <input
                          type="checkbox"
                          name="events"
                          value={info.type}
                          checked={events.has(info.type)}
                          onChange={() => toggle(info.type)}
                        />
                        <span>
                          <code>{info.type}</code> <span class="muted">{withCode(info.summary)}</span>
                        </span>
                      </label>
                      <details>
                        <summary>Example</summary>
                        <pre tabIndex={0} aria-label={`Example of ${info.type}`}>
                          {JSON.stringify(info.example, null, 2)}
                        </pre>
                      </details>
                    </div>
                  ))}
                </div>
              ))
            }
          </Load>
        </fieldset>
        {failure && !Object.keys(errors).length ? <ErrorNotice error={failure} /> : null}
        <div class="actions">
          <Button type="submit" busy={busy}>
            Add endpoint
          </Button>
          <Button kind="secondary" onClick={onCancel}>
            Cancel
          </Button>
        </div>
      </form>
    </section>
  );
}

function EndpointDetail({
  clients,
  id,
  created,
  onBack,
}: {
  clients: Clients;
  id: string;
  created: EndpointWithSecret | undefined;
  onBack: () => void;
}) {
  const path = { params: { path: { endpointId: id } } };
  const [loaded, reload] = useLoad(() =>
    Promise.all([
      call(clients.webhooks.GET('/api/webhooks/{endpointId}', path)),
      call(clients.webhooks.GET('/api/webhooks/{endpointId}/health', path)),
    ]),
  );
  return (
    <section aria-labelledby="endpoint-title">
      <button type="button" class="link-button" onClick={onBack}>
        ← All endpoints
      </button>
      <Load loaded={loaded} retry={reload}>
        {([endpoint, health]) => (
          <>
            <div class="section-head">
              <h1 id="endpoint-title">
                <code>{endpoint.url}</code>
              </h1>
              <StatusBadge status={endpoint.status} />
            </div>
            {created ? (
              <Notice kind="success" title="Endpoint added">
                <p>Store the signing secret now: it is not shown again. Verify each delivery's signature with it.</p>
                <Secret label="Signing secret" value={created.secret} />
              </Notice>
            ) : null}
            <dl class="facts">
              <div>
                <dt>Events</dt>
                <dd>{endpoint.events.join(', ')}</dd>
              </div>
              <div>
                <dt>Delivered</dt>
                <dd>
                  {health.successful_deliveries} of {health.total_attempts} attempts
                </dd>
              </div>
              <div>
                <dt>Failures in a row</dt>
                <dd>{health.consecutive_failures}</dd>
              </div>
              <div>
                <dt>Last success</dt>
                <dd>
                  <Time value={health.last_success_at} />
                </dd>
              </div>
              <div>
                <dt>Last failure</dt>
                <dd>
                  <Time value={health.last_failure_at} />
                </dd>
              </div>
            </dl>
            <TestEvent clients={clients} endpoint={endpoint} />
            <RotateSecret clients={clients} endpoint={endpoint} onRotated={reload} />
            <Attempts clients={clients} endpointId={endpoint.id} onRefresh={reload} />
            <ReplayRange clients={clients} endpointId={endpoint.id} />
          </>
        )}
      </Load>
    </section>
  );
}

function TestEvent({ clients, endpoint }: { clients: Clients; endpoint: Endpoint }) {
  const [catalog, reload] = useLoad(() => call(clients.webhooks.GET('/api/webhooks/event-types')));
  const [type, setType] = useState<EventType>();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ sent: string } | { failure: ApiError }>();
  const send = async (chosen: EventType) => {
    setBusy(true);
    setOutcome(undefined);
    try {
      await call(
        clients.webhooks.POST('/api/webhooks/{endpointId}/test', {
          params: { path: { endpointId: endpoint.id } },
          body: { event_type: chosen },
        }),
      );
      setOutcome({ sent: chosen });
    } catch (error) {
      setOutcome({ failure: asApiError(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-labelledby="test-title">
      <h2 id="test-title">Send a test event</h2>
      <Load loaded={catalog} retry={reload}>
        {(list) => {
          const types = list.data.filter((info) => endpoint.events.includes('*') || endpoint.events.includes(info.type));
          const chosen = type ?? types[0]?.type;
          return (
            <form
              class="inline-form"
              onSubmit={(e) => {
                e.preventDefault();
                if (chosen) void send(chosen);
              }}
            >
              <label for="test-type">Event type</label>
              <select id="test-type" value={chosen} onChange={(e) => setType(e.currentTarget.value as EventType)}>
                {types.map((info) => (
                  <option key={info.type} value={info.type}>
                    {info.type}
                  </option>
                ))}
              </select>
              <Button type="submit" kind="secondary" busy={busy} disabled={!chosen}>
                Send test event
              </Button>
            </form>
          );
        }}
      </Load>
      {outcome && 'sent' in outcome ? (
        <Notice kind="success" title={`A sample ${outcome.sent} event is on its way`}>
          <p>It appears in the attempts below once your endpoint answers.</p>
        </Notice>
      ) : null}
      {outcome && 'failure' in outcome ? <ErrorNotice error={outcome.failure} /> : null}
    </section>
  );
}

function RotateSecret({ clients, endpoint, onRotated }: { clients: Clients; endpoint: Endpoint; onRotated: () => void }) {
  const [busy, setBusy] = useState(false);
  const [rotated, setRotated] = useState<EndpointWithSecret>();
  const [failure, setFailure] = useState<ApiError>();
  const rotate = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      setRotated(
        await call(
          clients.webhooks.POST('/api/webhooks/{endpointId}/rotate-secret', { params: { path: { endpointId: endpoint.id } }, body: {} }),
        ),
      );
      onRotated();
    } catch (error) {
      setFailure(asApiError(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p>
        Secrets are shown once. Rotating makes a new one; the previous secret keeps signing beside it
        {endpoint.previous_secret_expires_at ? (
          <>
            {' '}
            until <Time value={endpoint.previous_secret_expires_at} />
          </>
        ) : (
          ' for a day'
        )}
        , so you can switch without missing a delivery.
      </p>
      {rotated ? <Secret label="New signing secret" value={rotated.secret} /> : null}
      {failure ? <ErrorNotice error={failure} /> : null}
      <Button kind="secondary" busy={busy} onClick={rotate}>
        Rotate secret
      </Button>
    </section>
  );
}

/** One attempt's request (the event's body, read when opened) and response. */
function AttemptDetails({ clients, endpointId, attempt }: { clients: Clients; endpointId: string; attempt: Attempt }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Event {attempt.event_id}</summary>
      <h3 class="detail-title">Request</h3>
      {open ? <RequestBody clients={clients} endpointId={endpointId} eventId={attempt.event_id} /> : null}
      <h3 class="detail-title">Response</h3>
      {attempt.error ? <p>Error: {attempt.error}</p> : null}
      {attempt.response_body ? (
        <pre tabIndex={0} aria-label="Response body">
          {attempt.response_body}
        </pre>
      ) : (
        <p class="muted">The response body is kept for failed attempts only.</p>
      )}
      {attempt.next_retry_at ? (
        <p>
          Next retry <Time value={attempt.next_retry_at} />
        </p>
      ) : null}
    </details>
  );
}

/** The request body this endpoint's deliveries of the event post (`GET /api/webhooks/{id}/events/{eventId}`). */
function RequestBody({ clients, endpointId, eventId }: { clients: Clients; endpointId: string; eventId: string }) {
  const [loaded, reload] = useLoad(
    () => call(clients.webhooks.GET('/api/webhooks/{endpointId}/events/{eventId}', { params: { path: { endpointId, eventId } } })),
    [eventId],
  );
  return (
    <Load loaded={loaded} retry={reload}>
      {(event) => (
        <>
          <p class="muted">
            POST with <code>X-Webhook-Id: {event.event_id}</code> and its signature headers; the body:
          </p>
          {/* Focusable: a long body scrolls, and a keyboard must be able to scroll it. */}
          <pre tabIndex={0} aria-label="Request body">
            {JSON.stringify(event.body, null, 2)}
          </pre>
        </>
      )}
    </Load>
  );
}

/** The attempts log; its Refresh also reloads the endpoint's health above it (`onRefresh`). */
function Attempts({ clients, endpointId, onRefresh }: { clients: Clients; endpointId: string; onRefresh: () => void }) {
  const [loaded, reload] = useLoad(() =>
    call(clients.webhooks.GET('/api/webhooks/{endpointId}/attempts', { params: { path: { endpointId }, query: { limit: 50 } } })),
  );
  const [replayed, setReplayed] = useState<Record<string, 'busy' | 'queued' | ApiError>>({});
  const replay = async (attempt: Attempt) => {
    setReplayed((r) => ({ ...r, [attempt.id]: 'busy' }));
    try {
      await call(
        clients.webhooks.POST('/api/webhooks/{endpointId}/replay', {
          params: { path: { endpointId } },
          body: { event_id: attempt.event_id },
        }),
      );
      setReplayed((r) => ({ ...r, [attempt.id]: 'queued' }));
    } catch (error) {
      setReplayed((r) => ({ ...r, [attempt.id]: asApiError(error) }));
    }
  };
  return (
    <section class="panel" aria-labelledby="attempts-title">
      <div class="section-head">
        <h2 id="attempts-title">Attempts</h2>
        <Button
          kind="secondary"
          onClick={() => {
            reload();
            onRefresh();
          }}
        >
          Refresh
        </Button>
      </div>
      <Load loaded={loaded} retry={reload}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No attempts yet">
              <p>Send a test event to see your endpoint's answer here.</p>
            </Empty>
          ) : (
            <ol class="attempts">
              {page.data.map((attempt) => {
                const state = replayed[attempt.id];
                return (
                  <li key={attempt.id} class="attempt">
                    <div class="attempt-line">
                      <Badge tone={attempt.status === 'delivered' ? 'good' : 'bad'}>{attempt.status}</Badge>
                      <span>{attempt.response_code === null ? 'no response' : `HTTP ${attempt.response_code}`}</span>
                      <span class="muted">{attempt.response_time_ms} ms</span>
                      <Time value={attempt.attempted_at} />
                      <Button
                        kind="secondary"
                        busy={state === 'busy'}
                        onClick={() => replay(attempt)}
                        aria-label={`Replay event ${attempt.event_id}`}
                      >
                        {state === 'queued' ? 'Queued again' : 'Replay'}
                      </Button>
                    </div>
                    <AttemptDetails clients={clients} endpointId={endpointId} attempt={attempt} />
                    {state && typeof state === 'object' ? <ErrorNotice error={state} /> : null}
                  </li>
                );
              })}
            </ol>
          )
        }
      </Load>
    </section>
  );
}

/** `YYYY-MM-DDTHH:mm` in local time, what a datetime-local input holds. */
function localInputValue(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** Delivers again every event of a time range (or only the failed ones): after an outage of the receiver. */
function ReplayRange({ clients, endpointId }: { clients: Clients; endpointId: string }) {
  const [since, setSince] = useState(() => localInputValue(new Date(Date.now() - 24 * 3600_000)));
  const [onlyFailed, setOnlyFailed] = useState(true);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ queued: number; hasMore: boolean } | { failure: ApiError }>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setOutcome(undefined);
    try {
      const start = new Date(since);
      const body = { since: Number.isNaN(start.getTime()) ? since : start.toISOString(), only_failed: onlyFailed };
      const queued = await call(
        clients.webhooks.POST('/api/webhooks/{endpointId}/replay-range', { params: { path: { endpointId } }, body }),
      );
      setOutcome({ queued: queued.queued, hasMore: queued.has_more });
    } catch (error) {
      setOutcome({ failure: asApiError(error) });
    } finally {
      setBusy(false);
    }
  };
  const failure = outcome && 'failure' in outcome ? outcome.failure : undefined;
  return (
    <section class="panel" aria-labelledby="range-title">
      <h2 id="range-title">Replay a time range</h2>
      <p>After your endpoint was down, deliver again what it missed: the events since a time, each once, in order.</p>
      <form class="inline-form" onSubmit={submit} noValidate>
        <Field
          label="Since"
          type="datetime-local"
          name="since"
          value={since}
          onValue={setSince}
          error={failure?.fieldErrors().since ?? failure?.fieldErrors().until}
        />
        <label class="check">
          <input type="checkbox" checked={onlyFailed} onChange={(e) => setOnlyFailed(e.currentTarget.checked)} />
          <span>Only events whose last delivery failed</span>
        </label>
        <Button type="submit" kind="secondary" busy={busy}>
          Replay range
        </Button>
      </form>
      {outcome && 'queued' in outcome ? (
        <Notice kind="success" title={`${outcome.queued} event${outcome.queued === 1 ? '' : 's'} queued again`}>
          {outcome.hasMore ? <p>The range holds more: replay again from the last one delivered to go on.</p> : null}
        </Notice>
      ) : null}
      {failure && !Object.keys(failure.fieldErrors()).length ? <ErrorNotice error={failure} /> : null}
    </section>
  );
}
