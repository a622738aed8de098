/**
 * `npm run fuzz -- [--requests N] [--seed S] [--concurrency C]`: the suite's fuzz run (test/foundation/
 * fuzz.test.ts), as long as you like, against a server started here on loopback over the database
 * DATABASE_URL names (in-memory PGlite when unset). Prints the request count, the statuses and every
 * kind of failure with an example; exits 1 on any 5xx, hang or answer the documents do not promise.
 * A seed reproduces its requests exactly.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { signToken } from '../src/auth/jwt.ts';
import { loadConfig } from '../src/config.ts';
import { createServer } from '../src/server.ts';
import { describeFailures, runFuzz, summaryLines } from './fuzz/run.ts';
import { fuzzDocuments, prepareFuzzWorld } from './fuzz/world.ts';
import { fuzzWebSocket } from './fuzz/ws-messages.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
  },
});
const requests = Number(values.requests);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(seed) || !Number.isInteger(concurrency) || concurrency < 1) {
  console.error('usage: npm run fuzz -- [--requests N] [--seed S] [--concurrency C]   (positive integers)');
  process.exit(2);
}

const secret = randomBytes(32).toString('base64url');
const config = loadConfig({
  NODE_ENV: 'test',
  AUTH_JWT_SECRET: secret,
  DATABASE_URL: process.env.DATABASE_URL || 'memory:',
  LOG_LEVEL: 'silent',
  WEBHOOK_WORKER: 'off',
});
const server = await createServer(config);
await server.app.http.listen({ port: 0, host: '127.0.0.1' });
const address = server.app.http.server.address();
const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
console.log(`fuzzing ${baseUrl} (${config.database.kind}): ${requests} requests, seed ${seed}, ${concurrency} at a time`);
try {
  const world = await prepareFuzzWorld(server.app, (sub, roles) => signToken(secret, { sub, roles }));
  const result = await runFuzz({ baseUrl, ...fuzzDocuments(), ...world }, { requests, seed, concurrency });
  for (const line of summaryLines(result)) console.log(line);
  if (result.failures.length) {
    console.log(describeFailures(result.failures, 100));
    process.exitCode = 1;
  }
  const ws = await fuzzWebSocket(baseUrl, { connections: Math.max(50, Math.round(requests / 25)), seed, concurrency });
  console.log(
    `fuzz (graphql-ws): ${ws.connections} connections, ${ws.frames} frames; close codes ${JSON.stringify(ws.closeCodes)}; ${ws.failures.length} failures`,
  );
  for (const failure of ws.failures.slice(0, 20)) console.log(`  ${failure}`);
  if (ws.failures.length) process.exitCode = 1;
  const health = await fetch(`${baseUrl}/healthz`);
  console.log(`afterwards: /healthz ${health.status}`);
  if (!health.ok) process.exitCode = 1;
} finally {
  await server.close();
}
