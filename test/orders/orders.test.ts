import t from 'tap';
import { startServer, type TestServer } from '../helpers/server.ts';
import { createProduct } from '../catalog/fixtures.ts';

const UNKNOWN = '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f';

async function customerFor(server: TestServer, user: string): Promise<{ id: string; token: string }> {
  const token = await server.token(user);
  const r = await server.api.post('/api/v1/customers', { body: { name: user, email: `${user}@example.com` }, token, expect: 201 });
  return { id: r.body.id, token };
}

async function stock(server: TestServer, id: string): Promise<number> {
  return (await server.api.get(`/api/v1/products/${id}`, { expect: 200 })).body.stockQuantity;
}

t.test('customers', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const alice = await server.token('alice');
  const admin = await server.token('root', ['ADMIN']);
  const created = await api.post('/api/v1/customers', { body: { name: 'Alice', email: 'Alice@Example.com' }, token: alice, expect: 201 });
  t.match(created.body, { name: 'Alice', email: 'Alice@Example.com', userId: 'alice' });
  t.equal(created.headers.get('location'), `/api/v1/customers/${created.body.id}`);
  t.same((await api.get(`/api/v1/customers/${created.body.id}`, { token: alice, expect: 200 })).body, created.body);
  await api.get(`/api/v1/customers/${created.body.id}`, { token: admin, expect: 200 });
  t.match((await api.get(`/api/v1/customers/${created.body.id}`, { token: await server.token('mallory'), expect: 403 })).body, {
    type: '/problems/forbidden',
  });
  await api.get(`/api/v1/customers/${created.body.id}`, { expect: 401 });
  await api.get(`/api/v1/customers/${UNKNOWN}`, { token: alice, expect: 404 });
  await api.get('/api/v1/customers/x', { token: alice, expect: 400 });
  await api.get(`/api/v1/customers/${created.body.id}?format=xml`, { token: alice, expect: 406 });
  t.match((await api.post('/api/v1/customers', { body: { name: 'A2', email: 'alice@example.COM' }, token: alice, expect: 409 })).body, {
    code: 'DUPLICATE_EMAIL',
  });
  t.match((await api.post('/api/v1/customers', { body: { name: ' ', email: 'not-an-email' }, token: alice, expect: 400 })).body.errors, [
    { field: '/name' },
    { field: '/email' },
  ]);
  await api.post('/api/v1/customers', { body: { name: 'B', email: 'b@example.com' }, expect: 401 });
  await api.post('/api/v1/customers', { raw: 'name,email', headers: { 'content-type': 'text/csv' }, token: alice, expect: 415 });
  await api.post('/api/v1/customers', {
    raw: JSON.stringify({ name: 'x'.repeat(1_100_000), email: 'c@example.com' }),
    headers: { 'content-type': 'application/json' },
    token: alice,
    expect: 413,
  });
});

t.test('orders: creation, totals, stock, HAL links and transitions', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const admin = await server.token('root', ['ADMIN']);
  const alice = await customerFor(server, 'alice');
  const lamp = await createProduct(server, { name: 'Lamp', price: 19.99, stockQuantity: 5 });
  const pen = await createProduct(server, { name: 'Pen', price: 0.1, stockQuantity: 100 });

  t.test('201 PENDING with totals computed exactly, stock taken, links for PENDING', async (t) => {
    const r = await api.post('/api/v1/orders', {
      body: {
        customerId: alice.id,
        items: [
          { productId: lamp.id, quantity: 3 },
          { productId: pen.id, quantity: 3 },
        ],
      },
      token: alice.token,
      expect: 201,
    });
    t.equal(r.headers.get('location'), `/api/v1/orders/${r.body.id}`);
    t.match(r.body, { status: 'PENDING', customerId: alice.id, currency: 'USD', version: 1, total: 60.27 });
    t.same(r.body.items, [
      { productId: lamp.id, name: 'Lamp', quantity: 3, unitPrice: 19.99, lineTotal: 59.97 },
      { productId: pen.id, name: 'Pen', quantity: 3, unitPrice: 0.1, lineTotal: 0.3 },
    ]);
    t.ok(0.1 * 3 !== 0.3, 'float arithmetic would have been wrong here');
    const self = `/api/v1/orders/${r.body.id}`;
    t.same(r.body._links, {
      self: { href: self },
      customer: { href: `/api/v1/customers/${alice.id}` },
      confirm: { href: `${self}/confirm` },
      cancel: { href: `${self}/cancel` },
    });
    t.equal(await stock(server, lamp.id), 2);
    t.equal(await stock(server, pen.id), 97);
  });

  t.test('create errors: 400, 401, 403, 404, 409 (nothing reserved), 413, 415', async (t) => {
    const dup = await api.post('/api/v1/orders', {
      body: {
        customerId: alice.id,
        items: [
          { productId: pen.id, quantity: 1 },
          { productId: pen.id, quantity: 1 },
        ],
      },
      token: alice.token,
      expect: 400,
    });
    t.match(dup.body.errors, [{ field: '/items/1/productId' }]);
    await api.post('/api/v1/orders', { body: { customerId: alice.id, items: [] }, token: alice.token, expect: 400 });
    await api.post('/api/v1/orders', {
      body: { customerId: alice.id, items: [{ productId: pen.id, quantity: 0 }] },
      token: alice.token,
      expect: 400,
    });
    await api.post('/api/v1/orders', { body: { customerId: alice.id, items: [{ productId: pen.id, quantity: 1 }] }, expect: 401 });
    const bob = await server.token('bob');
    await api.post('/api/v1/orders', {
      body: { customerId: alice.id, items: [{ productId: pen.id, quantity: 1 }] },
      token: bob,
      expect: 403,
    });
    await api.post('/api/v1/orders', {
      body: { customerId: UNKNOWN, items: [{ productId: pen.id, quantity: 1 }] },
      token: alice.token,
      expect: 404,
    });
    await api.post('/api/v1/orders', {
      body: { customerId: alice.id, items: [{ productId: UNKNOWN, quantity: 1 }] },
      token: alice.token,
      expect: 404,
    });
    const short = await api.post('/api/v1/orders', {
      body: {
        customerId: alice.id,
        items: [
          { productId: pen.id, quantity: 5 },
          { productId: lamp.id, quantity: 3 },
        ],
      },
      token: alice.token,
      expect: 409,
    });
    t.match(short.body, { code: 'INSUFFICIENT_STOCK', detail: new RegExp(lamp.id) });
    t.equal(await stock(server, pen.id), 97, 'the satisfiable line was rolled back too');
    await api.post('/api/v1/orders', { raw: 'customerId\nx', headers: { 'content-type': 'text/csv' }, token: alice.token, expect: 415 });
    await api.post('/api/v1/orders', {
      raw: JSON.stringify({ customerId: alice.id, items: [], pad: 'x'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
      token: alice.token,
      expect: 413,
    });
    await api.post('/api/v1/orders', {
      body: { customerId: alice.id, items: [{ productId: pen.id, quantity: 1 }] },
      token: admin,
      expect: 201,
    });
  });

  t.test('the lifecycle: confirm, ship, tracking, deliver; version bumps; links follow the status', async (t) => {
    const order = (
      await api.post('/api/v1/orders', {
        body: { customerId: alice.id, items: [{ productId: pen.id, quantity: 2 }] },
        token: alice.token,
        expect: 201,
      })
    ).body;
    const base = `/api/v1/orders/${order.id}`;
    const confirmed = await api.post(`${base}/confirm`, { token: alice.token, expect: 200 });
    t.match(confirmed.body, { status: 'CONFIRMED', version: 2 });
    t.same(Object.keys(confirmed.body._links).sort(), ['cancel', 'customer', 'self'], 'the owner may still cancel; only ADMIN may ship');
    await api.get(`${base}/tracking`, { token: alice.token, expect: 409 });
    await api.post(`${base}/ship`, { body: { carrier: 'DHL', trackingNumber: 'TN-1' }, token: alice.token, expect: 403 });
    await api.post(`${base}/ship`, { body: { carrier: '', trackingNumber: 'TN-1' }, token: admin, expect: 400 });
    await api.post(`${base}/ship`, { raw: 'carrier', headers: { 'content-type': 'text/csv' }, token: admin, expect: 415 });
    await api.post(`${base}/ship`, {
      raw: JSON.stringify({ carrier: 'x'.repeat(1_100_000), trackingNumber: 't' }),
      headers: { 'content-type': 'application/json' },
      token: admin,
      expect: 413,
    });
    const shipped = await api.post(`${base}/ship`, { body: { carrier: 'DHL', trackingNumber: 'TN-1' }, token: admin, expect: 200 });
    t.match(shipped.body, { status: 'SHIPPED', version: 3, _links: { tracking: { href: `${base}/tracking` } } });
    t.notOk(shipped.body._links.cancel);
    const tracking = await api.get(`${base}/tracking`, { token: alice.token, expect: 200 });
    t.match(tracking.body, { orderId: order.id, carrier: 'DHL', trackingNumber: 'TN-1', status: 'SHIPPED', deliveredAt: null });
    const cancel = await api.post(`${base}/cancel`, { token: alice.token, expect: 409 });
    t.match(cancel.body, { type: '/problems/conflict', code: 'ILLEGAL_TRANSITION', detail: /is SHIPPED/ });
    await api.post(`${base}/deliver`, { token: alice.token, expect: 403 });
    const delivered = await api.post(`${base}/deliver`, { token: admin, expect: 200 });
    t.match(delivered.body, { status: 'DELIVERED', version: 4 });
    t.same(Object.keys(delivered.body._links).sort(), ['customer', 'self']);
    t.match((await api.get(`${base}/tracking`, { token: alice.token, expect: 200 })).body, { status: 'DELIVERED', deliveredAt: /Z$/ });
    for (const action of ['confirm', 'cancel', 'deliver']) {
      const r = await api.post(`${base}/${action}`, { token: admin, expect: 409 });
      t.match(r.body.detail, /DELIVERED/, action);
    }
    t.match(
      (await api.post(`${base}/ship`, { body: { carrier: 'x', trackingNumber: 'y' }, token: admin, expect: 409 })).body.detail,
      /DELIVERED/,
    );
    t.equal((await api.get(base, { token: alice.token, expect: 200 })).body.version, 4, 'failed transitions did not bump the version');
  });

  t.test('cancel from PENDING and CONFIRMED releases the stock once', async (t) => {
    for (const confirmFirst of [false, true]) {
      const before = await stock(server, lamp.id);
      const order = (
        await api.post('/api/v1/orders', {
          body: { customerId: alice.id, items: [{ productId: lamp.id, quantity: 2 }] },
          token: alice.token,
          expect: 201,
        })
      ).body;
      t.equal(await stock(server, lamp.id), before - 2);
      if (confirmFirst) await api.post(`/api/v1/orders/${order.id}/confirm`, { token: alice.token, expect: 200 });
      const cancelled = await api.post(`/api/v1/orders/${order.id}/cancel`, { token: alice.token, expect: 200 });
      t.match(cancelled.body, { status: 'CANCELLED', version: confirmFirst ? 3 : 2 });
      t.equal(await stock(server, lamp.id), before);
      t.match((await api.post(`/api/v1/orders/${order.id}/cancel`, { token: alice.token, expect: 409 })).body.detail, /CANCELLED/);
      t.equal(await stock(server, lamp.id), before, 'a second cancel releases nothing');
      await api.post(`/api/v1/orders/${order.id}/confirm`, { token: alice.token, expect: 409 });
    }
  });

  t.test('transition and read errors: 400, 401, 403, 404, 406', async (t) => {
    const order = (
      await api.post('/api/v1/orders', {
        body: { customerId: alice.id, items: [{ productId: pen.id, quantity: 1 }] },
        token: alice.token,
        expect: 201,
      })
    ).body;
    const mallory = await server.token('mallory');
    for (const action of ['confirm', 'cancel']) {
      await api.post(`/api/v1/orders/${order.id}/${action}`, { expect: 401 });
      await api.post(`/api/v1/orders/${order.id}/${action}`, { token: mallory, expect: 403 });
      await api.post(`/api/v1/orders/${UNKNOWN}/${action}`, { token: alice.token, expect: 404 });
      await api.post(`/api/v1/orders/nope/${action}`, { token: alice.token, expect: 400 });
    }
    for (const action of ['ship', 'deliver']) {
      const body = action === 'ship' ? { carrier: 'c', trackingNumber: 't' } : undefined;
      await api.post(`/api/v1/orders/${order.id}/${action}`, { body, expect: 401 });
      await api.post(`/api/v1/orders/${UNKNOWN}/${action}`, { body, token: admin, expect: 404 });
      await api.post(`/api/v1/orders/nope/${action}`, { body, token: admin, expect: 400 });
    }
    await api.get(`/api/v1/orders/${order.id}`, { expect: 401 });
    await api.get(`/api/v1/orders/${order.id}`, { token: mallory, expect: 403 });
    await api.get(`/api/v1/orders/${UNKNOWN}`, { token: alice.token, expect: 404 });
    await api.get('/api/v1/orders/nope', { token: alice.token, expect: 400 });
    await api.get(`/api/v1/orders/${order.id}?format=xml`, { token: alice.token, expect: 406 });
    const hal = await api.get(`/api/v1/orders/${order.id}`, {
      headers: { accept: 'application/hal+json' },
      token: alice.token,
      expect: 200,
    });
    t.match(hal.headers.get('content-type'), /^application\/hal\+json/);
    await api.get(`/api/v1/orders/${order.id}/tracking`, { expect: 401 });
    await api.get(`/api/v1/orders/${order.id}/tracking`, { token: mallory, expect: 403 });
    await api.get(`/api/v1/orders/${UNKNOWN}/tracking`, { token: alice.token, expect: 404 });
    await api.get('/api/v1/orders/x/tracking', { token: alice.token, expect: 400 });
    await api.get(`/api/v1/orders/${order.id}/tracking?format=csv`, { token: alice.token, expect: 406 });
  });

  t.test('a deleted product leaves the order lines intact', async (t) => {
    const gone = await createProduct(server, { name: 'Ephemeral', price: 3.33, stockQuantity: 1 });
    const order = (
      await api.post('/api/v1/orders', {
        body: { customerId: alice.id, items: [{ productId: gone.id, quantity: 1 }] },
        token: alice.token,
        expect: 201,
      })
    ).body;
    await api.delete(`/api/v1/products/${gone.id}`, { token: admin, expect: 204 });
    t.same((await api.get(`/api/v1/orders/${order.id}`, { token: alice.token, expect: 200 })).body.items, order.items);
    await api.post(`/api/v1/orders/${order.id}/cancel`, { token: alice.token, expect: 200 });
  });
});

t.test('concurrency: no overselling, one winner per transition', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const alice = await customerFor(server, 'alice');
  const scarce = await createProduct(server, { stockQuantity: 5 });
  const attempts = await Promise.all(
    Array.from({ length: 12 }, () =>
      api.post('/api/v1/orders', { body: { customerId: alice.id, items: [{ productId: scarce.id, quantity: 1 }] }, token: alice.token }),
    ),
  );
  t.equal(attempts.filter((r) => r.status === 201).length, 5);
  t.equal(attempts.filter((r) => r.status === 409).length, 7);
  t.equal(await stock(server, scarce.id), 0);

  const order = attempts.find((r) => r.status === 201)!.body;
  const cancels = await Promise.all(Array.from({ length: 6 }, () => api.post(`/api/v1/orders/${order.id}/cancel`, { token: alice.token })));
  t.same(cancels.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409]);
  t.equal(await stock(server, scarce.id), 1, 'stock released exactly once');
  t.equal((await api.get(`/api/v1/orders/${order.id}`, { token: alice.token, expect: 200 })).body.version, 2);
});

t.test('order lists: HAL collection, visibility, paging links', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const admin = await server.token('root', ['ADMIN']);
  const alice = await customerFor(server, 'alice');
  const bob = await customerFor(server, 'bob');
  const p = await createProduct(server, { stockQuantity: 100 });
  for (let i = 0; i < 5; i++)
    await api.post('/api/v1/orders', {
      body: { customerId: alice.id, items: [{ productId: p.id, quantity: i + 1 }] },
      token: alice.token,
      expect: 201,
    });
  await api.post('/api/v1/orders', {
    body: { customerId: bob.id, items: [{ productId: p.id, quantity: 1 }] },
    token: bob.token,
    expect: 201,
  });

  const empty = await api.get('/api/v1/orders', { token: await server.token('nobody'), expect: 200 });
  t.same(empty.body._embedded.orders, []);
  t.match(empty.body.page, { totalElements: 0, totalPages: 0, first: true, last: true });
  // The default sort is spelled out, so a link always names the order it pages through.
  const only = { href: '/api/v1/orders?page=0&size=20&sort=createdAt%2Cdesc' };
  t.same(empty.body._links, { self: only, first: only, last: only });

  t.equal((await api.get('/api/v1/orders', { token: alice.token, expect: 200 })).body.page.totalElements, 5, 'own orders only');
  t.equal((await api.get('/api/v1/orders', { token: admin, expect: 200 })).body.page.totalElements, 6, 'ADMIN sees all');

  const middle = await api.get('/api/v1/orders?page=1&size=2&sort=total,desc', { token: alice.token, expect: 200 });
  t.same(
    middle.body._embedded.orders.map((o: any) => o.items[0].quantity),
    [3, 2],
  );
  const link = (page: number) => ({ href: `/api/v1/orders?page=${page}&size=2&sort=total%2Cdesc` });
  t.same(middle.body._links, { self: link(1), first: link(0), last: link(2), next: link(2), prev: link(0) });
  const last = await api.get(middle.body._links.next.href, { token: alice.token, expect: 200 });
  t.notOk(last.body._links.next);
  t.same(
    last.body._embedded.orders.map((o: any) => o.items[0].quantity),
    [1],
  );

  await api.get('/api/v1/orders?sort=customerId,asc', { token: alice.token, expect: 400 });
  await api.get('/api/v1/orders?size=101', { token: alice.token, expect: 400 });
  await api.get('/api/v1/orders', { expect: 401 });
  await api.get('/api/v1/orders?format=xml', { token: alice.token, expect: 406 });
  const hal = await api.get('/api/v1/orders', { headers: { accept: 'application/hal+json' }, token: alice.token, expect: 200 });
  t.match(hal.headers.get('content-type'), /^application\/hal\+json/);
});
