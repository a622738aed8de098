/**
 * The look-ahead planner (src/content/planner/) answers exactly what the resolvers answer: random
 * selection sets over the covered fields (users and user; User.posts with its connection,
 * Post.author, User.followerCount, every scalar), with random arguments (valid, defaulted, null and
 * out of range), aliases, fragments and fields the planner leaves to resolvers, run by the same
 * schema against the same data as anonymous, an author and an ADMIN, once with the planner and once
 * without; the results (data and errors) must be identical. Both databases.
 */
import fc from 'fast-check';
import { graphql, type GraphQLSchema } from 'graphql';
import { sql } from 'kysely';
import t from 'tap';
import type { Principal } from '../../src/auth/principal.ts';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { createContentContext, type ContentServices } from '../../src/content/content.context.ts';
import { ContentPlanner } from '../../src/content/planner/content-planner.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';

const USERS = 6;

/** Six users (one deactivated), posts of every status with metadata, follows and tags. */
async function seed(server: TestServer): Promise<string[]> {
  const db = server.database.db;
  const users = await db
    .insertInto('users')
    .values(
      Array.from({ length: USERS }, (_, i) => ({
        username: `writer${i}`,
        email: `writer${i}@example.com`,
        display_name: `Writer ${i}`,
        bio: i % 2 ? `Bio ${i}` : null,
        active: i !== 4,
        created_at: new Date(Date.UTC(2024, 0, 1 + i)),
      })),
    )
    .returning('id')
    .execute();
  const ids = users.map((u) => u.id);
  const statuses = ['PUBLISHED', 'DRAFT', 'ARCHIVED', 'PUBLISHED'];
  const posts = await db
    .insertInto('posts')
    .values(
      ids.flatMap((author, i) =>
        Array.from({ length: i + 1 }, (_, j) => ({
          author_id: author,
          title: `Post ${i}.${j}`,
          content: `Content of ${i}.${j}`,
          slug: `post-${i}-${j}`,
          status: statuses[(i + j) % statuses.length]!,
          view_count: i * j,
          // Same second for some posts: the id breaks the tie, as in the loaders' order.
          created_at: new Date(Date.UTC(2024, 1, 1, 0, 0, (i * j) % 3)),
          metadata: j % 2 ? sql`'{"z": 1, "a": [true, null]}'::json` : null,
        })),
      ),
    )
    .returning('id')
    .execute();
  await db
    .insertInto('follows')
    .values(
      ids.flatMap((follower, i) =>
        ids.filter((_, j) => j !== i && (i + j) % 3 === 0).map((followee) => ({ follower_id: follower, followee_id: followee })),
      ),
    )
    .execute();
  const [tag] = await db.insertInto('tags').values({ name: 'planner' }).returning('id').execute();
  await db
    .insertInto('post_tags')
    .values(posts.filter((_, i) => i % 2).map((p) => ({ post_id: p.id, tag_id: tag!.id, position: 0 })))
    .execute();
  return ids;
}

const scalarsOfUser = ['id', 'username', 'email', 'displayName', 'bio', 'avatarUrl', 'createdAt', 'followerCount', '__typename'];
const scalarsOfPost = ['id', 'title', 'content', 'slug', 'status', 'viewCount', 'createdAt', 'updatedAt', 'metadata', '__typename'];
/** Fields the planner leaves to their resolvers, under a planned parent. */
const uncoveredOfUser = ['followers(limit: 2) { id }', 'following { username }'];
const uncoveredOfPost = ['tags { name }', 'likeCount', 'comments(size: 2) { totalElements }'];

const pageArg = fc
  .oneof(
    fc.constant(''),
    fc.record({
      page: fc.oneof(fc.constantFrom(0, 1, 2, 'null'), fc.constant(-1)),
      size: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constantFrom('null', 0, 101)),
    }),
  )
  .map((a) => (typeof a === 'string' ? '' : `(page: ${a.page}, size: ${a.size})`));

const subset = (fields: string[]) => fc.subarray(fields, { minLength: 1 });
const alias = fc.constantFrom('', 'a1: ', 'a2: ');

const letrec = fc.letrec<{ user: string; post: string }>((tie) => ({
  user: fc
    .tuple(
      subset(scalarsOfUser),
      fc.array(fc.tuple(alias, pageArg, fc.constantFrom('totalElements', 'totalPages hasNext', 'totalElements content'), tie('post')), {
        maxLength: 2,
      }),
      fc.subarray(uncoveredOfUser),
      fc.boolean(),
    )
    .map(([scalars, pages, uncovered, fragment]) => {
      const posts = pages.map(
        ([a, args, fields, post]) =>
          `${a || `p${args.length}x${fields.length}: `}posts${args} { ${fields.replace('content', `content { ${post} }`)} }`,
      );
      const body = [...scalars, ...posts, ...uncovered].join(' ');
      return fragment ? `... on User { ${body} }` : body;
    }),
  post: fc
    .tuple(subset(scalarsOfPost), fc.oneof(fc.constant(null), tie('user')), fc.subarray(uncoveredOfPost))
    .map(([scalars, author, uncovered]) => [...scalars, ...(author ? [`author { ${author} }`] : []), ...uncovered].join(' ')),
}));

// Depth is bounded by the generator's own recursion (fast-check's letrec depth) and the query limit.
const query = (ids: string[]) =>
  fc.oneof(
    fc.tuple(pageArg, letrec.user).map(([args, user]) => `{ users${args} { totalElements totalPages hasNext content { ${user} } } }`),
    fc.tuple(fc.constantFrom(...ids, 'no-such-user'), letrec.user).map(([id, user]) => `{ user(id: "${id}") { ${user} } }`),
  );

const principal = (userId: string, roles: string[]): Principal => ({
  userId,
  roles,
  tenantRoles: [],
  storedUserId: userId,
  tenantId: 'default',
  sessionId: null,
});

async function run(schema: GraphQLSchema, services: ContentServices, viewer: Principal | null, source: string) {
  const result = await graphql({ schema, source, contextValue: createContentContext(viewer, services) });
  return JSON.stringify({
    data: result.data,
    errors: result.errors?.map((e) => ({ message: e.message, path: e.path, extensions: e.extensions })),
  });
}

t.test('the planner and the resolvers give the same answer for random selections', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000', GRAPHQL_MAX_DEPTH: '100' } });
  const ids = await seed(server);
  const schema = buildContentSchema();
  const planned = server.app.services as unknown as ContentServices;
  t.ok(planned.planner, 'the server plans (GRAPHQL_PLANNER defaults to on)');
  const unplanned: ContentServices = { ...planned, planner: null };
  const viewers = [null, principal(ids[1]!, []), principal(ids[2]!, ['ADMIN'])];
  let compared = 0;
  await fc.assert(
    fc.asyncProperty(query(ids), fc.constantFrom(0, 1, 2), async (source, v) => {
      const viewer = viewers[v]!;
      const expected = await run(schema, unplanned, viewer, source);
      const actual = await run(schema, planned, viewer, source);
      compared++;
      if (actual !== expected)
        throw new Error(`differs for ${source} as ${viewer?.userId ?? 'anonymous'}:\nplanner:   ${actual}\nresolvers: ${expected}`);
    }),
    { numRuns: 150 },
  );
  t.equal(compared >= 150, true, `${compared} selections compared`);
});

t.test('at LOG_LEVEL=debug the plan is logged: the field, the reads and the one statement', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000', GRAPHQL_MAX_DEPTH: '100' } });
  await seed(server);
  const entries: { details: any; message: string }[] = [];
  const log = { level: 'debug', debug: (details: object, message: string) => void entries.push({ details, message }) };
  const services = server.app.services as unknown as ContentServices;
  const logged: ContentServices = { ...services, planner: new ContentPlanner(server.database.db, log) };
  const statements: string[] = [];
  const stop = server.database.observeQueries((text) => statements.push(text));
  const result = await run(
    buildContentSchema(),
    logged,
    null,
    '{ users(size: 2) { content { id mine: posts(size: 1) { content { title author { id } } } } } }',
  );
  stop();
  t.notMatch(result, /"errors":\[/);
  t.equal(entries.length, 1, 'one plan logged');
  t.equal(entries[0]?.message, 'GraphQL plan: one statement');
  t.equal(entries[0]?.details.field, 'users');
  t.match(entries[0]?.details.reads, {
    posts: [{ key: 'mine', offset: 0, limit: 1, content: { content: false, authors: [{ key: 'author' }] } }],
  });
  t.same([entries[0]?.details.sql], statements, 'the statement logged is the one run');
  const quiet: ContentServices = { ...services, planner: new ContentPlanner(server.database.db, { ...log, level: 'info' }) };
  await run(buildContentSchema(), quiet, null, '{ users(size: 2) { content { id } } }');
  t.equal(entries.length, 1, 'nothing logged above debug');
});
