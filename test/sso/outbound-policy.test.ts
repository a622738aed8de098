// test-suite: once (the outbound address policy)
/**
 * Identity provider documents are read under the same outbound policy as webhook deliveries
 * (src/http/outbound/): a SAML metadata URL and an OpenID Connect issuer or discovery URL naming an
 * internal address (by IP literal, IPv4-compatible IPv6 included, or by a name the loopback DNS server
 * resolves to one) is a 400 that says "address refused" and nothing else, and nothing is dialled: an
 * "internal service" on loopback counts the connections it gets. With ALLOW_INSECURE_IDP (loopback
 * providers, as the other SSO tests run them) loopback opens and nothing else does; a document over
 * 1 MiB is refused, and a failing or redirecting answer is reported by its status, never its body.
 * No test here dials anything but loopback.
 */
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createNameResolver } from '../../src/http/outbound/name-resolver.ts';
import { createOutboundClient } from '../../src/http/outbound/outbound-client.ts';
import { createPolicedFetch, OutboundError } from '../../src/http/outbound/policed-fetch.ts';
import { providerFailure } from '../../src/identity/providers/provider-fetch.ts';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.ts';
import { TestSamlIdp } from '../helpers/saml-idp.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { adminToken, createTenant } from './sso-fixtures.ts';

const SECRET = 'INTERNAL-ONLY-7f3a9c';
const PUBLIC = '93.184.215.14';

let dns: DnsServer;
/** A TCP service on loopback that would answer with SECRET: the one thing a refused URL must not reach. */
let internal: { port: number; connections: number };

t.before(async () => {
  dns = await startDnsServer(t);
  const service = net.createServer((socket) => {
    internal.connections++;
    socket.end(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${SECRET.length}\r\n\r\n${SECRET}`);
  });
  service.listen(0, '127.0.0.1');
  await once(service, 'listening');
  internal = { port: (service.address() as AddressInfo).port, connections: 0 };
  t.teardown(() => new Promise<void>((resolve) => service.close(() => resolve())));
  dns.set('intranet.idp.test', ['127.0.0.1']);
  dns.set('corp.idp.test', ['10.0.0.1']);
  dns.set('metadata.idp.test', ['169.254.169.254']);
  dns.set('compat.idp.test', ['::10.0.0.1']);
  dns.set('mixed.idp.test', [PUBLIC, '10.0.0.1']);
});

/** Production's settings: no ALLOW_INSECURE_IDP, names resolved by the test DNS server. */
const production = () => sharedServer({ env: { DNS_RESOLVER: dns.address } });
/** The SSO tests' settings: providers on loopback over http. */
const insecure = () => sharedServer({ env: { DNS_RESOLVER: dns.address, ALLOW_INSECURE_IDP: 'true' } });

/** Internal targets, each with what the refusal must not show (the address a name resolved to). */
function internalTargets(): [string, string, string[]][] {
  return [
    ['a private IP literal', 'https://10.0.0.1', []],
    ['the cloud metadata address', 'https://169.254.169.254', []],
    ['an IPv4-compatible loopback literal', `https://[::127.0.0.1]:${internal.port}`, []],
    ['a loopback literal (ALLOW_INSECURE_IDP off)', `https://127.0.0.1:${internal.port}`, []],
    ['a name resolving to loopback', `https://intranet.idp.test:${internal.port}`, ['127.0.0.1']],
    ['a name resolving to a private address', 'https://corp.idp.test', ['10.0.0.1']],
    ['a name resolving to the metadata address', 'https://metadata.idp.test', ['169.254.169.254']],
    ['a name resolving to an IPv4-compatible address', 'https://compat.idp.test', ['::a00:1', '10.0.0.1']],
    ['a name with a public and a private address', 'https://mixed.idp.test', ['10.0.0.1', PUBLIC]],
  ];
}

async function putProvider(server: TestServer, body: Record<string, unknown>) {
  return server.api.put('/api/v1/admin/tenants/acme/identity-provider', { token: await adminToken(server), body });
}

/** A loopback HTTP server whose routes a test sets; its origin. */
async function startHttp(t: Test, routes: Record<string, (res: http.ServerResponse) => void>): Promise<string> {
  const server = http.createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('a SAML metadataUrl at an internal address is refused, and nothing is dialled', async (t) => {
  const server = await production();
  await createTenant(server, 'acme');
  const before = internal.connections;
  for (const [what, origin, hidden] of internalTargets()) {
    const refused = await putProvider(server, { protocol: 'saml', metadataUrl: `${origin}/metadata.xml` });
    t.equal(refused.status, 400, what);
    t.match(
      refused.body,
      { detail: 'The metadata URL cannot be read: address refused', errors: [{ field: '/metadataUrl', message: 'address refused' }] },
      what,
    );
    t.notMatch(refused.text, SECRET, `${what}: nothing fetched is echoed`);
    for (const address of hidden) t.notOk(refused.text.includes(address), `${what}: ${address} is not named`);
  }
  t.equal(internal.connections, before, 'the internal service was never connected to');
  await server.api.get('/api/v1/admin/tenants/acme/identity-provider', { token: await adminToken(server), expect: 404 });
});

t.test('an OpenID Connect issuer or discoveryUrl at an internal address is refused, and nothing is dialled', async (t) => {
  const server = await production();
  await createTenant(server, 'acme');
  const before = internal.connections;
  for (const [what, origin, hidden] of internalTargets()) {
    const oidc = { clientId: 'client', clientSecret: 'secret' };
    for (const [how, settings] of [
      ['issuer', { ...oidc, issuer: origin }],
      ['discoveryUrl', { ...oidc, issuer: 'https://login.example.com', discoveryUrl: `${origin}/.well-known/openid-configuration` }],
    ] as const) {
      const refused = await putProvider(server, { protocol: 'oidc', oidc: settings });
      t.equal(refused.status, 400, `${what} as the ${how}`);
      t.match(refused.body.errors, [{ field: '/oidc/discoveryUrl', message: /failed: address refused$/ }], `${what} as the ${how}`);
      t.notMatch(refused.text, SECRET, `${what} as the ${how}: nothing fetched is echoed`);
      for (const address of hidden) t.notOk(refused.text.includes(address), `${what} as the ${how}: ${address} is not named`);
    }
  }
  t.equal(internal.connections, before, 'the internal service was never connected to');
});

t.test('with ALLOW_INSECURE_IDP loopback opens, and nothing else does', async (t) => {
  const server = await insecure();
  await createTenant(server, 'acme');
  const idp = await TestSamlIdp.create('loopback-idp');
  const origin = await startHttp(t, {
    '/metadata.xml': (res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(idp.metadataXml()),
  });
  const stored = await putProvider(server, { protocol: 'saml', metadataUrl: `${origin}/metadata.xml` });
  t.equal(stored.status, 200, 'metadata from a provider on 127.0.0.1 is read');
  t.equal(stored.body.saml.entityId, idp.entityId);
  for (const metadataUrl of [
    'https://10.0.0.1/m.xml',
    'https://corp.idp.test/m.xml',
    'https://[::127.0.0.1]/m.xml',
    'https://169.254.169.254/m.xml',
  ]) {
    const refused = await putProvider(server, { protocol: 'saml', metadataUrl });
    t.match(refused, { status: 400, body: { errors: [{ field: '/metadataUrl', message: 'address refused' }] } }, metadataUrl);
  }
  const oidc = await putProvider(server, { protocol: 'oidc', oidc: { issuer: 'https://corp.idp.test', clientId: 'c', clientSecret: 's' } });
  t.match(
    oidc,
    { status: 400, body: { errors: [{ field: '/oidc/discoveryUrl', message: /address refused$/ }] } },
    'an issuer named into 10/8',
  );
});

t.test('a document over 1 MiB is refused; a failed or redirected answer is reported by its status only', async (t) => {
  const server = await insecure();
  await createTenant(server, 'acme');
  const idp = await TestSamlIdp.create('big-idp');
  // Well-formed metadata, padded past the cap with a comment: only the size can refuse it.
  const big = idp.metadataXml().replace('<md:IDPSSODescriptor', `<!-- ${'x'.repeat(1024 * 1024)} --><md:IDPSSODescriptor`);
  let origin = '';
  origin = await startHttp(t, {
    '/big.xml': (res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(big),
    '/chunked.xml': (res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      for (let i = 0; i < 20; i++) res.write('x'.repeat(64 * 1024));
      res.end();
    },
    '/fails.xml': (res) => {
      res.statusMessage = `Secret Status ${SECRET}`;
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`stack trace of ${SECRET}`);
    },
    '/moved.xml': (res) => res.writeHead(302, { location: `${origin}/big.xml` }).end(SECRET),
    '/oidc/.well-known/openid-configuration': (res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ issuer: `${origin}/oidc`, padding: 'x'.repeat(1024 * 1024) })),
  });
  t.ok(Buffer.byteLength(big) > 1024 * 1024);
  for (const [path, message] of [
    ['/big.xml', 'the document is larger than 1 MiB'],
    ['/chunked.xml', 'the document is larger than 1 MiB'],
    ['/fails.xml', 'it answered HTTP 500'],
    ['/moved.xml', 'it answered with a redirect, which is not followed'],
  ] as const) {
    const refused = await putProvider(server, { protocol: 'saml', metadataUrl: `${origin}${path}` });
    t.match(refused, { status: 400, body: { errors: [{ field: '/metadataUrl', message }] } }, path);
    t.notMatch(refused.text, SECRET, `${path}: neither body nor status text is echoed`);
  }
  const oidc = await putProvider(server, { protocol: 'oidc', oidc: { issuer: `${origin}/oidc`, clientId: 'c', clientSecret: 's' } });
  t.match(oidc, {
    status: 400,
    body: { errors: [{ field: '/oidc/discoveryUrl', message: /failed: the document is larger than 1 MiB$/ }] },
  });
  t.notOk(oidc.text.includes('xxxxxxxx'), 'no part of the document is echoed');
});

t.test('the providers’ client gives up at its time-out and says only that there was no answer', async (t) => {
  await insecure(); // unused here: the client is built as provider-fetch.ts builds it, with a short time-out
  // Reads the request (so that it sees the client hang up) and never answers.
  const silent = net.createServer((socket) => socket.resume());
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  t.teardown(() => new Promise<void>((resolve) => silent.close(() => resolve())));
  const client = createOutboundClient({
    allowLoopback: true,
    allowHttp: true,
    resolve: createNameResolver(null),
    userAgent: 'test',
    keepAlive: false,
  });
  const fetch = createPolicedFetch(client, { timeoutMs: 300, maxResponseBytes: 1024 });
  const started = Date.now();
  const error = await fetch(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/x`).catch((e: unknown) => e);
  t.ok(error instanceof OutboundError);
  t.match(error, { kind: 'timeout', message: 'no answer' });
  t.equal(providerFailure(error), 'the provider did not answer');
  t.ok(Date.now() - started < 5000, 'within the time-out, not the socket’s');
});
