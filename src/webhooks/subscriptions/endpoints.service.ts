/**
 * Webhook endpoints and what an operator does with them (openapi/webhooks.yaml): register with the
 * URL checked against the address policy after resolving its name, update, delete, re-enable,
 * rotate the secret, send a test event, replay an event, and read attempts, health and dead letters.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, conflict, notFound } from '../../errors.ts';
import { addressRefusal } from '../../http/outbound/address-policy.ts';
import { sealEndpointSecret } from '../endpoint-secrets.ts';
import { ALL_EVENTS, CURRENT_API_VERSION, isApiVersion, isEventType, type EventType } from '../event-types.ts';
import { NameResolutionError, type NameResolver } from '../../http/outbound/name-resolver.ts';
import { recordTestEvent, type NewEvent } from '../outbox.repository.ts';
import * as repo from './endpoints.repository.ts';

export type { PageAfter } from './endpoints.repository.ts';

interface EndpointsServiceOptions {
  resolve: NameResolver;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback targets are accepted (tests). */
  allowPrivateTargets: boolean;
  /** WEBHOOK_SECRET_OVERLAP_S: how long a rotated-out secret still signs. */
  secretOverlapS: number;
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
  /** Deliveries started per second at most; null or omitted: the server's WEBHOOK_RATE_PER_ENDPOINT. */
  rate_limit_per_second?: number | null;
}

type EndpointChanges = Partial<Pick<NewEndpoint, 'url' | 'events' | 'description' | 'api_version' | 'payload' | 'rate_limit_per_second'>>;

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

function normaliseEvents(events: string[]): string[] {
  const unknown = events.filter((e) => e !== ALL_EVENTS && !isEventType(e));
  if (unknown.length) {
    throw new AppError('VALIDATION', 'Validation failed', 'VALIDATION_ERROR', [
      { field: ['events'], message: `unknown event type(s): ${unknown.join(', ')}` },
    ]);
  }
  // `*` covers every type: keep it alone.
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)].sort();
}

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

  async create(input: NewEndpoint): Promise<repo.EndpointRow> {
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
    const row = await repo.insertEndpoint(this.db, {
      id,
      url,
      events: normaliseEvents(input.events),
      description: input.description ?? null,
      api_version: apiVersion,
      payload: input.payload ?? 'fat',
      rate_limit_per_second: input.rate_limit_per_second ?? null,
      secret: sealEndpointSecret(this.options.secretBox, id, secret),
    });
    return { ...row, secret };
  }

  async get(id: string): Promise<repo.EndpointRow> {
    const endpoint = await repo.findEndpoint(this.db, id);
    if (!endpoint) throw endpointNotFound(id);
    return endpoint;
  }

  list(limit: number, after?: repo.PageAfter) {
    return repo.pageEndpoints(this.db, limit, after);
  }

  async update(id: string, changes: EndpointChanges): Promise<repo.EndpointRow> {
    const row: Parameters<typeof repo.updateEndpoint>[2] = {};
    if (changes.url !== undefined) row.url = await this.checkUrl(changes.url);
    if (changes.events !== undefined) row.events = normaliseEvents(changes.events);
    if (changes.description !== undefined) row.description = changes.description;
    if (changes.api_version !== undefined) row.api_version = changes.api_version;
    if (changes.payload !== undefined) row.payload = changes.payload;
    // null clears it: the server's default applies again.
    if (changes.rate_limit_per_second !== undefined) row.rate_limit_per_second = changes.rate_limit_per_second;
    const updated = await repo.updateEndpoint(this.db, id, row);
    if (!updated) throw endpointNotFound(id);
    return updated;
  }

  async delete(id: string): Promise<void> {
    if (!(await repo.deleteEndpoint(this.db, id))) throw endpointNotFound(id);
  }

  async enable(id: string): Promise<repo.EndpointRow> {
    const enabled = await repo.enableEndpoint(this.db, id);
    if (enabled) return enabled;
    const endpoint = await this.get(id);
    throw conflict(`Webhook endpoint ${id} is ${endpoint.status}, not disabled`, 'ENDPOINT_NOT_DISABLED');
  }

  /** The endpoint with its new secret in plain text (for the response; it is stored sealed). */
  async rotateSecret(id: string, input: { secret?: string | null; overlap_seconds?: number }): Promise<repo.EndpointRow> {
    const secret = input.secret ?? generateSecret();
    const rotated = await repo.rotateSecret(
      this.db,
      id,
      sealEndpointSecret(this.options.secretBox, id, secret),
      input.overlap_seconds ?? this.options.secretOverlapS,
    );
    if (!rotated) throw endpointNotFound(id);
    return { ...rotated, secret };
  }

  async test(id: string, type: EventType): Promise<QueuedDelivery> {
    return inTransaction(this.db, async (trx) => {
      if (!(await repo.findEndpoint(trx, id))) throw endpointNotFound(id);
      const queued = await recordTestEvent(trx, id, this.options.samples[type]());
      return { deliveryId: queued.deliveryId, eventId: queued.eventId, endpointId: id };
    });
  }

  async replay(id: string, eventId: string): Promise<QueuedDelivery> {
    return inTransaction(this.db, async (trx) => {
      const endpoint = await repo.findEndpoint(trx, id);
      if (!endpoint) throw endpointNotFound(id);
      if (endpoint.status === 'disabled') throw conflict(`Webhook endpoint ${id} is disabled; enable it first`, 'ENDPOINT_DISABLED');
      const queued = await repo.requeue(trx, id, eventId);
      if (!queued) throw notFound(`Event ${eventId} was never queued for webhook endpoint ${id}`, 'WEBHOOK_EVENT_NOT_FOUND');
      return { deliveryId: queued.delivery_id, eventId, endpointId: id };
    });
  }

  async attempts(id: string, limit: number, after?: repo.PageAfter) {
    await this.get(id);
    return repo.pageAttempts(this.db, id, limit, after);
  }

  deadLetters(endpointId: string | undefined, limit: number, after?: repo.PageAfter) {
    return repo.pageDeadLetters(this.db, endpointId, limit, after);
  }
}
