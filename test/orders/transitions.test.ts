// test-suite: once (its race of two transitions needs real concurrency, which only PostgreSQL has)
import t, { type Test } from 'tap';
import type { components } from '../../generated/openapi/rest-v1.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { bearer, dataOf, expectStatus } from '../helpers/typed-client.ts';
import { createProduct } from '../catalog/fixtures.ts';
import { onPostgres } from '../helpers/database.ts';

type Status = 'PENDING' | 'CONFIRMED' | 'SHIPPED' | 'DELIVERED' | 'CANCELLED';
const ACTIONS = ['confirm', 'cancel', 'ship', 'deliver'] as const;
const SHIPMENT = { carrier: 'DHL', trackingNumber: 'TN-1' };

/** What each caller is offered, per the issue: the owner confirms and cancels, ADMIN also ships and delivers. */
const EXPECTED: Record<Status, { owner: string[]; admin: string[] }> = {
  PENDING: { owner: ['cancel', 'confirm'], admin: ['cancel', 'confirm'] },
  CONFIRMED: { owner: ['cancel'], admin: ['cancel', 'ship'] },
  SHIPPED: { owner: [], admin: ['deliver'] },
  DELIVERED: { owner: [], admin: [] },
  CANCELLED: { owner: [], admin: [] },
};

const PATH_TO: Record<Status, string[]> = {
  PENDING: [],
  CONFIRMED: ['confirm'],
  SHIPPED: ['confirm', 'ship'],
  DELIVERED: ['confirm', 'ship', 'deliver'],
  CANCELLED: ['cancel'],
};

interface Fixture {
  server: TestServer;
  owner: string;
  admin: string;
  customerId: string;
  productId: string;
}

async function fixture(t: Test): Promise<Fixture> {
  const server = await sharedServer();
  const owner = await server.token('alice');
  const admin = await server.token('root', ['ADMIN']);
  const customer = await dataOf(
    201,
    server.v1.POST('/api/v1/customers', { body: { name: 'Alice', email: 'alice@example.com' }, headers: bearer(owner) }),
  );
  const product = await createProduct(server, { stockQuantity: 1000 });
  return { server, owner, admin, customerId: customer.id, productId: product.id };
}

type Action = (typeof ACTIONS)[number];

/** One transition through the typed client; `ifMatch` adds the header. */
function transition(f: Fixture, id: string, action: Action, token: string, ifMatch?: string) {
  const headers = { ...bearer(token), ...(ifMatch ? { 'if-match': ifMatch } : {}) };
  const params = { path: { id } };
  return action === 'ship'
    ? f.server.v1.POST('/api/v1/orders/{id}/ship', { params, body: SHIPMENT, headers })
    : f.server.v1.POST(`/api/v1/orders/{id}/${action}`, { params, headers });
}

async function orderAt(f: Fixture, status: Status): Promise<components['schemas']['Order']> {
  let order = await dataOf(
    201,
    f.server.v1.POST('/api/v1/orders', {
      body: { customerId: f.customerId, items: [{ productId: f.productId, quantity: 1 }] },
      headers: bearer(f.owner),
    }),
  );
  for (const action of PATH_TO[status] as Action[]) order = await dataOf(200, transition(f, order.id, action, f.admin));
  if (order.status !== status) throw new Error(`expected an order at ${status}, got ${order.status}`);
  return order;
}

const transitionLinks = (links: Record<string, unknown>) =>
  Object.keys(links)
    .filter((k) => (ACTIONS as readonly string[]).includes(k))
    .sort();

t.test('links offer exactly the transitions that succeed, for every status and caller', async (t) => {
  const f = await fixture(t);
  const { api } = f.server;
  const get = (id: string, token: string) => f.server.v1.GET('/api/v1/orders/{id}', { params: { path: { id } }, headers: bearer(token) });
  for (const status of Object.keys(EXPECTED) as Status[]) {
    for (const viewer of ['owner', 'admin'] as const) {
      const token = f[viewer];
      const read = await dataOf(200, get((await orderAt(f, status)).id, token));
      const offered = transitionLinks(read._links);
      t.same(offered, EXPECTED[status][viewer], `${status} as ${viewer}: offered links`);
      t.equal(Boolean(read._links.tracking), status === 'SHIPPED', `${status} as ${viewer}: tracking link`);
      // Raw client here and below: links are followed exactly as the server wrote them.
      if (read._links.tracking) await api.get(read._links.tracking.href, { token, expect: 200 });

      // Each transition on a fresh order at this status: offered ones succeed by following the link,
      // every other one is refused.
      for (const action of ACTIONS) {
        const order = await dataOf(200, get((await orderAt(f, status)).id, token));
        const link = order._links[action];
        if (offered.includes(action)) {
          const r = await api.post(link!.href, { body: action === 'ship' ? SHIPMENT : undefined, token, expect: 200 });
          t.not(r.body.status, status, `${status} as ${viewer}: ${action} followed`);
        } else {
          t.notOk(link, `${status} as ${viewer}: no ${action} link`);
          const { response } = await transition(f, order.id, action, token);
          t.ok(response.status === 403 || response.status === 409, `${status} as ${viewer}: ${action} refused (${response.status})`);
          t.equal((await dataOf(200, get(order.id, token))).version, order.version, 'nothing changed');
        }
      }
    }
  }
  // Lists show each order with the same links as reading it.
  const listed = await dataOf(200, f.server.v1.GET('/api/v1/orders', { params: { query: { size: 100 } }, headers: bearer(f.owner) }));
  for (const order of listed._embedded.orders.slice(0, 10)) {
    t.same(order._links, (await api.get(order._links.self.href, { token: f.owner, expect: 200 })).body._links);
  }
});

t.test('order transitions honour If-Match', async (t) => {
  const f = await fixture(t);
  const read = (id: string) => f.server.v1.GET('/api/v1/orders/{id}', { params: { path: { id } }, headers: bearer(f.owner) });

  t.test('GET carries the version as a strong ETag', async (t) => {
    const order = await orderAt(f, 'PENDING');
    const r = await expectStatus(200, read(order.id));
    t.equal(r.response.headers.get('etag'), '"1"');
  });

  t.test('a stale tag is 412 with the current ETag and changes nothing; a matching one succeeds', async (t) => {
    const order = await orderAt(f, 'CONFIRMED');
    for (const tag of ['"1"', 'W/"2"', '2', '"3", "4"', 'garbage']) {
      const stale = await expectStatus(412, transition(f, order.id, 'cancel', f.owner, tag));
      t.match(stale.error, { type: '/problems/precondition-failed', status: 412, code: 'VERSION_MISMATCH' }, tag);
      t.match(stale.response.headers.get('content-type'), /^application\/problem\+json/);
      t.equal(stale.response.headers.get('etag'), '"2"', `${tag}: the current tag`);
    }
    await expectStatus(412, transition(f, order.id, 'ship', f.admin, '"1"'));
    t.match(await dataOf(200, read(order.id)), { status: 'CONFIRMED', version: 2 });

    const shipped = await expectStatus(200, transition(f, order.id, 'ship', f.admin, '"1", "2"'));
    t.match(shipped.data, { status: 'SHIPPED', version: 3 });
    t.equal(shipped.response.headers.get('etag'), '"3"');
    const delivered = await expectStatus(200, transition(f, order.id, 'deliver', f.admin, '*'));
    t.equal(delivered.response.headers.get('etag'), '"4"');
  });

  t.test('refusal order: 404 and 403 before 412, 412 before 409', async (t) => {
    const order = await orderAt(f, 'SHIPPED');
    await expectStatus(404, transition(f, '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f', 'confirm', f.owner, '"1"'));
    await expectStatus(403, transition(f, order.id, 'deliver', f.owner, '"1"'));
    await expectStatus(403, transition(f, order.id, 'cancel', await f.server.token('mallory'), '"1"'));
    await expectStatus(412, transition(f, order.id, 'cancel', f.owner, '"1"'));
    await expectStatus(409, transition(f, order.id, 'cancel', f.owner, '"3"'));
  });

  t.test('concurrent transitions with the same If-Match: exactly one wins', async (t) => {
    const order = await orderAt(f, 'PENDING');
    const attempts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => transition(f, order.id, i % 2 ? 'confirm' : 'cancel', f.owner, '"1"')),
    );
    t.equal(attempts.filter((r) => r.response.status === 200).length, 1, onPostgres ? 'on PostgreSQL' : 'on PGlite');
    t.equal(attempts.filter((r) => r.response.status === 412).length, 5, 'every other writer sees the new version');
    t.equal((await dataOf(200, read(order.id))).version, 2);
  });
});
