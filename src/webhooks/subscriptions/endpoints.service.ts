/**
 * Webhook endpoints and what an operator does with them (openapi/webhooks.yaml): register with the
 * URL checked against the address policy after resolving its name, update, delete, re-enable,
 * rotate the secret, send a test event, replay an event, and read attempts, health and dead letters.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, conflict, isForeignKeyViolation, notFound, validationFailed } from '../../errors.ts';
import { addressRefusal } from '../../http/outbound/address-policy.ts';
import { sealEndpointSecret } from '../endpoint-secrets.ts';
import { ALL_EVENTS, CURRENT_API_VERSION, isApiVersion, isEventType, receivableBy, type EventType } from '../event-types.ts';
import { NameResolutionError, type NameResolver } from '../../http/outbound/name-resolver.ts';
import { recordTestEvent, type NewEvent } from '../outbox.repository.ts';
import * as repo from './endpoints.repository.ts';
import type { EndpointScope } from './endpoints.repository.ts';
import { renderEnvelope } from '../events/envelope.ts';

export type { EndpointScope, PageAfter } from './endpoints.repository.ts';

interface EndpointsServiceOptions {
  resolve: NameResolver;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback targets are accepted (tests). */
  allowPrivateTargets: boolean;
  /** WEBHOOK_SECRET_OVERLAP_S: how long a rotated-out secret still signs. */
  secretOverlapS: number;
  /** BASE_URL: the `url` of the objects an event's body names, rendered as deliveries render it. */
  baseUrl: string;
  /** Seals the signing secrets at rest (SECRETS_KEY). */
  secretBox: SecretBox;
  /**
   * A test event of each type, built by the area that records real ones (decision 77): the webhooks
   * area knows no business area, so the composition root hands these in.
   */
  samples: EventSamples;
}

type EventSamples = Record<EventType, () => NewEvent>;

interface NewEndpoint {
  url: string;
  events: string[];
  secret?: string | null;
  description?: string | null;
  api_version?: string;
  payload?: 'fat' | 'thin';
  all_tenants?: boolean;
  /** A platform ADMIN's choice of tenant (the endpoint then is that tenant's); a tenant's ADMIN creates its own tenant's. */
  tenant_id?: string | null;
  /** Deliveries started per second at most; null or omitted: the server's WEBHOOK_RATE_PER_ENDPOINT. */
  rate_limit_per_second?: number | null;
}

type EndpointChanges = Partial<
  Pick<NewEndpoint, 'url' | 'events' | 'description' | 'api_version' | 'payload' | 'all_tenants' | 'rate_limit_per_second'>
>;

export interface QueuedDelivery {
  deliveryId: string;
  eventId: string;
  endpointId: string;
}

const endpointNotFound = (id: string) => notFound(`Webhook endpoint not found: ${id}`, 'WEBHOOK_ENDPOINT_NOT_FOUND');

function urlRefused(message: string): AppError {
  return new AppError('VALIDATION', `The webhook URL is refused: ${message}`, 'WEBHOOK_URL_REFUSED', [{ field: ['url'], message }]);
}

/** `whsec_` and 32 random bytes in base64url (43 characters). */
function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The subscription as stored; unknown types, and a tenant's endpoint naming a platform type, are refused. */
function normaliseEvents(events: string[], tenantId: string | null): string[] {
  const unknown = events.filter((e) => e !== ALL_EVENTS && !isEventType(e));
  if (unknown.length) {
    throw new AppError('VALIDATION', 'Validation failed', 'VALIDATION_ERROR', [
      { field: ['events'], message: `unknown event type(s): ${unknown.join(', ')}` },
    ]);
  }
  const foreign = events.filter((e): e is EventType => isEventType(e) && !receivableBy(e, tenantId));
  if (foreign.length) {
    throw new AppError('VALIDATION', 'Validation failed', 'VALIDATION_ERROR', [
      { field: ['events'], message: `a tenant's endpoint receives its tenant's events only, not: ${foreign.join(', ')}` },
    ]);
  }
  // `*` covers every type: keep it alone.
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)].sort();
}

const invalidField = (field: string, message: string) =>
  new AppError('VALIDATION', 'Validation failed', 'VALIDATION_ERROR', [{ field: [field], message }]);

/** The tenant a new endpoint belongs to: the caller's own for a tenant's ADMIN; the one asked for (or none) for a platform ADMIN. */
function tenantOfNew(scope: EndpointScope, input: NewEndpoint): string | null {
  if (scope.tenantId === null) return input.tenant_id ?? null;
  if (input.tenant_id != null && input.tenant_id !== scope.tenantId)
    throw invalidField('tenant_id', "a tenant's ADMIN registers endpoints of its own tenant only");
  return scope.tenantId;
}

/** Only a platform endpoint may receive every tenant's events. */
function checkAllTenants(tenantId: string | null, allTenants: boolean | undefined): void {
  if (allTenants && tenantId !== null) throw invalidField('all_tenants', "only a platform endpoint can receive every tenant's events");
}

/**
 * Every operation takes the caller's scope (endpoints.repository.ts `EndpointScope`): a tenant's
 * ADMIN manages that tenant's endpoints (another's is answered as one that does not exist), a
 * platform ADMIN every endpoint, the platform's and the tenants'.
 */
export class WebhookEndpointsService {
  constructor(
    private readonly db: Database,
    private readonly options: EndpointsServiceOptions,
  ) {}

  /**
   * https only, no user information, and every address the host resolves to allowed by the policy
   * (src/http/outbound/address-policy.ts). Resolution happens here and again on every delivery.
   */
  async checkUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw urlRefused('not a URL');
    }
    if (url.protocol !== 'https:') throw urlRefused('only https:// URLs are accepted');
    if (url.username || url.password) throw urlRefused('user information in the URL is not accepted');
    let addresses;
    try {
      addresses = await this.options.resolve(url.hostname);
    } catch (error) {
      if (error instanceof NameResolutionError) throw urlRefused(`${url.hostname} does not resolve (${error.code})`);
      throw error;
    }
    for (const { address } of addresses) {
      const refusal = addressRefusal(address, this.options.allowPrivateTargets);
      if (refusal) throw urlRefused(url.hostname === address ? refusal : `${url.hostname} resolves to ${refusal}`);
    }
    return url.toString();
  }

  async create(scope: EndpointScope, input: NewEndpoint): Promise<repo.EndpointRow> {
    const tenantId = tenantOfNew(scope, input);
    checkAllTenants(tenantId, input.all_tenants);
    const url = await this.checkUrl(input.url);
    const apiVersion = input.api_version ?? CURRENT_API_VERSION;
    if (!isApiVersion(apiVersion)) {
      throw new AppError('VALIDATION', 'Validation failed', 'VALIDATION_ERROR', [
        { field: ['api_version'], message: 'unknown api_version' },
      ]);
    }
    // The id is chosen here so that the sealed secret can be bound to it.
    const id = randomUUID();
    const secret = input.secret ?? generateSecret();
    const row = await repo
      .insertEndpoint(this.db, {
        id,
        url,
        events: normaliseEvents(input.events, tenantId),
        description: input.description ?? null,
        api_version: apiVersion,
        payload: input.payload ?? 'fat',
        rate_limit_per_second: input.rate_limit_per_second ?? null,
        secret: sealEndpointSecret(this.options.secretBox, id, secret),
        tenant_id: tenantId,
        all_tenants: input.all_tenants ?? false,
      })
      .catch((error: unknown) => {
        if (isForeignKeyViolation(error)) throw invalidField('tenant_id', `no tenant has the id ${tenantId}`);
        throw error;
      });
    return { ...row, secret };
  }

  async get(scope: EndpointScope, id: string): Promise<repo.EndpointRow> {
    const endpoint = await repo.findEndpoint(this.db, scope, id);
    if (!endpoint) throw endpointNotFound(id);
    return endpoint;
  }

  list(scope: EndpointScope, limit: number, after?: repo.PageAfter) {
    return repo.pageEndpoints(this.db, scope, limit, after);
  }

  async update(scope: EndpointScope, id: string, changes: EndpointChanges): Promise<repo.EndpointRow> {
    const tenantId = changes.all_tenants || changes.events !== undefined ? (await this.get(scope, id)).tenant_id : null;
    if (changes.all_tenants) checkAllTenants(tenantId, true);
    const row: Parameters<typeof repo.updateEndpoint>[3] = {};
    if (changes.url !== undefined) row.url = await this.checkUrl(changes.url);
    if (changes.events !== undefined) row.events = normaliseEvents(changes.events, tenantId);
    if (changes.description !== undefined) row.description = changes.description;
    if (changes.api_version !== undefined) row.api_version = changes.api_version;
    if (changes.payload !== undefined) row.payload = changes.payload;
    if (changes.all_tenants !== undefined) row.all_tenants = changes.all_tenants;
    // null clears it: the server's default applies again.
    if (changes.rate_limit_per_second !== undefined) row.rate_limit_per_second = changes.rate_limit_per_second;
    const updated = await repo.updateEndpoint(this.db, scope, id, row);
    if (!updated) throw endpointNotFound(id);
    return updated;
  }

  async delete(scope: EndpointScope, id: string): Promise<void> {
    if (!(await repo.deleteEndpoint(this.db, scope, id))) throw endpointNotFound(id);
  }

  async enable(scope: EndpointScope, id: string): Promise<repo.EndpointRow> {
    const enabled = await repo.enableEndpoint(this.db, scope, id);
    if (enabled) return enabled;
    const endpoint = await this.get(scope, id);
    throw conflict(`Webhook endpoint ${id} is ${endpoint.status}, not disabled`, 'ENDPOINT_NOT_DISABLED');
  }

  /** The endpoint with its new secret in plain text (for the response; it is stored sealed). */
  async rotateSecret(
    scope: EndpointScope,
    id: string,
    input: { secret?: string | null; overlap_seconds?: number },
  ): Promise<repo.EndpointRow> {
    const secret = input.secret ?? generateSecret();
    const rotated = await repo.rotateSecret(
      this.db,
      scope,
      id,
      sealEndpointSecret(this.options.secretBox, id, secret),
      input.overlap_seconds ?? this.options.secretOverlapS,
    );
    if (!rotated) throw endpointNotFound(id);
    return { ...rotated, secret };
  }

  async test(scope: EndpointScope, id: string, type: EventType): Promise<QueuedDelivery> {
    return inTransaction(this.db, async (trx) => {
      const endpoint = await repo.findEndpoint(trx, scope, id);
      if (!endpoint) throw endpointNotFound(id);
      if (!receivableBy(type, endpoint.tenant_id))
        throw invalidField('event_type', `a tenant's endpoint receives its tenant's events only, not ${type}`);
      const queued = await recordTestEvent(trx, id, this.options.samples[type]());
      return { deliveryId: queued.deliveryId, eventId: queued.eventId, endpointId: id };
    });
  }

  async replay(scope: EndpointScope, id: string, eventId: string): Promise<QueuedDelivery> {
    return inTransaction(this.db, async (trx) => {
      const endpoint = await repo.findEndpoint(trx, scope, id);
      if (!endpoint) throw endpointNotFound(id);
      if (endpoint.status === 'disabled') throw conflict(`Webhook endpoint ${id} is disabled; enable it first`, 'ENDPOINT_DISABLED');
      const queued = await repo.requeue(trx, id, eventId);
      if (!queued) throw notFound(`Event ${eventId} was never queued for webhook endpoint ${id}`, 'WEBHOOK_EVENT_NOT_FOUND');
      return { deliveryId: queued.delivery_id, eventId, endpointId: id };
    });
  }

  /** Queues again the events of a time range (`repo.requeueRange`), under the same rules as `replay`. */
  async replayRange(scope: EndpointScope, id: string, range: { since: Date; until: Date; onlyFailed: boolean }) {
    if (range.until.getTime() <= range.since.getTime()) {
      throw validationFailed([{ field: ['until'], message: 'must be later than since' }]);
    }
    return inTransaction(this.db, async (trx) => {
      const endpoint = await repo.findEndpoint(trx, scope, id);
      if (!endpoint) throw endpointNotFound(id);
      if (endpoint.status === 'disabled') throw conflict(`Webhook endpoint ${id} is disabled; enable it first`, 'ENDPOINT_DISABLED');
      return repo.requeueRange(trx, id, range);
    });
  }

  /** An event as this endpoint's deliveries post it: rendered for its api_version and payload form. */
  async event(scope: EndpointScope, id: string, eventId: string): Promise<{ eventId: string; type: string; body: string }> {
    const endpoint = await this.get(scope, id);
    const event = await repo.findEndpointEvent(this.db, id, eventId);
    if (!event) throw notFound(`Event ${eventId} was never queued for webhook endpoint ${id}`, 'WEBHOOK_EVENT_NOT_FOUND');
    return { eventId: event.id, type: event.type, body: renderEnvelope(event, endpoint, this.options.baseUrl) };
  }

  async attempts(scope: EndpointScope, id: string, limit: number, after?: repo.PageAfter) {
    await this.get(scope, id);
    return repo.pageAttempts(this.db, id, limit, after);
  }

  deadLetters(scope: EndpointScope, endpointId: string | undefined, limit: number, after?: repo.PageAfter) {
    return repo.pageDeadLetters(this.db, scope, endpointId, limit, after);
  }
}
