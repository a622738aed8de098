/**
 * `npm run seed`: loads a small, realistic data set into the running server (BASE_URL, else
 * http://localhost:$PORT: scripts/operator.ts) through its own APIs and the generated SDK: three
 * users who follow each other, published posts with tags and a comment thread, six products, and a
 * customer of alice's with one order. It refuses to run twice (it stops when alice already exists),
 * so it never duplicates anything. Afterwards `npm run --silent token -- --username alice` gives a
 * token to explore with.
 */
import {
  AddCommentDocument,
  CreatePostDocument,
  CreateUserDocument,
  FollowUserDocument,
  SearchUsersDocument,
} from '../generated/client/graphql.ts';
import { createGraphqlClient, type GraphqlClient } from '../generated/client/graphql-client.ts';
import { createRestV1Client } from '../generated/client/rest.ts';
import { Failure, operator, refusal, runCommand } from './operator.ts';

const USERS = [
  { username: 'alice', email: 'alice@example.com', displayName: 'Alice Martin', bio: 'Writes about API design.' },
  { username: 'bob', email: 'bob@example.com', displayName: 'Bob Chen', bio: 'Frontend engineer.' },
  { username: 'carol', email: 'carol@example.com', displayName: 'Carol Diaz' },
];

const POSTS: Record<string, { title: string; content: string; tags: string[] }[]> = {
  alice: [
    {
      title: 'Schema-first in practice',
      content: 'Write the SDL and the OpenAPI documents first; generate the rest.',
      tags: ['graphql', 'openapi'],
    },
    { title: 'Paging that survives inserts', content: 'Cursor and keyset paging keep pages stable while rows arrive.', tags: ['paging'] },
  ],
  bob: [
    {
      title: 'Typed clients everywhere',
      content: 'The generated SDK checks paths, bodies and documents at compile time.',
      tags: ['typescript'],
    },
  ],
  carol: [{ title: 'Webhooks you can trust', content: 'Sign every delivery, retry with backoff, replay on demand.', tags: ['webhooks'] }],
};

const PRODUCTS = [
  { sku: 'LAMP-001', name: 'Desk lamp', price: 25, category: 'HOME', stockQuantity: 40, description: 'LED desk lamp with dimmer.' },
  { sku: 'BOOK-API-01', name: 'Designing Web APIs', price: 39.9, category: 'BOOKS', stockQuantity: 12 },
  { sku: 'HDPH-200', name: 'Wireless headphones', price: 129, category: 'ELECTRONICS', stockQuantity: 8 },
  { sku: 'TEE-GQL-M', name: 'GraphQL T-shirt (M)', price: 18.5, category: 'CLOTHING', stockQuantity: 0 },
  { sku: 'BALL-05', name: 'Football, size 5', price: 22, category: 'SPORTS', stockQuantity: 30 },
  { sku: 'COFFEE-1KG', name: 'Coffee beans, 1 kg', price: 17.25, category: 'FOOD', stockQuantity: 100 },
] as const;

async function existingUser(graphql: GraphqlClient, username: string): Promise<boolean> {
  const { searchUsers } = await graphql.request(SearchUsersDocument, { query: username, limit: 5 });
  return searchUsers.some((u) => u.username === username);
}

/** The command's main: what it seeded, or a Failure. `env` is the process's own under `npm run seed` (below); a test passes its own. */
export async function seed(env: NodeJS.ProcessEnv): Promise<string> {
  const { config, sign, fetch, call } = operator(env);
  const graphqlUrl = `${config.baseUrl}/graphql`;
  const anonymous = createGraphqlClient({ url: graphqlUrl, fetch });
  if (await call(() => existingUser(anonymous, 'alice'))) {
    return `already seeded: alice exists at ${config.baseUrl}; \`npm run --silent token -- --username alice\` gives her token`;
  }

  const ids: Record<string, string> = {};
  const as: Record<string, GraphqlClient> = {};
  for (const input of USERS) {
    const { createUser } = await call(() => anonymous.request(CreateUserDocument, { input }));
    ids[input.username] = createUser.id;
    as[input.username] = createGraphqlClient({ url: graphqlUrl, fetch, token: () => sign(createUser.id) });
  }
  await call(() => as.bob!.request(FollowUserDocument, { userId: ids.alice! }));
  await call(() => as.carol!.request(FollowUserDocument, { userId: ids.alice! }));
  await call(() => as.alice!.request(FollowUserDocument, { userId: ids.bob! }));

  let posts = 0;
  let firstPost = '';
  for (const [username, list] of Object.entries(POSTS)) {
    for (const post of list) {
      const { createPost } = await call(() => as[username]!.request(CreatePostDocument, { input: { ...post, status: 'PUBLISHED' } }));
      firstPost ||= createPost.id;
      posts++;
    }
  }
  await call(() => as.bob!.request(AddCommentDocument, { postId: firstPost, content: 'This is how we work now.' }));
  await call(() => as.carol!.request(AddCommentDocument, { postId: firstPost, content: 'Same here; the SDK saves us hours.' }));

  const admin = createRestV1Client({
    baseUrl: config.baseUrl,
    fetch,
    headers: { authorization: `Bearer ${await sign('operator:seed', ['ADMIN'])}` },
  });
  const productIds: string[] = [];
  for (const body of PRODUCTS) {
    const created = await call(() => admin.POST('/api/v1/products', { body }));
    if (!created.data) throw refusal(`creating product ${body.sku}`, created);
    productIds.push(created.data.id);
  }

  const alice = createRestV1Client({ baseUrl: config.baseUrl, fetch, headers: { authorization: `Bearer ${await sign(ids.alice!)}` } });
  const customer = await call(() => alice.POST('/api/v1/customers', { body: { name: 'Alice Martin', email: 'alice@example.com' } }));
  if (!customer.data) throw refusal('creating alice’s customer', customer);
  const order = await call(() =>
    alice.POST('/api/v1/orders', {
      body: {
        customerId: customer.data.id,
        items: [
          { productId: productIds[0]!, quantity: 2 },
          { productId: productIds[1]!, quantity: 1 },
        ],
      },
    }),
  );
  if (!order.data) throw refusal('placing alice’s order', order);
  if (posts !== 4) throw new Failure(`expected 4 posts, created ${posts}`);

  return [
    `seeded ${config.baseUrl}: users alice, bob, carol; ${posts} posts and 2 comments; ${productIds.length} products; customer ${customer.data.id} with order ${order.data.id}`,
    'a token to explore with: npm run --silent token -- --username alice   (add --role ADMIN for admin operations)',
  ].join('\n');
}

// Run as `npm run seed`, not when a test imports the function.
if (process.argv[1]?.endsWith('scripts/seed.ts')) await runCommand(() => seed(process.env));
