/**
 * openapi/webhooks.yaml: every operation needs the ADMIN role, platform-wide or in the caller's own
 * tenant (`x-role-scope: own-tenant`); the caller's scope decides whose endpoints it manages. Lists
 * are paged by signed cursors.
 */
import type { DeliveriesOperations, EndpointsOperations } from '../../../generated/openapi/webhooks.ts';
import { callerKey, CursorCodec } from '../../http/cursor.ts';
import type { OperationHandlers } from '../../http/openapi-routes.ts';
import { ADMIN, hasRole, type Principal } from '../../auth/principal.ts';
import { eventTypesFor } from '../event-catalog.ts';
import type { EndpointScope, PageAfter, WebhookEndpointsService } from './endpoints.service.ts';
import * as view from './endpoints.representation.ts';

const isPageAfter = (v: unknown): v is PageAfter =>
  typeof v === 'object' && v !== null && typeof (v as PageAfter).at === 'string' && typeof (v as PageAfter).id === 'string';

/** The served operations of webhooks.yaml (its `webhooks` section describes the events, which are sent, not served). */
export type ServedOperations = EndpointsOperations & DeliveriesOperations;

/**
 * Whose endpoints the caller manages: a platform ADMIN the platform's, a tenant's ADMIN that
 * tenant's (the route's guard let nobody else through).
 */
function scopeOf(principal: Principal | null | undefined): EndpointScope {
  return { tenantId: hasRole(principal, ADMIN) ? null : (principal?.tenantId ?? null) };
}

export function endpointsHandlers(service: WebhookEndpointsService, cursorSecret: Uint8Array): OperationHandlers<ServedOperations> {
  const codec = new CursorCodec(cursorSecret);
  const caller = (principal: Principal | null | undefined) => callerKey(principal?.userId ?? null);

  /** Decodes `cursor`, runs the page query (limit + 1 rows), and answers `{data, pagination}`. */
  async function page<Row extends { page_at: string }, Item>(
    scope: string,
    principal: Principal | null | undefined,
    query: { limit?: number; cursor?: string },
    load: (limit: number, after?: PageAfter) => Promise<Row[]>,
    idOf: (row: Row) => string,
    toItem: (row: Row) => Item,
  ) {
    const limit = query.limit ?? 20;
    const after = query.cursor ? codec.decode(scope, caller(principal), query.cursor, 'cursor', isPageAfter) : undefined;
    const rows = await load(limit, after);
    const hasNext = rows.length > limit;
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    const cursor = hasNext && last ? codec.encode(scope, caller(principal), { at: last.page_at, id: idOf(last) }) : null;
    return { data: items.map(toItem), pagination: { cursor, has_next: hasNext, limit } };
  }

  return {
    listWebhookEndpoints: (request) =>
      page(
        'webhooks.endpoints',
        request.principal,
        request.query,
        (l: number, a?: PageAfter) => service.list(scopeOf(request.principal), l, a),
        (r) => r.id,
        view.toEndpoint,
      ),

    createWebhookEndpoint: async (request, reply) => {
      const endpoint = await service.create(scopeOf(request.principal), request.body);
      // Carries the secret: no cache may keep it.
      reply.code(201).header('Location', view.endpointPath(endpoint.id)).header('Cache-Control', 'no-store');
      return view.toEndpointWithSecret(endpoint);
    },

    listWebhookDeadLetters: (request) =>
      page(
        `webhooks.dead-letters:${request.query.endpoint_id ?? '*'}`,
        request.principal,
        request.query,
        (l: number, a?: PageAfter) => service.deadLetters(scopeOf(request.principal), request.query.endpoint_id, l, a),
        (r) => r.delivery_id,
        view.toDeadLetter,
      ),

    getWebhookEndpoint: async (request) => view.toEndpoint(await service.get(scopeOf(request.principal), request.params.endpointId)),

    updateWebhookEndpoint: async (request) =>
      view.toEndpoint(await service.update(scopeOf(request.principal), request.params.endpointId, request.body)),

    deleteWebhookEndpoint: async (request, reply) => {
      await service.delete(scopeOf(request.principal), request.params.endpointId);
      return reply.code(204).send();
    },

    enableWebhookEndpoint: async (request) => view.toEndpoint(await service.enable(scopeOf(request.principal), request.params.endpointId)),

    rotateWebhookSecret: async (request, reply) => {
      const endpoint = await service.rotateSecret(scopeOf(request.principal), request.params.endpointId, request.body ?? {});
      reply.header('Cache-Control', 'no-store');
      return view.toEndpointWithSecret(endpoint);
    },

    testWebhookEndpoint: async (request, reply) => {
      reply.code(202);
      return view.toQueued(await service.test(scopeOf(request.principal), request.params.endpointId, request.body.event_type));
    },

    replayWebhookEvent: async (request, reply) => {
      reply.code(202);
      return view.toQueued(await service.replay(scopeOf(request.principal), request.params.endpointId, request.body.event_id));
    },

    replayWebhookRange: async (request, reply) => {
      const { since, until, only_failed: onlyFailed = false } = request.body;
      const range = { since: new Date(since), until: until ? new Date(until) : new Date(), onlyFailed };
      const { queued, nextSince } = await service.replayRange(scopeOf(request.principal), request.params.endpointId, range);
      reply.code(202);
      return { endpoint_id: request.params.endpointId, queued, has_more: nextSince !== null, next_since: nextSince?.toISOString() ?? null };
    },

    getWebhookEvent: async (request) => {
      const { eventId, type, body } = await service.event(scopeOf(request.principal), request.params.endpointId, request.params.eventId);
      return { event_id: eventId, type, body: JSON.parse(body) as Record<string, unknown> };
    },

    listWebhookAttempts: (request) =>
      page(
        `webhooks.attempts:${request.params.endpointId}`,
        request.principal,
        request.query,
        (l: number, a?: PageAfter) => service.attempts(scopeOf(request.principal), request.params.endpointId, l, a),
        (r) => r.id,
        view.toAttempt,
      ),

    listWebhookEventTypes: async (request) => ({ data: eventTypesFor(scopeOf(request.principal).tenantId) }),

    getWebhookHealth: async (request) => view.toHealth(await service.get(scopeOf(request.principal), request.params.endpointId)),
  };
}
