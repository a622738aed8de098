/**
 * A complete webhook receiver (docs/webhooks.md): plain node:http, the raw body kept for the
 * signature, `verifyWebhook` from the SDK, deduplication on the event id, and per-resource
 * ordering on `sequence`. A real service would keep `seen` and `lastSequence` in its database.
 * In production it runs behind HTTPS (the sender only delivers to https:// URLs).
 */
import http from 'node:http';
import { verifyWebhook, type ThinWebhookEvent, type WebhookEvent } from '../../generated/client/webhooks.ts';

/** What an endpoint receives: fat bodies, or thin ones when it was registered with `payload: thin`. */
type Delivered = WebhookEvent | ThinWebhookEvent;

export function createWebhookReceiver(secrets: string[], onEvent: (event: Delivered) => void): http.RequestListener {
  const seen = new Set<string>();
  const lastSequence = new Map<string, number>();
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const result = verifyWebhook<Delivered>(Buffer.concat(chunks), req.headers, secrets, { toleranceSeconds: 300 });
      if (!result.ok) {
        res.writeHead(401).end(result.reason);
        return;
      }
      // Any 2xx acknowledges; answer quickly and do slow work elsewhere.
      res.writeHead(204).end();
      if (seen.has(result.id)) return; // a retry or a replay of an event already handled
      seen.add(result.id);
      const { event } = result;
      // The resource an event orders by, as the thin variant's `object_id` names it: the object's id;
      // a group's for a membership event; a domain's name; the tenant of an identity provider. A
      // platform endpoint may receive every tenant's events, and sequences are per tenant.
      const data = event.data;
      const object = 'object' in data ? data.object : undefined;
      const id = !object
        ? 'object_id' in data && data.object_id
        : 'groupId' in object
          ? object.groupId
          : 'domain' in object
            ? object.domain
            : 'id' in object
              ? String(object.id)
              : object.tenantId;
      const resource = `${event.tenant_id ?? ''}/${event.type.split('.')[0]}/${id}`;
      if (event.sequence !== undefined) {
        // Skip anything not newer than what was processed for this resource (ordering is per resource).
        if ((lastSequence.get(resource) ?? 0) > event.sequence) return;
        lastSequence.set(resource, event.sequence);
      }
      onEvent(event);
    });
  };
}
