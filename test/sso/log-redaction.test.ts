/**
 * Sign-in URLs carry credentials in their query (an OpenID Connect callback's code and state): the
 * request log line shows the path with the query redacted under /auth/ and /saml/, and keeps it
 * elsewhere. Checked on the log lines a real server writes for real requests.
 */
import { Writable } from 'node:stream';
import t from 'tap';
import { loadConfig } from '../../src/config.ts';
import { createHttpServer, loggedRequest } from '../../src/http/http-server.ts';

t.test('the request serializer redacts sign-in queries only', async (t) => {
  const request = (url: string) => ({ url, method: 'GET', host: '127.0.0.1', ip: '127.0.0.1', socket: { remotePort: 1 } }) as never;
  t.equal(loggedRequest(request('/auth/oidc/acme/callback?code=SECRET&state=S')).url, '/auth/oidc/acme/callback?[redacted]');
  t.equal(loggedRequest(request('/saml/metadata/acme?x=1')).url, '/saml/metadata/acme?[redacted]');
  t.equal(loggedRequest(request('/auth/session')).url, '/auth/session');
  t.equal(loggedRequest(request('/api/v1/products?page=2')).url, '/api/v1/products?page=2');
});

t.test('a server at level info never writes the code or state of a callback', async (t) => {
  const lines: string[] = [];
  const app = createHttpServer({ ...loadConfig({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }) });
  // Fastify's logger takes its stream at construction; swap the destination of the built pino instance.
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = app.log as unknown as { [key: symbol]: unknown };
  const streamSymbol = Object.getOwnPropertySymbols(logger).find((s) => s.description === 'pino.stream');
  if (!streamSymbol) throw new Error('pino keeps its stream under Symbol(pino.stream)');
  logger[streamSymbol] = stream;
  app.get('/auth/oidc/:tenant/callback', async () => ({ ok: true }));
  await app.ready();
  await app.inject({ method: 'GET', url: '/auth/oidc/acme/callback?code=THE-CODE&state=THE-STATE' });
  await app.close();
  const log = lines.join('');
  t.match(log, '/auth/oidc/acme/callback?[redacted]', 'the request is logged');
  t.notMatch(log, 'THE-CODE');
  t.notMatch(log, 'THE-STATE');
});

t.test('one access line per request at info: method, url, status, time and request id', async (t) => {
  const lines: string[] = [];
  const app = createHttpServer({ ...loadConfig({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }) });
  const logger = app.log as unknown as { [key: symbol]: unknown };
  const streamSymbol = Object.getOwnPropertySymbols(logger).find((s) => s.description === 'pino.stream')!;
  logger[streamSymbol] = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  app.get('/things/:id', async (_request, reply) => reply.code(202).send({ ok: true }));
  await app.ready();
  await app.inject({ method: 'GET', url: '/things/7?x=1', headers: { 'x-request-id': 'req-42' } });
  await app.close();
  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.reqId === 'req-42');
  t.equal(entries.length, 1, 'one line, not an "incoming request" and a "request completed"');
  t.match(entries[0], {
    level: 30,
    msg: 'request completed',
    req: { method: 'GET', url: '/things/7?x=1' },
    res: { statusCode: 202 },
    responseTime: Number,
  });
});
