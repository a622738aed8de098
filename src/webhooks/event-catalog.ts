/**
 * The event catalog as data (`GET /api/webhooks/event-types`): the `webhooks` section of the bundled
 * openapi/webhooks.yaml, read once, so a type's summary, description and example are the ones the
 * reference shows and a new catalog entry appears here with no code. The portal's event picker is
 * built from it.
 */
import type { components } from '../../generated/openapi/webhooks.ts';
import { loadOpenApiDocument } from '../http/openapi-docs.ts';
import { EVENT_AUDIENCE, EVENT_TYPES } from '../../generated/openapi/webhooks.events.ts';
import { receivableBy } from './event-types.ts';

type EventTypeInfo = components['schemas']['EventTypeInfo'];

/** What this module reads of a catalog entry's operation. */
interface CatalogOperation {
  summary?: string;
  description?: string;
  requestBody?: { content?: Record<string, { examples?: Record<string, { value: object }> }> };
}

let catalog: EventTypeInfo[] | undefined;

/** Every entry in the catalog's order; `npm run generate` has checked each has a body and an example. */
function entries(): EventTypeInfo[] {
  if (catalog) return catalog;
  const section = loadOpenApiDocument('webhooks').webhooks as Record<string, { post: CatalogOperation }>;
  catalog = EVENT_TYPES.map((type): EventTypeInfo => {
    const post = section[type]!.post;
    const examples = post.requestBody?.content?.['application/json']?.examples;
    return {
      type,
      summary: String(post.summary ?? ''),
      description: String(post.description ?? ''),
      audience: EVENT_AUDIENCE[type],
      example: (examples?.fat?.value ?? Object.values(examples ?? {})[0]?.value ?? {}) as EventTypeInfo['example'],
    };
  });
  return catalog;
}

/** The types an endpoint of `tenantId` (null: the platform) can subscribe to. */
export function eventTypesFor(tenantId: string | null): EventTypeInfo[] {
  return entries().filter((entry) => receivableBy(entry.type, tenantId));
}
