import t, { type Test } from 'tap';
import { startServer, type TestServer } from '../helpers/server.ts';
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
  const server = await startServer(t);
  const owner = await server.token('alice');
  const admin = await server.token('root', ['ADMIN']);
  const customer = await server.api.post('/api/v1/customers', {
    body: { name: 'Alice', email: 'alice@example.com' },
    token: owner,
    expect: 201,
  });
  const product = await createProduct(server, { stockQuantity: 1000 });
  return { server, owner, admin, customerId: customer.body.id, productId: product.id };
}

async function orderAt(f: Fixture, status: Status): Promise<any> {
  const { api } = f.server;
  let order = (
    await api.post('/api/v1/orders', {
      body: { customerId: f.customerId, items: [{ productId: f.productId, quantity: 1 }] },
      token: f.owner,
      expect: 201,
    })
  ).body;
  for (const action of PATH_TO[status]) {
    order = (
      await api.post(`/api/v1/orders/${order.id}/${action}`, {
        body: action === 'ship' ? SHIPMENT : undefined,
        token: f.admin,
        expect: 200,
      })
    ).body;
  }
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
  for (const status of Object.keys(EXPECTED) as Status[]) {
    for (const viewer of ['owner', 'admin'] as const) {
      const token = f[viewer];
      const read = await api.get(`/api/v1/orders/${(await orderAt(f, status)).id}`, { token, expect: 200 });
      const offered = transitionLinks(read.body._links);
      t.same(offered, EXPECTED[status][viewer], `${status} as ${viewer}: offered links`);
      t.equal(Boolean(read.body._links.tracking), status === 'SHIPPED', `${status} as ${viewer}: tracking link`);
      if (read.body._links.tracking) await api.get(read.body._links.tracking.href, { token, expect: 200 });

      // Each transition on a fresh order at this status: offered ones succeed by following the link,
      // every other one is refused.
      for (const action of ACTIONS) {
        const order = (await api.get(`/api/v1/orders/${(await orderAt(f, status)).id}`, { token, expect: 200 })).body;
        const body = action === 'ship' ? SHIPMENT : undefined;
        const link = order._links[action];
        if (offered.includes(action)) {
          const r = await api.post(link.href, { body, token, expect: 200 });
          t.not(r.body.status, status, `${status} as ${viewer}: ${action} followed`);
        } else {
          t.notOk(link, `${status} as ${viewer}: no ${action} link`);
          const r = await api.post(`/api/v1/orders/${order.id}/${action}`, { body, token });
          t.ok(r.status === 403 || r.status === 409, `${status} as ${viewer}: ${action} refused (${r.status})`);
          t.equal((await api.get(`/api/v1/orders/${order.id}`, { token, expect: 200 })).body.version, order.version, 'nothing changed');
        }
      }
    }
  }
  // Lists show each order with the same links as reading it.
  const listed = await api.get('/api/v1/orders?size=100', { token: f.owner, expect: 200 });
  for (const order of listed.body._embedded.orders.slice(0, 10)) {
    t.same(order._links, (await api.get(order._links.self.href, { token: f.owner, expect: 200 })).body._links);
  }
});

t.test('order transitions honour If-Match', async (t) => {
  const f = await fixture(t);
  const { api } = f.server;

  t.test('GET carries the version as a strong ETag', async (t) => {
    const order = await orderAt(f, 'PENDING');
    const r = await api.get(`/api/v1/orders/${order.id}`, { token: f.owner, expect: 200 });
    t.equal(r.headers.get('etag'), '"1"');
  });

  t.test('a stale tag is 412 with the current ETag and changes nothing; a matching one succeeds', async (t) => {
    const order = await orderAt(f, 'CONFIRMED');
    const base = `/api/v1/orders/${order.id}`;
    for (const tag of ['"1"', 'W/"2"', '2', '"3", "4"', 'garbage']) {
      const stale = await api.post(`${base}/cancel`, { headers: { 'if-match': tag }, token: f.owner, expect: 412 });
      t.match(stale.body, { type: '/problems/precondition-failed', status: 412, code: 'VERSION_MISMATCH' }, tag);
      t.match(stale.headers.get('content-type'), /^application\/problem\+json/);
      t.equal(stale.headers.get('etag'), '"2"', `${tag}: the current tag`);
    }
    await api.post(`${base}/ship`, { body: SHIPMENT, headers: { 'if-match': '"1"' }, token: f.admin, expect: 412 });
    const unchanged = await api.get(base, { token: f.owner, expect: 200 });
    t.match(unchanged.body, { status: 'CONFIRMED', version: 2 });

    const shipped = await api.post(`${base}/ship`, { body: SHIPMENT, headers: { 'if-match': '"1", "2"' }, token: f.admin, expect: 200 });
    t.match(shipped.body, { status: 'SHIPPED', version: 3 });
    t.equal(shipped.headers.get('etag'), '"3"');
    const delivered = await api.post(`${base}/deliver`, { headers: { 'if-match': '*' }, token: f.admin, expect: 200 });
    t.equal(delivered.headers.get('etag'), '"4"');
  });

  t.test('refusal order: 404 and 403 before 412, 412 before 409', async (t) => {
    const order = await orderAt(f, 'SHIPPED');
    const base = `/api/v1/orders/${order.id}`;
    await api.post('/api/v1/orders/3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f/confirm', {
      headers: { 'if-match': '"1"' },
      token: f.owner,
      expect: 404,
    });
    await api.post(`${base}/deliver`, { headers: { 'if-match': '"1"' }, token: f.owner, expect: 403 });
    await api.post(`${base}/cancel`, { headers: { 'if-match': '"1"' }, token: await f.server.token('mallory'), expect: 403 });
    await api.post(`${base}/cancel`, { headers: { 'if-match': '"1"' }, token: f.owner, expect: 412 });
    await api.post(`${base}/cancel`, { headers: { 'if-match': '"3"' }, token: f.owner, expect: 409 });
  });

  t.test('concurrent transitions with the same If-Match: exactly one wins', async (t) => {
    const order = await orderAt(f, 'PENDING');
    const attempts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post(`/api/v1/orders/${order.id}/${i % 2 ? 'confirm' : 'cancel'}`, { headers: { 'if-match': '"1"' }, token: f.owner }),
      ),
    );
    t.equal(attempts.filter((r) => r.status === 200).length, 1, onPostgres ? 'on PostgreSQL' : 'on PGlite');
    t.equal(attempts.filter((r) => r.status === 412).length, 5, 'every other writer sees the new version');
    t.equal((await api.get(`/api/v1/orders/${order.id}`, { token: f.owner, expect: 200 })).body.version, 2);
  });
});
