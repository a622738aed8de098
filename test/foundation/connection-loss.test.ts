// test-suite: postgres-only (it ends the server's connections; the file skips on PGlite)
/**
 * PostgreSQL ends connections the application holds (a restart, an operator's pg_terminate_backend,
 * a proxy's idle timeout, DROP DATABASE ... WITH (FORCE) in our own test teardown). The server must
 * stay up: the pool replaces the lost connections, and the LISTEN connection behind subscriptions
 * reconnects.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import t from 'tap';
import { onPostgres } from '../helpers/database.ts';
import { sharedServer } from '../helpers/server.ts';
import { gql, seed } from '../graphql/gql.ts';
import { primed, record, wsClient } from '../graphql/ws-client.ts';

async function terminateOtherConnections(url: string): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      'select count(*) filter (where pg_terminate_backend(pid)) as ended from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return Number(rows[0].ended);
  } finally {
    await admin.end();
  }
}

t.test(
  'the server outlives the database ending its connections',
  { skip: onPostgres ? false : 'needs PostgreSQL: PGlite runs in process and has no connections to lose (run `npm run test:suite`)' },
  async (t) => {
    const server = await sharedServer();
    if (server.config.database.kind !== 'postgres') throw new Error('unreachable');
    const lost: Error[] = [];
    server.database.onConnectionError((error) => lost.push(error));

    const alice = await seed(server).user('alice');
    const token = await server.token(alice.id);
    const createPost = (title: string) =>
      gql(
        server,
        'mutation($t: String!) { createPost(input: { title: $t, content: "c", status: PUBLISHED }) { id } }',
        { t: title },
        token,
      );
    const posts = record(wsClient(t, server.baseUrl), 'subscription { postCreated { title } }');
    await primed(posts, () => createPost('probe'));
    // Several idle connections in the pool, so the server ends some that nobody is using.
    await Promise.all(Array.from({ length: 4 }, () => server.api.get('/api/v1/products', { expect: 200 })));

    const idle = server.database.pool!.idleCount;
    const ended = await terminateOtherConnections(server.config.database.url);
    t.ok(ended >= 2, `the server ended ${ended} connections (pooled and LISTEN)`);
    // Each idle connection learns of its end when its socket says so; until then the pool could
    // still hand it out. Wait until every one has been reported (and dropped by the pool).
    for (let waited = 0; lost.length < idle && waited < 5000; waited += 50) await sleep(50);
    t.equal(lost.length, idle, `the loss of each of the ${idle} idle pooled connections is reported, not thrown`);
    t.match(lost[0]!.message, /terminating connection/);

    await server.api.get('/api/v1/products', { expect: 200 });
    t.equal((await createPost('after')).body.data.createPost !== null, true, 'writes work again');

    // Events published while the LISTEN connection was down are lost (NOTIFY is not queued for a
    // listener that is gone); the listener reconnects after a second and delivers from then on.
    const before = posts.results.length;
    for (let attempt = 0; posts.results.length === before && attempt < 50; attempt++) {
      await createPost(`again ${attempt}`);
      await sleep(200);
    }
    t.ok(posts.results.length > before, 'the subscription receives new posts after the listener reconnects');
    t.match(posts.results.at(-1), { data: { postCreated: { title: /^again / } } });
  },
);

t.test(
  'a connection ended while a transaction holds it fails that transaction only, and the server stays up',
  { skip: onPostgres ? false : 'needs PostgreSQL: PGlite runs in process and has no connections to lose (run `npm run test:suite`)' },
  async (t) => {
    const server = await sharedServer();
    if (server.config.database.kind !== 'postgres') throw new Error('unreachable');
    // Checked out of the pool and idle between two statements: node-postgres emits the end on the
    // client itself, which stopped the process when nothing listened (a PostgreSQL restart did).
    const transaction = server.database.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await sleep(500);
      await sql`select 2`.execute(trx);
    });
    await sleep(100);
    t.ok((await terminateOtherConnections(server.config.database.url)) >= 1, 'the transaction’s connection was ended');
    await t.rejects(transaction, 'the transaction fails');
    await server.api.get('/api/v1/products', { expect: 200 });
  },
);
