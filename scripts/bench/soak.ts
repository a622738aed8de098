/**
 * `npm run bench -- load [--minutes N] [--concurrency C]`: a long mixed load on PostgreSQL. The server
 * runs as `node dist/src/main.js` in a process of its own (its in-process webhook worker on); this
 * process drives a realistic mix for N minutes (default 10) over loopback: product reads and writes
 * (each write an event delivered to an HTTPS webhook receiver here), GraphQL nested queries and
 * mutations (each new post pushed to 4 WebSocket subscribers), cursor pagination walks, SCIM reads and
 * writes. It reports throughput, p50/p99 per kind, errors, the events subscribers and the receiver got,
 * and the server's resident memory sampled every 10 s, with its growth from minute 2 to the end.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { signToken } from '../../src/auth/jwt.ts';
import { ensureDistBuilt, root } from '../../test/helpers/server-process.ts';
import { freePort } from '../lib/free-port.ts';
import { serverCertificate, testCa } from '../../test/helpers/webhook-receiver.ts';
import { startPostgres } from './databases.ts';

const JWT_SECRET = 'soak-jwt-secret-0123456789abcdefghijklmnop';

interface Kind {
  name: string;
  weight: number;
  run(): Promise<void>;
}

interface Tally {
  latencies: number[];
  errors: number;
  lastError: string;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

export async function soak(options: { minutes: number; concurrency: number }): Promise<string> {
  ensureDistBuilt();
  const pg = await startPostgres();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-soak-'));
  const caFile = path.join(dataDir, 'ca.pem');
  fs.writeFileSync(caFile, (await testCa()).cert);

  // The webhook receiver: HTTPS on loopback, counting deliveries.
  let deliveries = 0;
  const receiver = https.createServer(await serverCertificate(['127.0.0.1', 'localhost']), (request, response) => {
    request.resume();
    request.on('end', () => {
      deliveries++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverPort = (receiver.address() as { port: number }).port;

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: pg.url('postgres'),
      NODE_ENV: 'development',
      LOG_LEVEL: 'error',
      AUTH_JWT_SECRET: JWT_SECRET,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: caFile,
      CREATE_USER_PER_ADDRESS: '100000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let waited = 0; ; waited += 200) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {
      // not yet
    }
    if (waited > 60_000) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 200));
  }

  const call = async (method: string, url: string, token: string | null, body?: unknown, type = 'application/json') => {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': type } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${method} ${url.split('?')[0]} → ${response.status} ${text.slice(0, 160)}`);
    return text ? JSON.parse(text) : null;
  };

  // The world: an operator, a signed-in user, a tenant with a SCIM token, a webhook endpoint, products.
  const admin = await signToken(JWT_SECRET, { sub: 'soak-operator', roles: ['ADMIN'] });
  const user = await call('POST', '/auth/local/register', null, {
    email: 'soak@example.org',
    password: 'a long soak passphrase 2026',
    username: 'soak_user',
    displayName: 'Soak User',
  });
  const userToken = user.token as string;
  await call('POST', '/api/v1/admin/tenants', admin, { id: 'soak', name: 'Soak' });
  const scimToken = (await call('POST', '/api/v1/admin/tenants/soak/scim-tokens', admin)).token as string;
  await call('POST', '/api/webhooks', admin, { url: `https://127.0.0.1:${receiverPort}/hook`, events: ['product.created'] });
  const productIds: string[] = [];
  let sku = 0;
  const createProduct = async () => {
    const created = await call('POST', '/api/v1/products', admin, {
      name: `Soak product ${sku}`,
      price: 12.5,
      sku: `SOAK-${sku++}`,
      category: 'HOME',
      stockQuantity: 100,
    });
    productIds.push(created.id as string);
  };
  for (let i = 0; i < 50; i++) await createProduct();
  const scimIds: string[] = [];
  let scimN = 0;
  const createScimUser = async () => {
    const created = await call(
      'POST',
      '/scim/v2/Users',
      scimToken,
      { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: `soak${scimN++}@soak.example` },
      'application/scim+json',
    );
    scimIds.push(created.id as string);
  };
  for (let i = 0; i < 20; i++) await createScimUser();
  let postN = 0;
  const createPost = () =>
    call('POST', '/graphql', userToken, {
      query: 'mutation($t: String!) { createPost(input: { title: $t, content: "soak", tags: ["soak"], status: PUBLISHED }) { id } }',
      variables: { t: `Soak post ${postN++}` },
    }).then((r) => {
      if (r.errors) throw new Error(`createPost: ${JSON.stringify(r.errors).slice(0, 160)}`);
    });
  for (let i = 0; i < 30; i++) await createPost();

  // Subscribers: each new post is pushed to every one.
  let pushed = 0;
  const subscribers = Array.from({ length: 4 }, () =>
    createClient({ url: `${base.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket }),
  );
  for (const client of subscribers) {
    client.subscribe(
      { query: 'subscription { postCreated { id title } }' },
      { next: () => pushed++, error: () => undefined, complete: () => undefined },
    );
  }
  await new Promise((r) => setTimeout(r, 500));
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;

  const kinds: Kind[] = [
    { name: 'product read (REST)', weight: 25, run: () => call('GET', `/api/v1/products/${pick(productIds)}`, null) },
    { name: 'product list (REST)', weight: 8, run: () => call('GET', '/api/v1/products?page=1&size=20', null) },
    { name: 'product write (REST, + webhook)', weight: 6, run: createProduct },
    {
      name: 'GraphQL nested query',
      weight: 20,
      run: async () => {
        const r = await call('POST', '/graphql', userToken, {
          query:
            '{ users(size: 5) { content { id username posts(size: 3) { content { id title comments(size: 2) { content { id } } } } } } }',
        });
        if (r.errors) throw new Error(`users: ${JSON.stringify(r.errors).slice(0, 160)}`);
      },
    },
    { name: 'GraphQL mutation (+ 4 subscribers)', weight: 6, run: createPost },
    {
      name: 'pagination walk (3 pages)',
      weight: 10,
      run: async () => {
        let page = await call('GET', '/posts?limit=20', null);
        for (let i = 0; i < 2 && page.pagination?.cursor; i++) {
          page = await call('GET', `/posts?limit=20&cursor=${encodeURIComponent(page.pagination.cursor as string)}`, null);
        }
      },
    },
    { name: 'SCIM read', weight: 10, run: () => call('GET', `/scim/v2/Users/${pick(scimIds)}`, scimToken) },
    { name: 'SCIM filter', weight: 6, run: () => call('GET', '/scim/v2/Users?filter=userName%20sw%20%22soak1%22&count=20', scimToken) },
    { name: 'SCIM write', weight: 4, run: createScimUser },
  ];
  const total = kinds.reduce((n, k) => n + k.weight, 0);
  const tallies = new Map<string, Tally>(kinds.map((k) => [k.name, { latencies: [], errors: 0, lastError: '' }]));
  const choose = () => {
    let r = Math.random() * total;
    for (const kind of kinds) if ((r -= kind.weight) < 0) return kind;
    return kinds[0]!;
  };

  const memory: { at: number; rss: number }[] = [];
  const started = Date.now();
  const end = started + options.minutes * 60_000;
  const sampler = setInterval(() => memory.push({ at: (Date.now() - started) / 1000, rss: rssMiB(server.pid!) }), 10_000);
  const productsBefore = sku;
  const postsBefore = postN;
  const workers = Array.from({ length: options.concurrency }, async () => {
    while (Date.now() < end) {
      const kind = choose();
      const tally = tallies.get(kind.name)!;
      const t0 = performance.now();
      try {
        await kind.run();
        tally.latencies.push(performance.now() - t0);
      } catch (error) {
        tally.errors++;
        tally.lastError = (error as Error).message;
      }
    }
  });
  await Promise.all(workers);
  clearInterval(sampler);
  const elapsed = (Date.now() - started) / 1000;
  // Deliveries and pushes still in flight get a moment to arrive.
  const expectedDeliveries = sku;
  const expectedPushes = (postN - postsBefore) * subscribers.length;
  for (let waited = 0; (deliveries < expectedDeliveries || pushed < expectedPushes) && waited < 30_000; waited += 250) {
    await new Promise((r) => setTimeout(r, 250));
  }
  await Promise.all(subscribers.map(async (c) => c.dispose()));
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  receiver.close();
  await pg.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });

  const rows = kinds.map((kind) => {
    const tally = tallies.get(kind.name)!;
    const sorted = [...tally.latencies].sort((a, b) => a - b);
    return `| ${kind.name} | ${sorted.length} | ${(sorted.length / elapsed).toFixed(1)} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ${tally.errors}${tally.errors ? ` (${tally.lastError.slice(0, 80)})` : ''} |`;
  });
  const all = [...tallies.values()];
  const requests = all.reduce((n, t) => n + t.latencies.length, 0);
  const errors = all.reduce((n, t) => n + t.errors, 0);
  // One sample lands wherever the collector happens to be; the median of a minute's six does not.
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;
  const minute2 = median(memory.filter((m) => m.at >= 120 && m.at < 180).map((m) => m.rss));
  const lastMinute = median(memory.filter((m) => m.at > (memory.at(-1)?.at ?? 0) - 60).map((m) => m.rss));
  const growth = minute2 ? ((lastMinute - minute2) / minute2) * 100 : 0;
  const first = memory.find((m) => m.at >= 120)?.rss ?? 0;
  const last = memory.at(-1)?.rss ?? 0;
  return [
    `${options.minutes} min on PostgreSQL ${pg.version}, ${options.concurrency} concurrent clients, 4 WebSocket subscribers, 1 webhook receiver; ` +
      `${requests} requests in ${elapsed.toFixed(0)} s (${(requests / elapsed).toFixed(0)}/s), ${errors} errors`,
    '',
    '| kind | requests | per s | p50 ms | p99 ms | errors |',
    '|---|---:|---:|---:|---:|---|',
    ...rows,
    '',
    `Webhook deliveries received: ${deliveries} of ${expectedDeliveries} product.created events (${productsBefore} before the load). ` +
      `Subscription events received: ${pushed} of ${expectedPushes} (${postsBefore} posts before the load, 4 subscribers).`,
    '',
    `Server resident memory (MiB), every 10 s: ${memory.map((m) => m.rss.toFixed(0)).join(' ')}`,
    `Median of minute 2 ${minute2.toFixed(0)} MiB, of the last minute ${lastMinute.toFixed(0)} MiB: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} % ` +
      `(target: under 10 %); single samples, first of minute 2 to last: ${first.toFixed(0)} → ${last.toFixed(0)} MiB.`,
  ].join('\n');
}
