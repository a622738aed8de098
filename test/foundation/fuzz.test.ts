// test-suite: once (a contract fuzz of the HTTP surface; the long tier fuzzes both engines with new seeds)
/**
 * Schema-driven fuzzing (scripts/fuzz/): requests drawn from every OpenAPI document and from the
 * GraphQL schema, valid and hostile, as anonymous, USER, ADMIN and a SCIM client, with a fixed seed.
 * Every answer must be documented (status and body), never a 5xx, never over 10 s; the server must
 * still answer afterwards. graphql-ws connections get random message sequences too. `npm run fuzz -- --requests N --seed S` runs the same thing longer.
 */
import t from 'tap';
import { describeFailures, runFuzz, summaryLines } from '../../scripts/fuzz/run.ts';
import { fuzzDocuments, prepareFuzzWorld } from '../../scripts/fuzz/world.ts';
import { fuzzWebSocket } from '../../scripts/fuzz/ws-messages.ts';
import { runsFor, testSeed } from '../helpers/random.ts';
import { sharedServer } from '../helpers/server.ts';

// npm test: 2,500 requests; the long tier: 10,000 with a new seed, on each database.
const REQUESTS = runsFor(2500);
const SEED = testSeed;

t.test(`${REQUESTS} fuzz requests (seed ${SEED}): no 5xx, no hang, nothing undocumented`, async (t) => {
  const server = await sharedServer();
  const world = await prepareFuzzWorld(server.app, server.token);
  const result = await runFuzz({ baseUrl: server.baseUrl, ...fuzzDocuments(), ...world }, { requests: REQUESTS, seed: SEED });
  for (const line of summaryLines(result)) t.comment(line);
  t.equal(result.sent, REQUESTS);
  if (result.failures.length) t.comment(describeFailures(result.failures, 80));
  t.equal(result.failures.length, 0, 'every answer kept its promises');
  t.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200, 'the server still answers');
});

t.test(
  `200 graphql-ws connections fed random message sequences (seed ${SEED}): only protocol close codes, documented errors`,
  async (t) => {
    const server = await sharedServer();
    const result = await fuzzWebSocket(server.baseUrl, { connections: 200, seed: SEED });
    t.comment(
      `fuzz (graphql-ws): ${result.connections} connections, ${result.frames} frames; close codes ${JSON.stringify(result.closeCodes)}`,
    );
    t.same(result.failures.slice(0, 10), [], 'no connection saw anything but the protocol');
    t.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200, 'the server still answers');
  },
);
