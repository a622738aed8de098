// test-suite: once (the outbound address policy)
/**
 * Webhooks are only delivered to public addresses (src/http/outbound/address-policy.ts). Each forbidden
 * range is refused by IP literal and by a name resolving to it, at registration and at delivery,
 * where the check runs on the address actually dialled and on every redirect hop: a name that
 * resolves to an allowed address first and to a forbidden one later (DNS rebinding) is refused when
 * the connection is made. Names resolve through a DNS server on loopback (DNS_RESOLVER). No test
 * here dials anything but loopback: a public address only ever appears in an answer that is checked
 * and never connected to.
 */
import t from 'tap';
import { createTransport } from '../../src/webhooks/delivery/transport.ts';
import { createNameResolver } from '../../src/http/outbound/name-resolver.ts';
import { startDnsServer } from '../helpers/dns-server.ts';
import { bearer, errorOf } from '../helpers/typed-client.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { attemptsOf, deliveriesOf, eventually, registerEndpoint, sendTest, startWebhookServer } from './webhook-fixtures.ts';

/** One address per forbidden range (ipaddr.js range names), IPv4 and IPv6. */
const FORBIDDEN: Record<string, string> = {
  'private 10/8': '10.0.0.1',
  'private 172.16/12': '172.16.5.4',
  'private 192.168/16': '192.168.1.1',
  'loopback 127/8': '127.0.0.1',
  'link-local 169.254/16 (cloud metadata)': '169.254.169.254',
  'carrier-grade NAT 100.64/10': '100.64.0.1',
  'unspecified 0.0.0.0': '0.0.0.0',
  'multicast 224/4': '224.0.0.1',
  broadcast: '255.255.255.255',
  'reserved 240/4': '240.0.0.1',
  'documentation 192.0.2/24': '192.0.2.1',
  'IPv6 loopback': '::1',
  'IPv6 unspecified': '::',
  'IPv6 link-local fe80::/10': 'fe80::1',
  'IPv6 unique-local fc00::/7': 'fd12:3456::1',
  'IPv6 multicast': 'ff02::1',
  'IPv4-mapped private': '::ffff:10.0.0.1',
  'IPv4-mapped loopback': '::ffff:127.0.0.1',
  'NAT64 of a private address': '64:ff9b::a00:1',
  '6to4 of a private address': '2002:a00:1::1',
  // IPv4-compatible ::/96 (deprecated): URLs and AAAA answers carry it as ::7f00:1, which ipaddr.js calls unicast.
  'IPv4-compatible loopback': '::127.0.0.1',
  'IPv4-compatible private': '::10.0.0.1',
  'IPv4-compatible metadata address': '::169.254.169.254',
};
const PUBLIC = '93.184.215.14';
const literalHost = (address: string) => (address.includes(':') ? `[${address}]` : address);

t.test('registration refuses every forbidden range, by IP literal and by name', async (t) => {
  const dns = await startDnsServer(t);
  // Loopback too is refused here: WEBHOOK_ALLOW_PRIVATE_TARGETS is off, as in production.
  const server = await startWebhookServer(t, { WEBHOOK_WORKER: 'off', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', DNS_RESOLVER: dns.address });
  const register = (url: string) =>
    server.webhooks.POST('/api/webhooks', { body: { url, events: ['*'], payload: 'fat' }, headers: bearer(server.admin_token) });
  let n = 0;
  for (const [range, address] of Object.entries(FORBIDDEN)) {
    const byLiteral = await errorOf(400, register(`https://${literalHost(address)}/hook`));
    t.match(byLiteral, { code: 'WEBHOOK_URL_REFUSED', errors: [{ field: 'url' }] }, `${range} by literal`);
    const name = `h${n++}.hooks.test`;
    dns.set(name, [address]);
    const byName = await errorOf(400, register(`https://${name}/hook`));
    t.match(byName.detail, new RegExp(`${name} resolves to`), `${range} by a name resolving to it`);
  }
  dns.set('mixed.hooks.test', [PUBLIC, '10.1.2.3']);
  await errorOf(400, register('https://mixed.hooks.test/hook'));
  t.pass('a name with a public and a private address is refused');
  t.match(await errorOf(400, register('http://example.test/hook')), { errors: [{ field: /url/ }] }, 'not https');
  t.match(await errorOf(400, register('https://nowhere.hooks.test/hook')), { detail: /does not resolve/ }, 'a name that does not resolve');
  dns.set('creds.hooks.test', [PUBLIC]);
  t.match(await errorOf(400, register('https://user:pw@creds.hooks.test/hook')), { detail: /user information/ });
  dns.set('public.hooks.test', [PUBLIC]);
  const accepted = await register('https://public.hooks.test/hook');
  t.equal(accepted.response.status, 201, 'a name resolving to a public address is accepted (and never dialled here)');
});

t.test('delivery checks the address actually dialled, and every redirect hop', async (t) => {
  const dns = await startDnsServer(t);
  const server = await startWebhookServer(t, { DNS_RESOLVER: dns.address });
  const settled = (endpointId: string) =>
    eventually(
      async () => {
        const [d] = await deliveriesOf(server, endpointId);
        return d && d.state !== 'pending' ? d : undefined;
      },
      10_000,
      'the delivery to settle',
    );

  t.test('DNS rebinding: loopback at registration, private at delivery', async (t) => {
    const receiver = await startReceiver(t, { names: ['rebind.hooks.test'] });
    dns.set('rebind.hooks.test', (i) => (i === 0 ? ['127.0.0.1'] : ['10.0.0.1']));
    const endpoint = await registerEndpoint(server, `https://rebind.hooks.test:${receiver.port}/hook`);
    await sendTest(server, endpoint.id);
    t.equal((await settled(endpoint.id)).state, 'failed');
    t.match(await attemptsOf(server, endpoint.id), [
      { status: 'failed', response_code: null, error: /^address_refused: 10\.0\.0\.1 is a private address/ },
    ]);
    t.equal(receiver.requests.length, 0, 'nothing was sent');
  });

  t.test('public at registration, private at delivery', async (t) => {
    dns.set('flip.hooks.test', (i) => (i === 0 ? [PUBLIC] : ['169.254.169.254']));
    const endpoint = await registerEndpoint(server, 'https://flip.hooks.test/hook');
    await sendTest(server, endpoint.id);
    t.equal((await settled(endpoint.id)).state, 'failed');
    t.match(await attemptsOf(server, endpoint.id), [{ error: /^address_refused: 169\.254\.169\.254 is a linkLocal address/ }]);
  });

  const redirects: [string, string, RegExp][] = [
    ['a private IP literal', 'https://10.0.0.1/steal', /^address_refused: 10\.0\.0\.1/],
    ['an IPv4-mapped literal', 'https://[::ffff:192.168.0.1]/steal', /^address_refused: ::ffff:c0a8:1 is a ipv4Mapped address/],
    ['a name resolving to the metadata address', 'https://meta.hooks.test/latest', /^address_refused: 169\.254\.169\.254/],
    ['an IPv4-compatible literal', 'https://[::127.0.0.1]/steal', /^address_refused: ::7f00:1 is a ipv4Compatible address/],
    ['plain http', 'http://127.0.0.1/x', /^redirect_invalid/],
  ];
  dns.set('meta.hooks.test', ['169.254.169.254']);
  for (const [what, location, error] of redirects) {
    t.test(`a redirect to ${what} is refused`, async (t) => {
      const receiver = await startReceiver(t, { respond: () => ({ status: 302, headers: { location } }) });
      const endpoint = await registerEndpoint(server, `${receiver.origin}/hook`);
      await sendTest(server, endpoint.id);
      t.equal((await settled(endpoint.id)).state, 'failed', 'final: retrying cannot make the target acceptable');
      t.match(await attemptsOf(server, endpoint.id), [{ status: 'failed', response_code: null, error }]);
      t.equal(receiver.requests.length, 1);
    });
  }
});

t.test('the transport refuses forbidden IP literals before connecting', async (t) => {
  const send = createTransport({ timeoutMs: 1000, allowPrivateTargets: true, resolve: createNameResolver(null), userAgent: 'test' });
  for (const [range, address] of Object.entries(FORBIDDEN)) {
    if (address === '127.0.0.1' || address === '::1') continue; // opened by allowPrivateTargets
    const result = await send({ url: `https://${literalHost(address)}:1/x`, body: '{}', headers: {} });
    t.match(result, { kind: 'error', error: 'address_refused' }, range);
  }
});
