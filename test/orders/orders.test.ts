// test-suite: once (the orders API's rules and representation)
import t from 'tap';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { bearer, dataOf, errorOf, expectStatus } from '../helpers/typed-client.ts';
import { createProduct } from '../catalog/fixtures.ts';

const UNKNOWN = '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f';

async function customerFor(server: TestServer, user: string): Promise<{ id: string; token: string }> {
  const token = await server.token(user);
  const customer = await dataOf(
    201,
    server.v1.POST('/api/v1/customers', { body: { name: user, email: `${user}@example.com` }, headers: bearer(token) }),
  );
  return { id: customer.id, token };
}

async function stock(server: TestServer, id: string): Promise<number> {
  return (await dataOf(200, server.v1.GET('/api/v1/products/{id}', { params: { path: { id } } }))).stockQuantity;
}

const path = (id: string) => ({ path: { id } });

t.test('customers', async (t) => {
  const server = await sharedServer();
  const { api, v1 } = server;
  const alice = await server.token('alice');
  const admin = await server.token('root', ['ADMIN']);
  const created = await expectStatus(
    201,
    v1.POST('/api/v1/customers', { body: { name: 'Alice', email: 'Alice@Example.com' }, headers: bearer(alice) }),
  );
  const customer = created.data!;
  t.match(customer, { name: 'Alice', email: 'Alice@Example.com', userId: 'alice' });
  t.equal(created.response.headers.get('location'), `/api/v1/customers/${customer.id}`);
  t.same(await dataOf(200, v1.GET('/api/v1/customers/{id}', { params: path(customer.id), headers: bearer(alice) })), customer);
  await expectStatus(200, v1.GET('/api/v1/customers/{id}', { params: path(customer.id), headers: bearer(admin) }));
  t.match(
    await errorOf(403, v1.GET('/api/v1/customers/{id}', { params: path(customer.id), headers: bearer(await server.token('mallory')) })),
    { type: '/problems/forbidden' },
  );
  await expectStatus(401, v1.GET('/api/v1/customers/{id}', { params: path(customer.id) }));
  await expectStatus(404, v1.GET('/api/v1/customers/{id}', { params: path(UNKNOWN), headers: bearer(alice) }));
  await expectStatus(400, v1.GET('/api/v1/customers/{id}', { params: path('x'), headers: bearer(alice) }));
  await expectStatus(
    406,
    v1.GET('/api/v1/customers/{id}', { params: { path: { id: customer.id }, query: { format: 'xml' } }, headers: bearer(alice) }),
  );
  t.match(await errorOf(409, v1.POST('/api/v1/customers', { body: { name: 'A2', email: 'alice@example.COM' }, headers: bearer(alice) })), {
    code: 'DUPLICATE_EMAIL',
  });
  t.match(
    (await errorOf(400, v1.POST('/api/v1/customers', { body: { name: ' ', email: 'not-an-email' }, headers: bearer(alice) }))).errors,
    [{ field: '/name' }, { field: '/email' }],
  );
  await expectStatus(401, v1.POST('/api/v1/customers', { body: { name: 'B', email: 'b@example.com' } }));
  await expectStatus(
    413,
    v1.POST('/api/v1/customers', { body: { name: 'x'.repeat(1_100_000), email: 'c@example.com' }, headers: bearer(alice) }),
  );
  // Raw client: the typed client sends JSON only, and this body is CSV.
  await api.post('/api/v1/customers', { raw: 'name,email', headers: { 'content-type': 'text/csv' }, token: alice, expect: 415 });
});

t.test('orders: creation, totals, stock, HAL links and transitions', async (t) => {
  const server = await sharedServer();
  const { api, v1 } = server;
  const admin = await server.token('root', ['ADMIN']);
  const alice = await customerFor(server, 'alice');
  const lamp = await createProduct(server, { name: 'Lamp', price: 19.99, stockQuantity: 5 });
  const pen = await createProduct(server, { name: 'Pen', price: 0.1, stockQuantity: 100 });
  const create = (body: { customerId: string; items: { productId: string; quantity: number }[] }, token?: string) =>
    v1.POST('/api/v1/orders', { body, headers: bearer(token) });
  const transition = (id: string, action: 'confirm' | 'cancel' | 'deliver', token?: string) =>
    v1.POST(`/api/v1/orders/{id}/${action}`, { params: path(id), headers: bearer(token) });
  const ship = (id: string, body: { carrier: string; trackingNumber: string }, token?: string) =>
    v1.POST('/api/v1/orders/{id}/ship', { params: path(id), body, headers: bearer(token) });
  const tracking = (id: string, token?: string, format?: string) =>
    v1.GET('/api/v1/orders/{id}/tracking', { params: { path: { id }, query: { format } }, headers: bearer(token) });
  const getOrder = (id: string, token?: string) => v1.GET('/api/v1/orders/{id}', { params: path(id), headers: bearer(token) });

  t.test('201 PENDING with totals computed exactly, stock taken, links for PENDING', async (t) => {
    const created = await expectStatus(
      201,
      create(
        {
          customerId: alice.id,
          items: [
            { productId: lamp.id, quantity: 3 },
            { productId: pen.id, quantity: 3 },
          ],
        },
        alice.token,
      ),
    );
    const order = created.data!;
    t.equal(created.response.headers.get('location'), `/api/v1/orders/${order.id}`);
    t.match(order, { status: 'PENDING', customerId: alice.id, currency: 'USD', version: 1, total: 60.27 });
    t.same(order.items, [
      { productId: lamp.id, name: 'Lamp', quantity: 3, unitPrice: 19.99, lineTotal: 59.97 },
      { productId: pen.id, name: 'Pen', quantity: 3, unitPrice: 0.1, lineTotal: 0.3 },
    ]);
    // Binary floating point gets these sums wrong (3 × 0.1 = 0.30000000000000004, 59.97 + 0.3 =
    // 60.269999999999996): a server computing totals with JavaScript numbers fails here.
    const floatLines = order.items.map((line) => line.unitPrice * line.quantity);
    t.not(order.items[1]!.lineTotal, floatLines[1], 'the line total is the exact decimal, not the float product');
    t.not(order.total, floatLines[0]! + floatLines[1]!, 'the order total is the exact decimal, not the float sum');
    t.equal((await dataOf(200, getOrder(order.id, alice.token))).total, 60.27, 'and stays exact when read back from the database');
    const self = `/api/v1/orders/${order.id}`;
    t.same(order._links, {
      self: { href: self },
      customer: { href: `/api/v1/customers/${alice.id}` },
      confirm: { href: `${self}/confirm` },
      cancel: { href: `${self}/cancel` },
    });
    t.equal(await stock(server, lamp.id), 2);
    t.equal(await stock(server, pen.id), 97);
  });

  t.test('create errors: 400, 401, 403, 404, 409 (nothing reserved), 413, 415', async (t) => {
    const dup = await errorOf(
      400,
      create(
        {
          customerId: alice.id,
          items: [
            { productId: pen.id, quantity: 1 },
            { productId: pen.id, quantity: 1 },
          ],
        },
        alice.token,
      ),
    );
    t.match(dup.errors, [{ field: '/items/1/productId' }]);
    await expectStatus(400, create({ customerId: alice.id, items: [] }, alice.token));
    await expectStatus(400, create({ customerId: alice.id, items: [{ productId: pen.id, quantity: 0 }] }, alice.token));
    await expectStatus(401, create({ customerId: alice.id, items: [{ productId: pen.id, quantity: 1 }] }));
    const bob = await server.token('bob');
    await expectStatus(403, create({ customerId: alice.id, items: [{ productId: pen.id, quantity: 1 }] }, bob));
    await expectStatus(404, create({ customerId: UNKNOWN, items: [{ productId: pen.id, quantity: 1 }] }, alice.token));
    await expectStatus(404, create({ customerId: alice.id, items: [{ productId: UNKNOWN, quantity: 1 }] }, alice.token));
    const short = await errorOf(
      409,
      create(
        {
          customerId: alice.id,
          items: [
            { productId: pen.id, quantity: 5 },
            { productId: lamp.id, quantity: 3 },
          ],
        },
        alice.token,
      ),
    );
    t.match(short, { code: 'INSUFFICIENT_STOCK', detail: new RegExp(lamp.id) });
    t.equal(await stock(server, pen.id), 97, 'the satisfiable line was rolled back too');
    // Raw client: the typed client sends JSON only, and this body is CSV.
    await api.post('/api/v1/orders', { raw: 'customerId\nx', headers: { 'content-type': 'text/csv' }, token: alice.token, expect: 415 });
    // Raw client: `pad` is not a property of the request body, so the typed client refuses it.
    await api.post('/api/v1/orders', {
      raw: JSON.stringify({ customerId: alice.id, items: [], pad: 'x'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
      token: alice.token,
      expect: 413,
    });
    await expectStatus(201, create({ customerId: alice.id, items: [{ productId: pen.id, quantity: 1 }] }, admin));
  });

  t.test('the lifecycle: confirm, ship, tracking, deliver; version bumps; links follow the status', async (t) => {
    const order = await dataOf(201, create({ customerId: alice.id, items: [{ productId: pen.id, quantity: 2 }] }, alice.token));
    const base = `/api/v1/orders/${order.id}`;
    const confirmed = await dataOf(200, transition(order.id, 'confirm', alice.token));
    t.match(confirmed, { status: 'CONFIRMED', version: 2 });
    t.same(Object.keys(confirmed._links).sort(), ['cancel', 'customer', 'self'], 'the owner may still cancel; only ADMIN may ship');
    await expectStatus(409, tracking(order.id, alice.token));
    await expectStatus(403, ship(order.id, { carrier: 'DHL', trackingNumber: 'TN-1' }, alice.token));
    await expectStatus(400, ship(order.id, { carrier: '', trackingNumber: 'TN-1' }, admin));
    // Raw client: the typed client sends JSON only, and this body is CSV.
    await api.post(`${base}/ship`, { raw: 'carrier', headers: { 'content-type': 'text/csv' }, token: admin, expect: 415 });
    await expectStatus(413, ship(order.id, { carrier: 'x'.repeat(1_100_000), trackingNumber: 't' }, admin));
    const shipped = await dataOf(200, ship(order.id, { carrier: 'DHL', trackingNumber: 'TN-1' }, admin));
    t.match(shipped, { status: 'SHIPPED', version: 3, _links: { tracking: { href: `${base}/tracking` } } });
    t.notOk(shipped._links.cancel);
    t.match(await dataOf(200, tracking(order.id, alice.token)), {
      orderId: order.id,
      carrier: 'DHL',
      trackingNumber: 'TN-1',
      status: 'SHIPPED',
      deliveredAt: null,
    });
    t.match(await errorOf(409, transition(order.id, 'cancel', alice.token)), {
      type: '/problems/conflict',
      code: 'ILLEGAL_TRANSITION',
      detail: /is SHIPPED/,
    });
    await expectStatus(403, transition(order.id, 'deliver', alice.token));
    const delivered = await dataOf(200, transition(order.id, 'deliver', admin));
    t.match(delivered, { status: 'DELIVERED', version: 4 });
    t.same(Object.keys(delivered._links).sort(), ['customer', 'self']);
    t.match(await dataOf(200, tracking(order.id, alice.token)), { status: 'DELIVERED', deliveredAt: /Z$/ });
    for (const action of ['confirm', 'cancel', 'deliver'] as const) {
      t.match((await errorOf(409, transition(order.id, action, admin))).detail, /DELIVERED/, action);
    }
    t.match((await errorOf(409, ship(order.id, { carrier: 'x', trackingNumber: 'y' }, admin))).detail, /DELIVERED/);
    t.equal((await dataOf(200, getOrder(order.id, alice.token))).version, 4, 'failed transitions did not bump the version');
  });

  t.test('cancel from PENDING and CONFIRMED releases the stock once', async (t) => {
    for (const confirmFirst of [false, true]) {
      const before = await stock(server, lamp.id);
      const order = await dataOf(201, create({ customerId: alice.id, items: [{ productId: lamp.id, quantity: 2 }] }, alice.token));
      t.equal(await stock(server, lamp.id), before - 2);
      if (confirmFirst) await expectStatus(200, transition(order.id, 'confirm', alice.token));
      const cancelled = await dataOf(200, transition(order.id, 'cancel', alice.token));
      t.match(cancelled, { status: 'CANCELLED', version: confirmFirst ? 3 : 2 });
      t.equal(await stock(server, lamp.id), before);
      t.match((await errorOf(409, transition(order.id, 'cancel', alice.token))).detail, /CANCELLED/);
      t.equal(await stock(server, lamp.id), before, 'a second cancel releases nothing');
      await expectStatus(409, transition(order.id, 'confirm', alice.token));
    }
  });

  t.test('transition and read errors: 400, 401, 403, 404, 406', async (t) => {
    const order = await dataOf(201, create({ customerId: alice.id, items: [{ productId: pen.id, quantity: 1 }] }, alice.token));
    const mallory = await server.token('mallory');
    for (const action of ['confirm', 'cancel'] as const) {
      await expectStatus(401, transition(order.id, action));
      await expectStatus(403, transition(order.id, action, mallory));
      await expectStatus(404, transition(UNKNOWN, action, alice.token));
      await expectStatus(400, transition('nope', action, alice.token));
    }
    const body = { carrier: 'c', trackingNumber: 't' };
    await expectStatus(401, ship(order.id, body));
    await expectStatus(404, ship(UNKNOWN, body, admin));
    await expectStatus(400, ship('nope', body, admin));
    await expectStatus(401, transition(order.id, 'deliver'));
    await expectStatus(404, transition(UNKNOWN, 'deliver', admin));
    await expectStatus(400, transition('nope', 'deliver', admin));
    await expectStatus(401, getOrder(order.id));
    await expectStatus(403, getOrder(order.id, mallory));
    await expectStatus(404, getOrder(UNKNOWN, alice.token));
    await expectStatus(400, getOrder('nope', alice.token));
    await expectStatus(
      406,
      v1.GET('/api/v1/orders/{id}', { params: { path: { id: order.id }, query: { format: 'xml' } }, headers: bearer(alice.token) }),
    );
    const hal = await expectStatus(
      200,
      v1.GET('/api/v1/orders/{id}', { params: path(order.id), headers: { ...bearer(alice.token), accept: 'application/hal+json' } }),
    );
    t.match(hal.response.headers.get('content-type'), /^application\/hal\+json/);
    await expectStatus(401, tracking(order.id));
    await expectStatus(403, tracking(order.id, mallory));
    await expectStatus(404, tracking(UNKNOWN, alice.token));
    await expectStatus(400, tracking('x', alice.token));
    await expectStatus(406, tracking(order.id, alice.token, 'csv'));
  });

  t.test('a deleted product leaves the order lines intact', async (t) => {
    const gone = await createProduct(server, { name: 'Ephemeral', price: 3.33, stockQuantity: 1 });
    const order = await dataOf(201, create({ customerId: alice.id, items: [{ productId: gone.id, quantity: 1 }] }, alice.token));
    await expectStatus(204, v1.DELETE('/api/v1/products/{id}', { params: path(gone.id), headers: bearer(admin) }));
    t.same((await dataOf(200, getOrder(order.id, alice.token))).items, order.items);
    await expectStatus(200, transition(order.id, 'cancel', alice.token));
  });
});

t.test('concurrency: no overselling, one winner per transition', async (t) => {
  const server = await sharedServer();
  const { v1 } = server;
  const alice = await customerFor(server, 'alice');
  const scarce = await createProduct(server, { stockQuantity: 5 });
  const attempts = await Promise.all(
    Array.from({ length: 12 }, () =>
      v1.POST('/api/v1/orders', {
        body: { customerId: alice.id, items: [{ productId: scarce.id, quantity: 1 }] },
        headers: bearer(alice.token),
      }),
    ),
  );
  t.equal(attempts.filter((r) => r.response.status === 201).length, 5);
  t.equal(attempts.filter((r) => r.response.status === 409).length, 7);
  t.equal(await stock(server, scarce.id), 0);

  const order = attempts.find((r) => r.response.status === 201)!.data!;
  const cancels = await Promise.all(
    Array.from({ length: 6 }, () => v1.POST('/api/v1/orders/{id}/cancel', { params: path(order.id), headers: bearer(alice.token) })),
  );
  t.same(cancels.map((r) => r.response.status).sort(), [200, 409, 409, 409, 409, 409]);
  t.equal(await stock(server, scarce.id), 1, 'stock released exactly once');
  t.equal((await dataOf(200, v1.GET('/api/v1/orders/{id}', { params: path(order.id), headers: bearer(alice.token) }))).version, 2);
});

t.test('order lists: HAL collection, visibility, paging links', async (t) => {
  const server = await sharedServer();
  const { api, v1 } = server;
  const admin = await server.token('root', ['ADMIN']);
  const alice = await customerFor(server, 'alice');
  const bob = await customerFor(server, 'bob');
  const p = await createProduct(server, { stockQuantity: 100 });
  for (let i = 0; i < 5; i++)
    await expectStatus(
      201,
      v1.POST('/api/v1/orders', {
        body: { customerId: alice.id, items: [{ productId: p.id, quantity: i + 1 }] },
        headers: bearer(alice.token),
      }),
    );
  await expectStatus(
    201,
    v1.POST('/api/v1/orders', { body: { customerId: bob.id, items: [{ productId: p.id, quantity: 1 }] }, headers: bearer(bob.token) }),
  );
  const list = (query: { page?: number; size?: number; sort?: string[]; format?: string }, token?: string) =>
    v1.GET('/api/v1/orders', { params: { query }, headers: bearer(token) });

  const empty = await dataOf(200, list({}, await server.token('nobody')));
  t.same(empty._embedded.orders, []);
  t.match(empty.page, { totalElements: 0, totalPages: 0, first: true, last: true });
  // The default sort is spelled out, so a link always names the order it pages through.
  const only = { href: '/api/v1/orders?page=0&size=20&sort=createdAt%2Cdesc' };
  t.same(empty._links, { self: only, first: only, last: only });

  t.equal((await dataOf(200, list({}, alice.token))).page.totalElements, 5, 'own orders only');
  t.equal((await dataOf(200, list({}, admin))).page.totalElements, 6, 'ADMIN sees all');

  const middle = await dataOf(200, list({ page: 1, size: 2, sort: ['total,desc'] }, alice.token));
  t.same(
    middle._embedded.orders.map((o) => o.items[0]!.quantity),
    [3, 2],
  );
  const link = (page: number) => ({ href: `/api/v1/orders?page=${page}&size=2&sort=total%2Cdesc` });
  t.same(middle._links, { self: link(1), first: link(0), last: link(2), next: link(2), prev: link(0) });
  // Raw client: the link is followed exactly as the server wrote it.
  const last = await api.get(middle._links.next!.href, { token: alice.token, expect: 200 });
  t.notOk(last.body._links.next);
  t.same(
    last.body._embedded.orders.map((o: any) => o.items[0].quantity),
    [1],
  );

  await expectStatus(400, list({ sort: ['customerId,asc'] }, alice.token));
  await expectStatus(400, list({ size: 101 }, alice.token));
  await expectStatus(401, list({}));
  await expectStatus(406, list({ format: 'xml' }, alice.token));
  const hal = await expectStatus(200, v1.GET('/api/v1/orders', { headers: { ...bearer(alice.token), accept: 'application/hal+json' } }));
  t.match(hal.response.headers.get('content-type'), /^application\/hal\+json/);
});
