/**
 * The data every benchmark serves: seeds (one INSERT ... SELECT generate_series each, deterministic,
 * so PGlite copies and the PostgreSQL database hold the same rows), the in-memory resolver map for
 * the GraphQL stack-cost case, the stubbed repository for the REST one, and the operations.
 */
import { sql, type Kysely } from 'kysely';
import type { GraphQLSchema } from 'graphql';
import type { DB } from '../../generated/db/types.ts';
import type { ProductRecord } from '../../src/catalog/products.repository.ts';
import type { ContentContext } from '../../src/content/content.context.ts';
import { buildGraphQLSchema } from '../../src/graphql/schema.ts';

/** The JWT secret every server under test verifies bearer tokens with. */
export const JWT_SECRET = 'benchmark-secret-0123456789abcdef0123456789abcdef';

// ---------------------------------------------------------------------------------------------
// GraphQL: 20 users × 10 posts, each post's content ~1.9 kB so that the large query reaches ~50 kB.

export const GRAPHQL_USERS = 20;
export const GRAPHQL_POSTS_PER_USER = 10;
const CONTENT_REPEAT = 57;

export const userId = (u: number) => `user-${String(u).padStart(2, '0')}`;
export const postContent = (u: number, p: number) => `Lorem ipsum dolor sit amet ${u}.${p} `.repeat(CONTENT_REPEAT);
/** The signed-in caller of the bearer and mutation cases. */
export const VIEWER = userId(1);

export async function seedGraphQL(db: Kysely<DB>): Promise<void> {
  await sql`
    insert into users (id, username, email, display_name, created_at, updated_at)
    select 'user-' || lpad(u::text, 2, '0'), 'user' || u, 'user' || u || '@example.test', 'User ' || u,
           timestamptz '2024-01-01' + u * interval '1 hour', timestamptz '2024-01-01' + u * interval '1 hour'
    from generate_series(0, ${GRAPHQL_USERS - 1}) u`.execute(db);
  await sql`
    insert into posts (author_id, title, content, slug, status, published_at, created_at, updated_at)
    select 'user-' || lpad(u::text, 2, '0'), 'Post ' || p || ' of user' || u,
           repeat('Lorem ipsum dolor sit amet ' || u || '.' || p || ' ', ${CONTENT_REPEAT}),
           'post-' || u || '-' || p, 'PUBLISHED',
           timestamptz '2024-01-01' + (u * 10 + p) * interval '1 minute',
           timestamptz '2024-01-01' + (u * 10 + p) * interval '1 minute',
           timestamptz '2024-01-01' + (u * 10 + p) * interval '1 minute'
    from generate_series(0, ${GRAPHQL_USERS - 1}) u, generate_series(0, ${GRAPHQL_POSTS_PER_USER - 1}) p
    order by u, p`.execute(db);
  await sql`analyze`.execute(db);
}

/** Where ours serves the in-memory schema: a second route of the same application. */
export const MEMORY_GRAPHQL_PATH = '/bench/graphql-memory';

const FEED_SELECTION =
  'users(size: $users) { content { id username posts(size: $posts) { content { id title author { id username } } } } }';
const LARGE_SELECTION =
  'users(size: $users) { content { id username posts(size: $posts) { content { id title content author { id username } } } } }';

export const OPERATIONS = {
  /** 5 users, 25 posts, 25 authors; with variables, so the cost check runs on every request. */
  feed: { query: `query Feed($users: Int!, $posts: Int!) { ${FEED_SELECTION} }`, variables: { users: 5, posts: 5 } },
  /** The same shape with each post's content: about 50 kB of JSON. */
  large: { query: `query Large($users: Int!, $posts: Int!) { ${LARGE_SELECTION} }`, variables: { users: 5, posts: 5 } },
  /** A write: one comment on post 1 by the signed-in viewer (a transaction and a NOTIFY per request). */
  mutation: {
    query:
      'mutation Comment($postId: ID!, $content: String!) { addComment(postId: $postId, content: $content) { content author { id username } post { id title } } }',
    variables: { postId: '1', content: 'A benchmark comment.' },
  },
} as const;

interface MemoryUser {
  id: string;
  username: string;
}

interface MemoryPost {
  id: number;
  title: string;
  content: string;
  author_id: string;
}

interface MemoryComment {
  id: number;
  content: string;
  author_id: string;
  post_id: number;
}

interface PageArgs {
  page?: number | null;
  size?: number | null;
}

function connection<T>(items: readonly T[], page: number, size: number) {
  const start = page * size;
  return {
    content: items.slice(start, start + size),
    totalElements: items.length,
    totalPages: Math.ceil(items.length / size),
    hasNext: start + size < items.length,
  };
}

/**
 * Query.users → User.posts → Post.author over arrays, under our SDL and directives: the same data
 * as the seed, without a database, so the stack's own cost shows.
 */
export function memorySchema(): GraphQLSchema {
  const users: MemoryUser[] = Array.from({ length: GRAPHQL_USERS }, (_, u) => ({ id: userId(u), username: `user${u}` }));
  const usersById = new Map(users.map((user) => [user.id, user]));
  const postsByAuthor = new Map(
    users.map((user, u) => [
      user.id,
      Array.from({ length: GRAPHQL_POSTS_PER_USER }, (_, p): MemoryPost => ({
        id: u * GRAPHQL_POSTS_PER_USER + p + 1,
        title: `Post ${p} of user${u}`,
        content: postContent(u, p),
        author_id: user.id,
      })),
    ]),
  );
  const postsById = new Map([...postsByAuthor.values()].flat().map((post) => [post.id, post]));
  let commentId = 0;
  return buildGraphQLSchema({
    Query: { users: (_: unknown, { page, size }: PageArgs) => connection(users, page ?? 0, size ?? 20) },
    User: { posts: (user: MemoryUser, { page, size }: PageArgs) => connection(postsByAuthor.get(user.id) ?? [], page ?? 0, size ?? 10) },
    Post: { author: (post: MemoryPost) => usersById.get(post.author_id) },
    // The comment is built and returned, not kept: a run of millions of requests would otherwise
    // measure a growing heap. @authenticated and the @constraint checks of the arguments still run.
    Mutation: {
      addComment: (_: unknown, { postId, content }: { postId: string; content: string }, context: ContentContext): MemoryComment => ({
        id: ++commentId,
        content,
        author_id: context.principal!.userId,
        post_id: Number(postId),
      }),
    },
    Comment: {
      author: (comment: MemoryComment) => usersById.get(comment.author_id),
      post: (comment: MemoryComment) => postsById.get(comment.post_id),
    },
  });
}

// ---------------------------------------------------------------------------------------------
// REST: 1,000 products with one attribute each.

export const PRODUCTS = 1_000;

export async function seedProducts(db: Kysely<DB>): Promise<void> {
  await sql`
    insert into products (id, name, description, price, sku, category, stock_quantity, created_at, updated_at)
    select ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, 'Product ' || g, 'Description of product ' || g,
           (g % 1000) + 0.99, 'SKU-' || g, (array['HOME','BOOKS','TOYS','SPORTS'])[1 + g % 4], g % 50,
           timestamptz '2024-01-01' - g * interval '1 second', timestamptz '2024-01-01' - g * interval '1 second'
    from generate_series(1, ${PRODUCTS}) g`.execute(db);
  await sql`insert into product_attributes (product_id, position, key, value) select id, 0, 'colour', 'black' from products`.execute(db);
  await sql`analyze`.execute(db);
}

export const productId = (g: number) => `00000000-0000-4000-8000-${String(g).padStart(12, '0')}`;
export const PRODUCT_ID = productId(500);

/** The row the seed holds for product g, as the repository returns it. */
export function productRecord(g: number): ProductRecord {
  const created = new Date(Date.UTC(2024, 0, 1) - g * 1000);
  return {
    id: productId(g),
    name: `Product ${g}`,
    description: `Description of product ${g}`,
    price: `${g % 1000}.99`,
    sku: `SKU-${g}`,
    category: ['HOME', 'BOOKS', 'TOYS', 'SPORTS'][g % 4]!,
    stock_quantity: g % 50,
    version: 1,
    created_at: created,
    updated_at: created,
    attributes: [{ key: 'colour', value: 'black' }],
    images: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Pagination: many posts over many authors and the three statuses.

export const PAGINATION_AUTHORS = 5_000;
/** The signed-in caller of the pagination cases: an author with drafts of their own. */
export const PAGINATION_VIEWER = 'author-7';

export async function seedPagination(db: Kysely<DB>, posts: number): Promise<void> {
  await sql`
    insert into users (id, username, email, display_name)
    select 'author-' || a, 'author' || a, 'author' || a || '@example.test', 'Author ' || a
    from generate_series(0, ${PAGINATION_AUTHORS - 1}) a`.execute(db);
  // Three posts per second of created_at (the id tiebreaker is exercised); 3 in 5 published, one
  // draft, one archived; authors round-robin.
  await sql`
    insert into posts (author_id, title, content, slug, status, created_at, updated_at)
    select 'author-' || (g % ${PAGINATION_AUTHORS}), 'Post ' || g, 'Body of post ' || g, 'p-' || g,
           (array['PUBLISHED','PUBLISHED','DRAFT','PUBLISHED','ARCHIVED'])[1 + (g / 7) % 5],
           timestamptz '2020-01-01' + (g / 3) * interval '1 second', timestamptz '2020-01-01' + (g / 3) * interval '1 second'
    from generate_series(1, ${posts}) g`.execute(db);
  await sql`analyze`.execute(db);
}

// ---------------------------------------------------------------------------------------------
// SCIM: one tenant with many provisioned users, two others holding users of the same names.

export const SCIM_TENANT_USERS = 10_000;
export const SCIM_OTHER_TENANT_USERS = 2_000;
/** The bench tenant's SCIM token (the shape ScimTokensService issues); only its SHA-256 is stored. */
export const SCIM_TOKEN = `sfscim_${'b'.repeat(43)}`;

export async function seedScim(db: Kysely<DB>): Promise<void> {
  await sql`insert into tenants (id, name) values ('bench-a', 'Bench A'), ('bench-b', 'Bench B'), ('bench-c', 'Bench C')`.execute(db);
  const tenants: [string, number][] = [
    ['bench-a', SCIM_TENANT_USERS],
    ['bench-b', SCIM_OTHER_TENANT_USERS],
    ['bench-c', SCIM_OTHER_TENANT_USERS],
  ];
  for (const [tenant, count] of tenants) {
    await sql`
      insert into users (tenant_id, username, email, emails, display_name, given_name, family_name, external_id, source, department, employee_number, active, created_at, updated_at)
      select ${tenant}, 'user' || g || '@example.com', 'user' || g || '@example.com',
             jsonb_build_array(jsonb_build_object('value', 'user' || g || '@example.com', 'type', 'work', 'primary', true)),
             'User ' || g, 'Given' || g, (array['Carter','Barnes','Ortiz','Nakamura','Lindqvist','Abara'])[1 + g % 6],
             'ext-' || g, 'scim', (array['Sales','Legal','Engineering','Support','Finance'])[1 + g % 5], 'E' || g, g % 17 <> 0,
             timestamptz '2025-01-01' + g * interval '1 minute', timestamptz '2025-01-01' + g * interval '1 minute'
      from generate_series(1, ${count}) g`.execute(db);
  }
  await sql`insert into scim_tokens (tenant_id, token_sha256) values ('bench-a', encode(sha256(convert_to(${SCIM_TOKEN}, 'UTF8')), 'hex'))`.execute(
    db,
  );
  await sql`analyze`.execute(db);
}

// ---------------------------------------------------------------------------------------------
// Authentication: the products, 10,000 users with one live session each.

export const AUTH_USERS = 10_000;
export const authUserId = (g: number) => `auth-user-${g}`;
/** Session token of user g: the session shape (`sfsess_` and 43 characters), deterministic. */
export const authSessionToken = (g: number) => `sfsess_${String(g).padStart(43, 'A')}`;
/** The caller of the authenticated cases. */
export const AUTH_VIEWER = 4_321;

export async function seedAuth(db: Kysely<DB>): Promise<void> {
  await seedProducts(db);
  await sql`
    insert into users (id, username, email, display_name)
    select 'auth-user-' || g, 'authuser' || g, 'authuser' || g || '@example.test', 'Auth user ' || g
    from generate_series(1, ${AUTH_USERS}) g`.execute(db);
  await sql`
    insert into sessions (user_id, tenant_id, token_sha256, expires_at, last_seen_at)
    select 'auth-user-' || g, 'default', encode(sha256(convert_to('sfsess_' || lpad(g::text, 43, 'A'), 'UTF8')), 'hex'),
           now() + interval '30 days', now() + interval '30 days'
    from generate_series(1, ${AUTH_USERS}) g`.execute(db);
  await sql`analyze`.execute(db);
}
