// test-suite: once (errors raised before or around routing)
/**
 * Every error the framework raises itself, before or around routing, is Problem Details with a
 * documented type. Requests go over a raw socket where fetch would refuse to send them (broken
 * percent-encoding, oversized headers, bytes that are not HTTP, requests that never finish).
 */
import net from 'node:net';
import t, { type Test } from 'tap';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { sharedServer } from '../helpers/server.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/**
 * Sends `request` as is and reads until the server closes the connection (every case here ends with
 * the server closing it: `Connection: close`, or an error after which it drops the connection).
 */
function rawRequest(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const bodyText = rest.join('\r\n\r\n');
      if (!/^HTTP\/1\.1 \d{3} /.test(statusLine))
        return reject(new Error(`not an HTTP/1.1 response: ${JSON.stringify(text.slice(0, 200))}`));
      if (Number(headers['content-length']) !== Buffer.byteLength(bodyText))
        return reject(new Error(`Content-Length ${headers['content-length']} for ${Buffer.byteLength(bodyText)} bytes`));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(bodyText) });
    });
  });
}

const rest = loadOpenApiDocument('rest-v1');
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(rest, 'rest-v1');
const validProblem = ajv.getSchema('rest-v1#/components/schemas/Problem')!;
const documentedTypes = new Set(
  (rest.components.schemas.Problem['x-problem-types'] as { type: string; status: number }[]).map((p) => `${p.type} ${p.status}`),
);

t.test('framework-level errors are documented Problem Details', async (t) => {
  const server = await sharedServer({ env: { HTTP_REQUEST_TIMEOUT_MS: '500' } });
  const port = Number(new URL(server.baseUrl).port);
  const admin = await server.token('root', ['ADMIN']);

  function check(t: Test, r: RawResponse, status: number, type: string, instance?: string) {
    t.equal(r.status, status, 'status');
    t.match(r.headers['content-type'], /^application\/problem\+json/, 'content type');
    t.equal(r.body.type, type, 'problem type');
    t.equal(r.body.status, status, 'status in the body');
    if (instance !== undefined) t.equal(r.body.instance, instance, 'instance');
    t.ok(validProblem(r.body), `body is a Problem: ${ajv.errorsText(validProblem.errors)}`);
    t.ok(documentedTypes.has(`${type} ${status}`), `${type} ${status} is listed in components/problem.yaml (x-problem-types)`);
  }
  const get = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`;
  const post = (path: string, type: string, body: string, headers = '') =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`;

  t.test('broken percent-encoding in the path: 400, on a route and off any route', async (t) => {
    check(t, await rawRequest(port, get('/api/v1/products/%E0%A4%A')), 400, '/problems/malformed-request', '/api/v1/products/%E0%A4%25A');
    check(t, await rawRequest(port, get('/nowhere/%zz')), 400, '/problems/malformed-request');
  });

  t.test('a path segment over 255 characters: 414', async (t) => {
    check(t, await rawRequest(port, get(`/api/v1/products/${'a'.repeat(256)}`)), 414, '/problems/uri-too-long');
  });

  t.test('request line and headers over 16 KiB: 431 from the HTTP parser', async (t) => {
    check(
      t,
      await rawRequest(port, get('/api/v1/products', `X-Padding: ${'a'.repeat(20_000)}\r\n`)),
      431,
      '/problems/header-fields-too-large',
      '/api/v1/products',
    );
  });

  t.test('bytes that are not HTTP/1.1: 400 from the HTTP parser', async (t) => {
    check(t, await rawRequest(port, 'HELLO THERE\r\n\r\n'), 400, '/problems/malformed-request', 'about:blank');
    check(t, await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'), 400, '/problems/malformed-request');
  });

  t.test('a request that does not arrive in time: 408', async (t) => {
    const headersNeverEnd = await rawRequest(port, 'GET /api/v1/products HTTP/1.1\r\nHost: x\r\n');
    check(t, headersNeverEnd, 408, '/problems/request-timeout');
    const bodyNeverEnds = await rawRequest(
      port,
      post('/api/v1/products', 'application/json', '{"name":').replace(/Content-Length: \d+/, 'Content-Length: 500'),
    );
    check(t, bodyNeverEnds, 408, '/problems/request-timeout', '/api/v1/products');
  });

  t.test('body errors: too large 413, unsupported type 415, malformed or empty JSON 400', async (t) => {
    check(
      t,
      await rawRequest(port, post('/api/v1/products', 'application/json', JSON.stringify({ name: 'x'.repeat(1_100_000) }))),
      413,
      '/problems/payload-too-large',
    );
    check(
      t,
      await rawRequest(port, post('/api/v1/products', 'text/csv', 'name,price\r\nx,1\r\n')),
      415,
      '/problems/unsupported-media-type',
    );
    check(t, await rawRequest(port, post('/api/v1/products', 'application/json', '{"name": ')), 400, '/problems/malformed-json');
    check(t, await rawRequest(port, post('/api/v1/products', 'application/json', '')), 400, '/problems/malformed-json');
    check(
      t,
      await rawRequest(port, post('/api/v1/products', 'application/json', '{"__proto__": {"admin": true}}')),
      400,
      '/problems/malformed-json',
    );
  });

  t.test('routing: unknown route 404, wrong method 405', async (t) => {
    check(t, await rawRequest(port, get('/api/v1/nothing-here')), 404, '/problems/not-found', '/api/v1/nothing-here');
    const wrong = await rawRequest(port, `DELETE /api/v1/products HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    check(t, wrong, 405, '/problems/method-not-allowed');
    t.equal(wrong.headers.allow, 'GET, POST');
  });

  t.test('the server still answers normally afterwards', async (t) => {
    t.equal((await server.api.get('/healthz')).status, 200);
  });
});
