// test-suite: once (the SDK and its compile do not depend on the database).
/**
 * The SDK as a frontend team meets it: `npm pack` of packages/sdk, installed by npm into a scratch
 * project outside the repository (from a registry on loopback that serves the project's own
 * node_modules: test/helpers/local-registry.ts), with at most 10 packages and 5 MB, no warning, and
 * only the files of its allow-list. The scratch project writes its own operation with
 * graphql-codegen's client preset over the SDK's exported schema (the setup packages/sdk/README.md
 * documents, run by the real `graphql-codegen` CLI), type-checks under `strict` with a plain `tsc`
 * (NodeNext: no tsx, no `allowImportingTsExtensions`), and its compiled JavaScript calls the live
 * server: REST (a product created by an admin, a typed page of products, a Problem Details error),
 * local registration, a GraphQL mutation with a bearer token, its own client-preset query, the
 * `postCreated` subscription, and `verifyWebhook` on a signature made as the server makes it, its event
 * handled by an exhaustive `switch` over the catalog's event types (src/events.ts; the same file
 * without one case does not compile, and the error names the type) and `parseEvent`. The
 * SDK's `schemaforge-check-operations` bin passes the consumer's operation with its cost.
 * The `@ts-expect-error` lines fail the compile unless the SDK's types refuse what they should.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { localRegistry, npmEnvironment } from '../helpers/local-registry.ts';
import { sharedServer } from '../helpers/server.ts';
import { TSC } from '../../scripts/tsc.ts';
import { signatureHeader } from '../../src/webhooks/signature.ts';
import { buildGraphQLSchema } from '../../src/graphql/schema.ts';
import { registerDocuments } from '../../src/graphql/trusted/registration.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

const CONSUMER = `import {
  createAuthClient,
  createGraphqlClient,
  createRestV1Client,
  CreatePostDocument,
  GraphqlRequestError,
  OnPostCreatedDocument,
  type RestV1Components,
} from '@schemaforge/sdk';
import { parseEvent, verifyWebhook } from '@schemaforge/sdk/webhooks';
import WebSocket from 'ws';
import { describeEvent } from './events.js';
import { graphql as gql } from './gql/index.js';

// The consumer's own operation, typed by graphql-codegen's client preset from the SDK's schema.
const PostWithAuthor = gql(\`
  query PostWithAuthor($id: ID!) {
    post(id: $id) { id title slug author { username } }
  }
\`);

type Product = RestV1Components['schemas']['ProductResponse'];

const [baseUrl, adminToken, webhookBody, webhookSignature, webhookTimestamp] = process.argv.slice(2) as [string, string, string, string, string];

const v1 = createRestV1Client({ baseUrl, headers: { authorization: \`Bearer \${adminToken}\` } });
// stockQuantity is defaulted by the server, so the request may leave it out.
const created = await v1.POST('/api/v1/products', {
  body: { sku: 'SDK-001', name: 'SDK lamp', price: 19.5, category: 'HOME' },
});
if (!created.data) throw new Error(\`create failed: \${created.response.status}\`);
const product: Product = created.data;

const page = await v1.GET('/api/v1/products', { params: { query: { size: 5, sort: ['name,asc'] } } });
// JSON is the typed body of a listing (no string union from the XML and CSV variants).
const names: string[] = page.data ? page.data.content.map((p) => p.name) : [];

const missing = await v1.GET('/api/v1/products/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
const problem = missing.error ? { status: missing.error.status, title: missing.error.title } : null;

// @ts-expect-error: an undocumented path does not compile
await v1.GET('/api/v1/no-such-path');
// @ts-expect-error: a category outside the enum does not compile
await v1.POST('/api/v1/products', { body: { sku: 'X-1', name: 'x', price: 1, category: 'WEAPONS' } });

const auth = createAuthClient({ baseUrl });
const registered = await auth.POST('/auth/local/register', {
  body: { email: 'sdk@example.com', password: 'correct horse battery', username: 'sdkuser', displayName: 'SDK User' },
});
// 201 signs in; 202 (an address in a domain a tenant verified) waits for the mailed code first.
if (!registered.data || !('token' in registered.data)) throw new Error(\`register failed: \${JSON.stringify(registered.error ?? registered.data)}\`);
const token: string = registered.data.token;

const graphql = createGraphqlClient({ url: \`\${baseUrl}/graphql\`, token, webSocketImpl: WebSocket });
const events = graphql.subscribe(OnPostCreatedDocument, { authorId: registered.data.user.id });
const firstEvent = events.next();
// The subscription is live once the server acknowledged it; publish until the event arrives.
let postId = '';
let event: IteratorResult<{ postCreated: { id: string; title: string } }> | undefined;
for (let attempt = 0; attempt < 50 && !event; attempt++) {
  const post = await graphql.request(CreatePostDocument, {
    input: { title: \`From the SDK \${attempt}\`, content: 'Typed end to end.', status: 'PUBLISHED' },
  });
  postId = post.createPost.id;
  event = await Promise.race([firstEvent, new Promise<undefined>((resolve) => setTimeout(resolve, 100))]);
}
await events.return?.();

let refused: string | undefined;
try {
  // @ts-expect-error: the input's required content is missing
  await graphql.request(CreatePostDocument, { input: { title: 'no content' } });
} catch (error) {
  if (error instanceof GraphqlRequestError) refused = error.errors[0]?.extensions?.errorType;
}
const own = await graphql.request(PostWithAuthor, { id: postId });
const slug: string | undefined = own.post?.slug;
const author: string | undefined = own.post?.author.username;
// @ts-expect-error: the client preset typed the variables: id is required
await graphql.request(PostWithAuthor, {}).catch(() => undefined);
// The same document by its id only (trusted documents), as the client preset's hash names it.
const sent: string[] = [];
const persisted = createGraphqlClient({
  url: \`\${baseUrl}/graphql\`,
  token,
  persistedDocuments: true,
  fetch: (input, init) => {
    sent.push(String(init?.body));
    return fetch(input, init);
  },
});
const byId = await persisted.request(PostWithAuthor, { id: postId });
const sentById = sent.length === 1 && 'documentId' in JSON.parse(sent[0]!) && !('query' in JSON.parse(sent[0]!));
await graphql.dispose();

const verified = verifyWebhook(
  webhookBody,
  { 'X-Webhook-Id': 'evt_1', 'X-Webhook-Timestamp': webhookTimestamp, 'X-Webhook-Signature': webhookSignature },
  'whsec_consumer-secret-for-the-sdk-test-000',
);
const webhook = verified.ok ? describeEvent(verified.event) : verified.reason;
const parsed = describeEvent(parseEvent(webhookBody));

console.log(JSON.stringify({ productSku: product.sku, names, problem, postId, eventTitle: event?.value.postCreated.title, eventPostId: event?.value.postCreated.id, refused, slug, author, webhook, parsed, byIdTitle: byId.post?.title, sentById }));
`;

/**
 * A receiver's handling of every event type, narrowed by \`type\`: it compiles only while every type of
 * the catalog has its case (the \`never\` default), one case a line so the test can drop one.
 */
const EVENTS = `import type { ThinWebhookEvent, WebhookEvent } from '@schemaforge/sdk/webhooks';

export function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'order.created': return \`created \${event.data.object.id} \${event.data.object.status}\`;
    case 'order.updated': return \`updated \${event.data.object.id} \${event.data.object.version}\`;
    case 'order.shipped': return \`shipped \${event.data.object.id} \${event.data.object.trackingNumber}\`;
    case 'order.delivered': return \`delivered \${event.data.object.id} \${event.data.object.deliveredAt}\`;
    case 'order.cancelled': return \`cancelled \${event.data.object.id} \${String(event.data.previous_attributes?.status)}\`;
    case 'product.created': return \`new product \${event.data.object.sku}\`;
    case 'product.updated': return \`product \${event.data.object.sku} at \${event.data.object.price}\`;
    case 'product.deleted': return \`product \${event.data.object.sku} gone\`;
    case 'user.created': return \`user \${event.data.object.username} joined \${event.data.object.tenantId}\`;
    case 'user.updated': return \`user \${event.data.object.id} changed\`;
    case 'user.deactivated': return \`user \${event.data.object.id} deactivated\`;
    case 'user.reactivated': return \`user \${event.data.object.id} reactivated\`;
    case 'user.deleted': return \`user \${event.data.object.id} deleted\`;
    case 'group.created': return \`group \${event.data.object.displayName}\`;
    case 'group.updated': return \`group \${event.data.object.displayName} renamed\`;
    case 'group.deleted': return \`group \${event.data.object.id} deleted\`;
    case 'group.member_added': return \`\${event.data.object.userId} joined \${event.data.object.groupDisplayName}\`;
    case 'group.member_removed': return \`\${event.data.object.userId} left \${event.data.object.groupId}\`;
    case 'identity_provider.activated': return \`\${event.tenant_id} signs in with \${event.data.object.protocol}\`;
    case 'identity_provider.updated': return \`\${event.data.object.tenantId} changed \${Object.keys(event.data.previous_attributes ?? {}).join(', ')}\`;
    case 'identity_provider.deleted': return \`\${event.data.object.tenantId} signs in with passwords again\`;
    case 'domain.verified': return \`\${event.data.object.domain} routes to \${event.data.object.tenantId}\`;
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

// The thin variant is its own union, discriminated the same way.
export function thinObject(event: ThinWebhookEvent): string {
  return event.type === 'order.shipped' ? \`order \${event.data.object_id}\` : \`\${event.data.object_type} \${event.data.object_id}\`;
}
`;

const CODEGEN = `import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'node_modules/@schemaforge/sdk/lib/schema.graphql',
  documents: ['src/**/*.ts', '!src/gql/**'],
  ignoreNoDocuments: true,
  generates: {
    './src/gql/': {
      preset: 'client',
      presetConfig: { persistedDocuments: true },
      config: { emitLegacyCommonJSImports: false, useTypeImports: true },
    },
  },
};
export default config;
`;

/** Every file under `dir`, with its size in bytes. */
function filesUnder(dir: string): { file: string; size: number }[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    if (!entry.isFile()) return [];
    const file = path.join(entry.parentPath, entry.name);
    return [{ file, size: fs.statSync(file).size }];
  });
}

function link(target: string, at: string): void {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at, 'dir');
}

t.test('the packed SDK installs small and clean, and a consumer project writes its own operations and calls the live server', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-consumer-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const npm = (args: string[]) =>
    run('npm', args, {
      cwd: dir,
      env: npmEnvironment({ npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }),
    });

  const [packed] = JSON.parse((await npm(['pack', path.join(root, 'packages/sdk'), '--pack-destination', dir, '--json'])).stdout) as {
    filename: string;
    files: { path: string }[];
  }[];
  const outside = packed!.files.map((f) => f.path).filter((f) => !/^(lib\/|README\.md$|package\.json$)/.test(f));
  t.same(outside, [], 'the tarball holds only lib/, README.md and package.json');
  t.ok(
    packed!.files.some((f) => f.path === 'lib/schema.graphql'),
    'the schema ships for consumers’ own operations',
  );

  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
  const registry = await localRegistry(t);
  const installed = await npm([
    'install',
    path.join(dir, packed!.filename),
    '--registry',
    registry.url,
    '--cache',
    path.join(dir, '.npm-cache'),
    '--ignore-scripts',
  ]);
  t.equal(`${installed.stderr}`.trim(), '', 'npm prints no warning (no engine warning, nothing deprecated)');
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  const packages = Object.keys(lock.packages).filter((key) => key !== '');
  t.ok(packages.length <= 10, `at most 10 packages installed: ${packages.map((p) => p.replace(/^node_modules\//, '')).join(', ')}`);
  const bytes = filesUnder(path.join(dir, 'node_modules')).reduce((sum, f) => sum + f.size, 0);
  t.ok(bytes <= 5 * 1024 * 1024, `at most 5 MB installed: ${(bytes / 1024 / 1024).toFixed(2)} MB`);

  // The consumer's own tools, beside the SDK: the WebSocket for Node 20, Node's types, and the
  // graphql-codegen CLI with its client preset (linked from this project: they are dev tools).
  for (const dep of ['ws', '@types/ws', '@types/node', '@graphql-codegen'])
    link(path.join(root, 'node_modules', dep), path.join(dir, 'node_modules', dep));
  // The tsconfig.json the SDK's README gives a consumer, as written there; with the SDK's own
  // declarations checked too (skipLibCheck off), which a consumer need not do.
  const readme = fs.readFileSync(path.join(root, 'packages/sdk/README.md'), 'utf8');
  const setup = /## TypeScript setup\n[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1];
  t.ok(setup, "the SDK's README shows a tsconfig.json under 'TypeScript setup'");
  const tsconfig = JSON.parse(setup ?? '{}') as { compilerOptions: Record<string, unknown> };
  t.equal(tsconfig.compilerOptions.rootDir, 'src', 'with the rootDir TypeScript 7 requires beside outDir');
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ ...tsconfig, compilerOptions: { ...tsconfig.compilerOptions, skipLibCheck: false } }),
  );
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src/main.ts'), CONSUMER);
  fs.writeFileSync(path.join(dir, 'codegen.ts'), CODEGEN);

  const codegen = await run(
    process.execPath,
    [path.join(root, 'node_modules/@graphql-codegen/cli/cjs/bin.js'), '--config', 'codegen.ts', '--silent'],
    {
      cwd: dir,
      env: npmEnvironment(),
    },
  ).catch((error: { stdout: string; stderr: string }) => error);
  t.equal(`${codegen.stderr}`.trim(), '', 'graphql-codegen reports nothing');
  const persisted = JSON.parse(fs.readFileSync(path.join(dir, 'src/gql/persisted-documents.json'), 'utf8')) as Record<string, string>;
  t.match(Object.values(persisted), [/^query PostWithAuthor\(\$id: ID!\)/], 'the client preset extracted the consumer’s operation');
  // The SDK's bin checks the consumer's operations against the server's limits (check-operations.test.ts
  // tests its refusals): installed on the PATH of npm scripts, run on the peer graphql.
  const checked = await run(path.join(dir, 'node_modules/.bin/schemaforge-check-operations'), ['--costs', 'src/**/*.ts', '!src/gql/**'], {
    cwd: dir,
  });
  t.equal(
    checked.stdout,
    '1 operation in 1 file within the limits (cost 200, depth 10, aliases 20): PostWithAuthor 2\n',
    'schemaforge-check-operations passes the consumer’s operation',
  );

  // The receiver's event handling (after the operations check, which counts the files it reads),
  // and the same receiver with the order.cancelled case missing, whose never default must name the
  // type: one compile of both (TypeScript 7, the release a new consumer installs: scripts/tsc.ts),
  // which still emits the consumer (no noEmitOnError), so the one error must be in the second file.
  fs.writeFileSync(path.join(dir, 'src/events.ts'), EVENTS);
  const cancelled = "    case 'order.cancelled':";
  t.equal(EVENTS.split(cancelled).length, 2, 'the receiver has one order.cancelled case');
  const missing = EVENTS.split('\n')
    .filter((line) => !line.startsWith(cancelled))
    .join('\n');
  fs.writeFileSync(path.join(dir, 'src/missing-case.ts'), missing);
  const compiled = await run(process.execPath, [TSC, '-p', dir]).then(
    () => ({ stdout: '(compiled)' }),
    (error: { stdout: string }) => error,
  );
  t.match(
    compiled.stdout,
    /src\/missing-case\.ts\(\d+,\d+\): error TS2322: Type '(OrderCancelledEvent|[^']*"order\.cancelled"[^']*)' is not assignable to type 'never'/,
    'a switch without the order.cancelled case does not compile, naming the type',
  );
  t.equal(compiled.stdout.trim().split('\n').length, 1, 'one error, in the file missing the case: the rest compiles, events.ts included');
  t.ok(fs.existsSync(path.join(dir, 'dist/main.js')), 'tsc emitted the consumer');
  fs.rmSync(path.join(dir, 'src/missing-case.ts'));

  const server = await sharedServer();
  // The server learns the consumer's documents as a deployment would register them.
  t.same(await registerDocuments(server.database.db, buildGraphQLSchema({}), persisted, 'consumer'), { added: 1, known: 0 });
  const adminToken = await server.token('00000000-0000-4000-8000-0000000000ad', ['ADMIN']);
  const body = JSON.stringify({ id: 'evt_1', type: 'order.created', data: { object: { id: 'o1', status: 'PENDING' } }, sequence: 1 });
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = signatureHeader(['whsec_consumer-secret-for-the-sdk-test-000'], timestamp, body);
  const { stdout } = await run(
    process.execPath,
    [path.join(dir, 'dist/main.js'), server.baseUrl, adminToken, body, signature, String(timestamp)],
    { cwd: dir },
  );
  const result = JSON.parse(stdout) as Record<string, any>;
  t.equal(result.productSku, 'SDK-001');
  t.same(result.names, ['SDK lamp']);
  t.same(result.problem, { status: 404, title: 'Not found' });
  t.match(result.postId, /^\d+$/);
  t.equal(result.eventPostId !== undefined, true, 'the subscription delivered a postCreated event');
  t.match(result.eventTitle, /^From the SDK \d+$/);
  t.equal(result.refused, 'BAD_REQUEST', 'a GraphQL error reaches the caller as GraphqlRequestError with its errorType');
  t.match(result.slug, /^from-the-sdk-\d+/, 'the consumer’s own client-preset query ran');
  t.equal(result.author, 'sdkuser');
  t.equal(result.webhook, 'created o1 PENDING', 'verifyWebhook accepted a signature made as the server makes it, typed by event type');
  t.equal(result.parsed, 'created o1 PENDING', 'parseEvent types a body verified elsewhere the same way');
  t.equal(result.sentById, true, 'persistedDocuments: true sent the documentId, not the text');
  t.match(result.byIdTitle, /^From the SDK \d+$/, 'the registered document ran by id');
});
