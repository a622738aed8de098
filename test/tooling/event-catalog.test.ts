/**
 * The webhook event catalog is the `webhooks` section of openapi/webhooks.yaml
 * (scripts/generate/event-catalog.ts): the committed generated/openapi/webhooks.events.ts says what
 * the published document says, each entry names who receives it and the operations that emit it,
 * and an entry without `x-audience`, naming an operation its document does not have, named other
 * than `<resource>.<action>` or without an example is refused, one line each. In a scratch copy of
 * the project, an entry taken out of the catalog makes `npm run generate`'s typecheck name the code
 * that still publishes it (src/orders/order-events.ts): no area can publish a type the catalog does
 * not declare.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildSchema } from 'graphql';
import t from 'tap';
import { bundleDocument } from '../../scripts/generate/openapi.ts';
import { eventCatalog, eventCatalogModule } from '../../scripts/generate/event-catalog.ts';
import { SpecError } from '../../scripts/generate/spec-error.ts';
import { TSC } from '../../scripts/tsc.ts';
import { EVENT_AUDIENCE, EVENT_EMITTED_BY, EVENT_TYPES } from '../../generated/openapi/webhooks.events.ts';
import { scratchProject } from '../helpers/scratch-project.ts';

type Json = Record<string, any>;

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const FILE = 'openapi/webhooks.yaml';

/** The other published documents, as generate hands them to the catalog check. */
const documents: Record<string, Json> = Object.fromEntries(
  fs
    .readdirSync(path.join(root, 'generated/openapi'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f.slice(0, -'.json'.length), JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi', f), 'utf8')) as Json]),
);
const mutations = new Set(
  Object.keys(
    buildSchema(fs.readFileSync(path.join(root, 'generated/graphql/schema.graphql'), 'utf8'))
      .getMutationType()
      ?.getFields() ?? {},
  ),
);

function refusal(check: () => unknown): string {
  try {
    check();
  } catch (error) {
    if (error instanceof SpecError) return error.message;
    throw error;
  }
  return '(not refused)';
}

t.test('the committed module is what the catalog declares', async (t) => {
  const doc = await bundleDocument(path.join(root, FILE), root);
  const entries = eventCatalog(doc, FILE, documents, mutations)!;
  t.equal(
    eventCatalogModule(entries, FILE),
    fs.readFileSync(path.join(root, 'generated/openapi/webhooks.events.ts'), 'utf8'),
    'generated/openapi/webhooks.events.ts',
  );
  t.same([...EVENT_TYPES], Object.keys(doc.webhooks as Json), 'EVENT_TYPES in the catalog’s order');
  t.same(
    EVENT_TYPES.filter((type) => EVENT_AUDIENCE[type] === 'tenant'),
    EVENT_TYPES.filter((type) => ['user', 'group', 'identity_provider', 'domain'].includes(type.split('.')[0]!)),
    'the directory’s and identity’s types are for the tenant’s endpoints, the others for the platform’s',
  );
  t.same(EVENT_EMITTED_BY['order.cancelled'], ['rest-v1#cancelOrder']);
  t.same(EVENT_EMITTED_BY['product.created'], ['rest-v1#createProduct', 'rest-v2#createProductV2']);
  t.same(doc.components.schemas.EventType.enum, Object.keys(doc.webhooks as Json), 'the bundled EventType lists the catalog');
  t.same(
    entries.find((e) => e.type === 'order.shipped'),
    {
      type: 'order.shipped',
      operationId: 'orderShippedEvent',
      audience: 'platform',
      emittedBy: [{ ref: 'rest-v1#shipOrder', where: 'POST /api/v1/orders/{id}/ship' }],
      fat: 'OrderEvent',
      thin: 'ThinEvent',
    },
    'an entry: its audience, the operation that emits it, its fat and thin bodies',
  );
});

t.test('an entry the generator cannot trust is refused, one line each', async (t) => {
  const doc = await bundleDocument(path.join(root, FILE), root);
  const post = (type: string) => doc.webhooks[type].post as Json;
  delete post('order.created')['x-audience'];
  post('order.updated')['x-audience'] = 'everyone';
  post('order.shipped')['x-emitted-by'] = [
    'rest-v1#shipOrder',
    'rest-v1#launchOrder',
    'rest-v9#shipOrder',
    'graphql#explodeOrder',
    'shipOrder',
  ];
  delete post('order.delivered')['x-emitted-by'];
  delete post('order.cancelled').requestBody.content['application/json'].examples.fat;
  post('product.created').requestBody.content['application/json'].examples.fat.value.type = 'product.updated';
  doc.webhooks['Product-Archived'] = structuredClone(doc.webhooks['product.deleted']);
  doc.webhooks['Product-Archived'].post.requestBody.content['application/json'].examples.fat.value.type = 'Product-Archived';
  t.equal(
    refusal(() => eventCatalog(doc, FILE, documents, mutations)),
    [
      `${FILE}: webhooks.order.created: x-audience is missing; say who receives it (platform or tenant)`,
      `${FILE}: webhooks.order.updated: x-audience is "everyone", not platform or tenant`,
      `${FILE}: webhooks.order.shipped: x-emitted-by: rest-v1#launchOrder: openapi/rest-v1.yaml has no operation launchOrder`,
      `${FILE}: webhooks.order.shipped: x-emitted-by: rest-v9#shipOrder: no document openapi/rest-v9.yaml`,
      `${FILE}: webhooks.order.shipped: x-emitted-by: graphql#explodeOrder: the GraphQL schema has no mutation explodeOrder`,
      `${FILE}: webhooks.order.shipped: x-emitted-by: "shipOrder" is not <document>#<operationId>`,
      `${FILE}: webhooks.order.delivered: x-emitted-by is missing; list the operations that emit it (<document>#<operationId>), [] when none does`,
      `${FILE}: webhooks.order.cancelled: has no example of its body (requestBody application/json \`examples.fat\`)`,
      `${FILE}: webhooks.product.created: its example's type is "product.updated"`,
      `${FILE}: webhooks.Product-Archived: the name is not <resource>.<action> (lowercase letters, digits and underscores)`,
    ].join('\n'),
  );
});

t.test('an entry taken out of the catalog fails the typecheck where an area still publishes it', async (t) => {
  const dir = scratchProject(t, 'event-catalog', ['generated']);
  // The application only: what publishes events is in src/.
  const tsconfigPath = path.join(dir, 'tsconfig.json');
  const tsconfig = JSON.parse(fs.readFileSync(tsconfigPath, 'utf8')) as { include: string[] };
  fs.writeFileSync(tsconfigPath, JSON.stringify({ ...tsconfig, include: ['src'] }, null, 2));
  // The module `npm run generate` writes from the catalog without order.cancelled (the generator
  // itself, run in this process: the whole of generate would add nothing this test asks about).
  const doc = await bundleDocument(path.join(root, FILE), root);
  delete (doc.webhooks as Json)['order.cancelled'];
  const module = eventCatalogModule(eventCatalog(doc, FILE, documents, mutations)!, FILE);
  t.notMatch(module, /order\.cancelled/, 'the type is gone');
  fs.writeFileSync(path.join(dir, 'generated/openapi/webhooks.events.ts'), module);

  // One thread: tsc's parallel checkers spend about twice the CPU for the same errors (src/ only: 5 CPU-s against 9).
  const checked = await run(process.execPath, [TSC, '-p', '.', '--noEmit', '--pretty', 'false', '--singleThreaded'], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    () => '',
    (error: { stdout: string }) => error.stdout,
  );
  t.match(checked, /^src\/orders\/order-events\.ts\(\d+,\d+\): error .*order\.cancelled/m, 'the orders area, naming the type');
});
