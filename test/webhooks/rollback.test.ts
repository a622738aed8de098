/**
 * An event is written in the transaction of the change that causes it: a change that rolls back
 * leaves no event and no delivery, and nothing reaches a receiver; a committed one always does.
 */
import { sql } from 'kysely';
import t from 'tap';
import { inTransaction } from '../../src/db/transaction.ts';
import { recordEvent } from '../../src/webhooks/outbox.repository.ts';
import { bearer, dataOf, errorOf } from '../helpers/typed-client.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { createProduct, productBody } from '../catalog/fixtures.ts';
import { envelopeOf, registerEndpoint, startWebhookServer } from './webhook-fixtures.ts';

t.test('rolled-back changes are never delivered', async (t) => {
  const server = await startWebhookServer(t);
  const receiver = await startReceiver(t);
  await registerEndpoint(server, `${receiver.origin}/rb`);
  const admin = bearer(server.admin_token);
  const db = server.database.db;
  const count = async (table: 'webhook_events' | 'webhook_deliveries') =>
    Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db)).rows[0]!.n);

  const plenty = await createProduct(server, { stockQuantity: 10 });
  const scarce = await createProduct(server, { stockQuantity: 1 });
  await receiver.waitFor(2);
  const events = await count('webhook_events');
  const deliveries = await count('webhook_deliveries');

  // An order whose second line lacks stock: the first line's stock and the order were written, then rolled back.
  const customer = await dataOf(
    201,
    server.v1.POST('/api/v1/customers', { body: { name: 'Rb', email: 'rb@example.com' }, headers: admin }),
  );
  await errorOf(
    409,
    server.v1.POST('/api/v1/orders', {
      body: {
        customerId: customer.id,
        items: [
          { productId: plenty.id, quantity: 1 },
          { productId: scarce.id, quantity: 5 },
        ],
      },
      headers: admin,
    }),
  );
  // A duplicate SKU: the insert fails inside the transaction.
  await errorOf(409, server.v1.POST('/api/v1/products', { body: productBody({ sku: plenty.sku }), headers: admin }));
  // A stale If-Match: the update is refused after the row was read.
  await errorOf(
    412,
    server.v1.PATCH('/api/v1/products/{id}', {
      params: { path: { id: plenty.id } },
      body: { name: 'Stale' },
      headers: { ...admin, 'if-match': 'W/"99"' },
    }),
  );
  // Any failure after the event was recorded in the same transaction.
  await t.rejects(
    inTransaction(db, async (trx) => {
      await recordEvent(trx, {
        type: 'product.updated',
        resourceType: 'product',
        resourceId: plenty.id,
        sequence: 99,
        object: { id: plenty.id },
        resourcePath: null,
      });
      throw new Error('the business change failed after its event was recorded');
    }),
  );
  t.equal(await count('webhook_events'), events, 'no event row from any rolled-back change');
  t.equal(await count('webhook_deliveries'), deliveries, 'and no delivery');

  // A committed change after them is delivered, and it is the only new arrival.
  const committed = await createProduct(server);
  await receiver.waitFor(3);
  await new Promise((r) => setTimeout(r, 500));
  t.equal(receiver.requests.length, 3);
  t.match(envelopeOf(receiver.requests[2]!), { type: 'product.created', data: { object: { id: committed.id } } });
});
