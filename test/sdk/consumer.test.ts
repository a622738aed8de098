// test-suite: once (the SDK and its compile do not depend on the database).
/**
 * The SDK as a frontend team meets it: a scratch project outside the repository depends on the
 * package by name (`schemaforge/sdk`, package.json `exports`), type-checks under `strict` with a
 * plain `tsc` (no tsx, no `allowImportingTsExtensions`), and its compiled JavaScript calls the live
 * server: REST (a product created by an admin, a typed page of products, a Problem Details error),
 * local registration, a GraphQL mutation with a bearer token and the `postCreated` subscription.
 * The `@ts-expect-error` lines fail the compile unless the SDK's types refuse what they should.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';

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
} from 'schemaforge/sdk';
import WebSocket from 'ws';

type Product = RestV1Components['schemas']['ProductResponse'];

const [baseUrl, adminToken] = process.argv.slice(2) as [string, string];

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
await graphql.dispose();

console.log(JSON.stringify({ productSku: product.sku, names, problem, postId, eventTitle: event?.value.postCreated.title, eventPostId: event?.value.postCreated.id, refused }));
`;

function link(target: string, at: string): void {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at, 'dir');
}

t.test('a scratch consumer project imports schemaforge/sdk, type-checks with plain tsc and calls the live server', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-consumer-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  // The package as an installed dependency would be: a folder under node_modules with its own
  // package.json; its dependencies resolve from its real location, as npm would lay them out.
  link(root, path.join(dir, 'node_modules/schemaforge'));
  for (const dep of ['ws', '@types/ws', '@types/node']) link(path.join(root, 'node_modules', dep), path.join(dir, 'node_modules', dep));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM'],
        types: ['node'],
        outDir: 'dist',
      },
      include: ['src'],
    }),
  );
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src/main.ts'), CONSUMER);

  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const compiled = await run(process.execPath, [tsc, '-p', dir]).catch((error: { stdout: string }) => error);
  t.equal(compiled.stdout, '', 'tsc reports nothing');
  t.ok(fs.existsSync(path.join(dir, 'dist/main.js')), 'tsc emitted the consumer');

  const server = await sharedServer();
  const adminToken = await server.token('00000000-0000-4000-8000-0000000000ad', ['ADMIN']);
  const { stdout } = await run(process.execPath, [path.join(dir, 'dist/main.js'), server.baseUrl, adminToken], { cwd: dir });
  const result = JSON.parse(stdout) as Record<string, any>;
  t.equal(result.productSku, 'SDK-001');
  t.same(result.names, ['SDK lamp']);
  t.same(result.problem, { status: 404, title: 'Not found' });
  t.match(result.postId, /^\d+$/);
  t.equal(result.eventPostId !== undefined, true, 'the subscription delivered a postCreated event');
  t.match(result.eventTitle, /^From the SDK \d+$/);
  t.equal(result.refused, 'BAD_REQUEST', 'a GraphQL error reaches the caller as GraphqlRequestError with its errorType');
});
