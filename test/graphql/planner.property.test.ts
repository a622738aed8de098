/**
 * A GraphQL operation of the content graph is answered one of two ways: by the whole-operation plan
 * (src/content/planner/), one statement that writes the response's `data` itself, or by the
 * resolvers and their DataLoaders. Random operations over the fields the plan covers (users, user,
 * searchUsers, post; pages of posts and comments, authors, tags, counts, every column), with random
 * arguments (valid, defaulted, null and out of range), aliases and fragments, run by both against the
 * same data for viewers of two tenants: the plan's text must be byte for byte what graphql-js
 * serializes from the resolvers' answer, and where the resolvers answer with errors the plan must
 * have stepped aside. Both databases.
 */
import fc from 'fast-check';
import { graphql, parse, type GraphQLSchema } from 'graphql';
import { sql } from 'kysely';
import t from 'tap';
import type { Principal } from '../../src/auth/principal.ts';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { createContentContext, type ContentServices } from '../../src/content/content.context.ts';
import { ContentPlanner } from '../../src/content/planner/operation-plan.ts';
import { CONTENT_EVENTS_CHANNEL } from '../../src/content/content.events.ts';
import { listenToChannel } from '../../src/db/notifications.ts';
import { assertProperty } from '../helpers/random.ts';
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

const principal = (userId: string, roles: string[]): Principal => ({
  userId,
  roles,
  tenantRoles: [],
  storedUserId: userId,
  tenantId: 'default',
  sessionId: null,
});

/** The resolvers' answer as the server would write it (data and errors). */
async function run(schema: GraphQLSchema, services: ContentServices, viewer: Principal | null, source: string) {
  const result = await graphql({ schema, source, contextValue: createContentContext(viewer, services) });
  return JSON.stringify({
    data: result.data,
    errors: result.errors?.map((e) => ({ message: e.message, path: e.path, extensions: e.extensions })),
  });
}

/** A planner that records what it logs: the plans (debug) and the plans that failed (warn). */
function recordingPlanner(server: TestServer) {
  const entries: { level: 'debug' | 'warn'; details: any; message: string }[] = [];
  const log = {
    level: 'debug',
    debug: (details: object, message: string) => void entries.push({ level: 'debug', details, message }),
    warn: (details: object, message: string) => void entries.push({ level: 'warn', details, message }),
  };
  return { entries, planner: new ContentPlanner(server.database.db, log) };
}

t.test('aliases of any length: two long aliases sharing their first 60 characters read their own values', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000000000', GRAPHQL_MAX_DEPTH: '100' } });
  await seed(server);
  // 70 characters each, the same first 60: PostgreSQL truncates identifiers at 63 bytes.
  const prefix = 'a'.repeat(60);
  const [one, two, three, four] = ['b', 'c', 'd', 'e'].map((end) => `${prefix}${end.repeat(10)}`);
  const source = `{ users(size: 6) { content { username
    ${one}: posts(size: 1) { totalElements content { title } }
    ${two}: posts(page: 1, size: 2) { totalElements content { title } }
    ${three}: followerCount ${four}: followerCount } } }`;
  const services = server.app.services as unknown as ContentServices;
  const schema = buildContentSchema();
  const expected = await run(schema, services, null, source);
  t.notMatch(expected, /"errors":\[/, 'the resolvers answer');
  const data = (JSON.parse(expected) as { data: { users: { content: Record<string, any>[] } } }).data;
  const users = data.users.content;
  t.ok(
    users.some((u) => JSON.stringify(u[one!]) !== JSON.stringify(u[two!])),
    'the two pages differ for some user (each alias must read its own)',
  );

  const { entries, planner } = recordingPlanner(server);
  const text = await planner.planOperation(schema, parse(source), undefined)?.run(null, {});
  t.same(
    entries.map((e) => [e.level, e.message]),
    [['debug', 'GraphQL plan: one statement']],
    'the whole-operation plan ran, and did not fail',
  );
  t.equal(text, JSON.stringify(data), 'it answers what the resolvers answer');

  const response = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: source }),
  });
  t.equal(response.status, 200, 'over HTTP: 200');
  t.equal(await response.text(), JSON.stringify(JSON.parse(expected)), 'with the same answer, no errors');
});

// ---------------------------------------------------------------------------------------------
// Operations covered whole: the statement writes `data`.

const coveredOfUser = ['id', 'username', 'email', 'displayName', 'bio', 'avatarUrl', 'createdAt', 'followerCount', '__typename'];
const coveredOfPost = ['id', 'title', 'content', 'slug', 'status', 'viewCount', 'createdAt', 'updatedAt', 'likeCount', '__typename'];
const connectionFields = fc.subarray(['totalElements', 'totalPages', 'hasNext', '__typename']);

/** Mostly arguments the resolvers accept (each nested page refused would send the whole operation back to them). */
const mostlyValidPageArg = fc.oneof(
  {
    weight: 9,
    arbitrary: fc
      .record({ page: fc.constantFrom(0, 1, 2, 'null'), size: fc.constantFrom(1, 2, 3, 'null') })
      .map((a) => `(page: ${a.page}, size: ${a.size})`),
  },
  { weight: 2, arbitrary: pageArg },
);

const covered = fc.letrec<{ user: string; post: string }>((tie) => ({
  user: fc
    .tuple(
      subset(coveredOfUser),
      fc.array(fc.tuple(alias, mostlyValidPageArg, connectionFields, fc.option(tie('post'), { nil: null })), { maxLength: 2 }),
      fc.boolean(),
    )
    .map(([scalars, pages, fragment]) => {
      const posts = pages.map(([a, args, counts, post], i) => {
        const fields = [...counts, ...(post || !counts.length ? [`content { ${post ?? 'id'} }`] : [])];
        return `${a ? `${a.slice(0, -2)}${i}: ` : i ? `q${i}: ` : ''}posts${args} { ${fields.join(' ')} }`;
      });
      const body = [...scalars, ...posts].join(' ');
      return fragment ? `... on User { ${body} }` : body;
    }),
  post: fc
    .tuple(
      subset(coveredOfPost),
      fc.option(tie('user'), { nil: null }),
      fc.option(subset(['id', 'name', 'postCount', '__typename']), { nil: null }),
      fc.option(
        fc.tuple(
          mostlyValidPageArg,
          connectionFields,
          subset(['id', 'content', 'createdAt', '__typename']),
          fc.option(tie('user'), { nil: null }),
        ),
        {
          nil: null,
        },
      ),
    )
    .map(([scalars, author, tags, comments]) =>
      [
        ...scalars,
        ...(author ? [`author { ${author} }`] : []),
        ...(tags ? [`tags { ${tags.join(' ')} }`] : []),
        ...(comments
          ? [
              `comments${comments[0]} { ${[...comments[1], `content { ${[...comments[2], ...(comments[3] ? [`author { ${comments[3]} }`] : [])].join(' ')} }`].join(' ')} }`,
            ]
          : []),
      ].join(' '),
    ),
}));

const variable = fc.option(
  fc.oneof({ weight: 6, arbitrary: fc.constantFrom(0, 1, 2, 3, null) }, { weight: 1, arbitrary: fc.constantFrom(-1, 0, 101) }),
  {
    nil: undefined,
  },
);

/**
 * One to three root fields: `users` with its page and size as variables, `user` by id,
 * `searchUsers`, `__typename`; or `post(id)` alone (it counts a read).
 */
const coveredOperation = (ids: string[], postIds: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: readOperation(ids) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...postIds, 'abc', '999999'), covered.post)
        .map(([id, post]) => ({ source: `query Covered { r0: post(id: "${id}") { ${post} } }`, variables: {} })),
    },
  );

const searchArgs = fc
  .tuple(
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('writer', 'Writer 1', 'WRITER0', 'other', '1', '"', '%', '_', 'zzz') },
      { weight: 1, arbitrary: fc.constant('') },
    ),
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('', ', limit: 1', ', limit: 3', ', limit: null') },
      { weight: 1, arbitrary: fc.constant(', limit: 51') },
    ),
  )
  .map(([query, limit]) => `(query: ${JSON.stringify(query)}${limit})`);

const readOperation = (ids: string[]) =>
  fc
    .tuple(
      fc
        .array(
          fc.oneof(
            fc
              .tuple(connectionFields, covered.user)
              .map(([counts, user]) => `users(page: $page, size: $size) { ${[...counts, `content { ${user} }`].join(' ')} }`),
            fc
              .tuple(
                fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: fc.constant('no-such-user') }),
                covered.user,
              )
              .map(([id, user]) => `user(id: "${id}") { ${user} }`),
            fc.tuple(searchArgs, covered.user).map(([args, user]) => `searchUsers${args} { ${user} }`),
            fc.constant('__typename'),
          ),
          { minLength: 1, maxLength: 3 },
        )
        .filter((roots) => roots.some((root) => root !== '__typename')),
      variable,
      variable,
    )
    .map(([roots, page, size]) => ({
      // Variables declared only where used: an unused one is a validation error before any plan.
      source: `query Covered${roots.some((root) => root.startsWith('users')) ? '($page: Int, $size: Int)' : ''} { ${roots.map((root, i) => `r${i}: ${root}`).join(' ')} }`,
      variables: { ...(page === undefined ? {} : { page }), ...(size === undefined ? {} : { size }) },
    }));

const DOCUMENT_LIMITS = new Set(['TOO_MANY_ALIASES', 'QUERY_TOO_DEEP', 'QUERY_TOO_LONG', 'QUERY_TOO_COMPLEX']);

/** A second tenant with two users, one post of each status, likes, comments (with replies) and a second tag. */
async function seedOtherTenant(server: TestServer, ids: string[]): Promise<{ others: string[]; postIds: string[] }> {
  const db = server.database.db;
  await db.insertInto('tenants').values({ id: 'other', name: 'Other' }).execute();
  const users = await db
    .insertInto('users')
    .values(
      [0, 1].map((i) => ({ tenant_id: 'other', username: `other${i}`, email: `other${i}@example.com`, display_name: `Other "${i}"\n` })),
    )
    .returning('id')
    .execute();
  const others = users.map((u) => u.id);
  const posts = await db
    .insertInto('posts')
    .values(
      ['PUBLISHED', 'DRAFT', 'ARCHIVED'].map((status, j) => ({
        author_id: others[0]!,
        title: `Other's post ${j} \u00e9\u2028`,
        content: 'x',
        slug: `other-${j}`,
        status,
      })),
    )
    .returning('id')
    .execute();
  await db
    .insertInto('post_likes')
    .values([...ids.slice(0, 3), ...others].map((user) => ({ post_id: posts[0]!.id, user_id: user })))
    .execute();
  const all = await db.selectFrom('posts').select('id').orderBy('id').execute();
  const commented = all.filter((_, i) => i % 3 === 0);
  const comments = await db
    .insertInto('comments')
    .values(
      commented.flatMap((post, i) =>
        [0, 1, 2].slice(0, 1 + (i % 3)).map((j) => ({
          post_id: post.id,
          author_id: [...ids, ...others][(i + j) % (ids.length + others.length)]!,
          content: `Comment ${j} on ${post.id}: "quoted" \\ ${'\u0001'}`,
          // Same second for some: the id breaks the tie.
          created_at: new Date(Date.UTC(2024, 2, 1, 0, 0, j % 2)),
        })),
      ),
    )
    .returning(['id', 'post_id'])
    .execute();
  await db
    .insertInto('comments')
    .values(comments.slice(0, 3).map((c) => ({ post_id: c.post_id, parent_id: c.id, author_id: others[1]!, content: 'A reply' })))
    .execute();
  const [second] = await db.insertInto('tags').values({ name: 'second' }).returning('id').execute();
  await db
    .insertInto('post_tags')
    .values(all.filter((_, i) => i % 4 === 1).map((p) => ({ post_id: p.id, tag_id: second!.id, position: 1 })))
    .execute();
  return { others, postIds: all.map((p) => String(p.id)) };
}

t.test('an operation covered whole: the statement writes the bytes graphql-js writes from the resolvers', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000000000', GRAPHQL_MAX_DEPTH: '100' } });
  const ids = await seed(server);
  const { others, postIds } = await seedOtherTenant(server, ids);
  const viewCount = async (id: string) =>
    /^\d+$/.test(id)
      ? (await server.database.db.selectFrom('posts').select('view_count').where('id', '=', Number(id)).executeTakeFirst())?.view_count
      : undefined;
  const schema = buildContentSchema();
  const services = server.app.services as unknown as ContentServices;
  const planner = services.planner!;
  const unplanned: ContentServices = { ...services, planner: null };
  const otherTenant = (userId: string, tenantRoles: string[]): Principal => ({ ...principal(userId, []), tenantId: 'other', tenantRoles });
  const viewers = [
    null,
    principal(ids[1]!, []),
    principal(ids[2]!, ['ADMIN']),
    otherTenant(others[0]!, []),
    otherTenant(others[1]!, ['ADMIN']),
  ];
  const tally = { planned: 0, steppedAside: 0, overHttp: 0, counted: 0 };
  await assertProperty(
    fc.asyncProperty(
      coveredOperation([...ids, ...others], postIds),
      fc.integer({ min: 0, max: viewers.length - 1 }),
      async ({ source, variables }, v) => {
        const viewer = viewers[v]!;
        const postId = /post\(id: "([^"]*)"\)/.exec(source)?.[1];
        const plan = planner.planOperation(schema, parse(source), undefined);
        // Not planned: only a counted read whose selection pages posts again (operation-shape.ts).
        if (!plan && postId !== undefined && /author \{[^}]*posts/.test(source)) return;
        if (!plan) throw new Error(`not planned: ${source}`);
        const viewsBefore = postId === undefined ? undefined : await viewCount(postId);
        const text = await plan.run(viewer, variables);
        if (postId !== undefined && viewsBefore !== undefined) {
          // A counted read counts one view when it answers, none when it steps aside; then the
          // count is put back so that the resolvers' read gives the same number.
          const viewsAfter = await viewCount(postId);
          if (viewsAfter !== viewsBefore + (text === undefined ? 0 : 1))
            throw new Error(`views ${viewsBefore} -> ${viewsAfter}: ${source}`);
          if (text !== undefined) tally.counted++;
          await server.database.db.updateTable('posts').set({ view_count: viewsBefore }).where('id', '=', Number(postId)).execute();
        }
        const expected = await graphql({
          schema,
          source,
          variableValues: variables,
          contextValue: createContentContext(viewer, unplanned),
        });
        const as = `${source} ${JSON.stringify(variables)} as ${viewer?.userId ?? 'anonymous'}`;
        // Stepping aside is always safe (the resolvers answer); it happens for arguments they may refuse
        // (refused only if reached: a nested page under an empty list is not).
        if (text === undefined) {
          tally.steppedAside++;
          return;
        }
        if (expected.errors?.length)
          throw new Error(`planned where the resolvers answer with errors ${JSON.stringify(expected.errors)}: ${as}`);
        const written = JSON.stringify(expected.data);
        if (text !== written) throw new Error(`differs for ${as}:\nplanner:   ${text}\nresolvers: ${written}`);
        tally.planned++;
        if (viewer === null && tally.overHttp < 25 && postId === undefined) {
          // The same over HTTP: the server sends the statement's text in the envelope.
          const response = await fetch(`${server.baseUrl}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
            body: JSON.stringify({ query: source, variables }),
          });
          const body = await response.text();
          // The server's document limits (aliases, depth, length, cost) refuse some generated operations
          // before any plan runs; those say nothing about the plan.
          const refused = (JSON.parse(body) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code;
          if (refused !== undefined && DOCUMENT_LIMITS.has(refused)) return;
          if (body !== JSON.stringify({ data: expected.data }))
            throw new Error(`over HTTP, differs for ${as}:\n${body}\nresolvers: ${written}`);
          tally.overHttp++;
        }
      },
    ),
    250,
  );
  t.comment(
    `${tally.planned} planned and identical (${tally.counted} counted reads), ${tally.steppedAside} left to the resolvers, ${tally.overHttp} over HTTP`,
  );
  t.ok(tally.planned >= 75, 'a good part of the operations were planned');
  // About one planned case in five is anonymous (the HTTP check's viewer): at least one, whatever the draw.
  t.ok(tally.overHttp > 0, 'and some over HTTP');
  t.ok(tally.steppedAside > 0, 'some arguments were refused and left to the resolvers');
  t.ok(tally.counted > 0, 'some post(id) reads were planned, each counted once');
});

t.test('an operation covered whole logs its statement at debug and is one statement', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000000000', GRAPHQL_MAX_DEPTH: '100' } });
  await seed(server);
  const entries: { details: any; message: string }[] = [];
  const log = {
    level: 'debug',
    debug: (details: object, message: string) => void entries.push({ details, message }),
    warn: () => undefined,
  };
  const planner = new ContentPlanner(server.database.db, log);
  const plan = planner.planOperation(
    buildContentSchema(),
    parse('query Feed { users(size: 2) { content { id posts(size: 1) { content { title author { id } } } } } }'),
    'Feed',
  );
  const statements: string[] = [];
  const stop = server.database.observeQueries((text) => statements.push(text));
  const text = await plan!.run(null, {});
  stop();
  t.match(text, /^\{"users":\{"content":\[\{"id":/);
  t.equal(statements.length, 1, 'one statement');
  t.equal(entries.length, 1, 'one plan logged');
  t.equal(entries[0]?.message, 'GraphQL plan: one statement');
  t.equal(entries[0]?.details.operation, 'Feed');
  t.same([entries[0]?.details.sql], statements, 'the statement logged is the one run');
  t.match(entries[0]?.details.sql, /^\/\* prepared: plan-[0-9a-f]+ \*\/ select /, 'named, so PostgreSQL prepares it once per connection');
});

t.test('page numbers up to the largest Int: answered by the plans, as the resolvers answer', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000000000', GRAPHQL_MAX_DEPTH: '100' } });
  await seed(server);
  const schema = buildContentSchema();
  const services = server.app.services as unknown as ContentServices;
  const unplanned: ContentServices = { ...services, planner: null };
  const MAX = 2147483647;
  const counts = 'totalElements totalPages hasNext';
  const covered = [
    `{ users(page: ${MAX}, size: 1) { ${counts} content { id } } }`,
    `{ users(page: ${MAX}, size: 100) { ${counts} content { id } } }`,
    `{ users(size: 3) { ${counts} content { id posts(page: ${MAX}, size: 1) { ${counts} content { id } } } } }`,
    `{ users(size: 3) { content { id posts(page: ${MAX}, size: 100) { ${counts} content { id } } } } }`,
    `{ users(page: ${MAX}, size: 100) { ${counts} } }`,
  ];
  for (const source of covered) {
    const expected = await graphql({ schema, source, contextValue: createContentContext(null, unplanned) });
    t.notOk(expected.errors, `the resolvers answer ${source}`);
    const { entries, planner } = recordingPlanner(server);
    const text = await planner.planOperation(schema, parse(source), undefined)!.run(null, {});
    t.same(
      entries.map((e) => e.level),
      ['debug'],
      `the whole-operation plan ran, and did not fail: ${source}`,
    );
    t.equal(text, JSON.stringify(expected.data), `the plan answers what the resolvers answer: ${source}`);
  }
  const last = (await graphql({ schema, source: covered[0]!, contextValue: createContentContext(null, unplanned) })).data;
  t.match(last, { users: { content: [], hasNext: false, totalElements: USERS - 1, totalPages: USERS - 1 } }, 'an empty page, the totals');
});

// ---------------------------------------------------------------------------------------------
// A planned mutation: `addComment` writes, notifies and answers in one statement.

/** Users and posts as a mutation's answer may select them (not reaching a page of comments: see operation-shape.ts). */
const answeredUser = fc
  .tuple(subset(coveredOfUser), fc.option(mostlyValidPageArg, { nil: null }))
  .map(([scalars, page]) => [...scalars, ...(page === null ? [] : [`posts${page} { totalElements content { id title } }`])].join(' '));
const answeredPost = fc
  .tuple(subset(coveredOfPost), fc.option(answeredUser, { nil: null }), fc.boolean())
  .map(([scalars, author, tags]) =>
    [...scalars, ...(author ? [`author { ${author} }`] : []), ...(tags ? ['tags { id name }'] : [])].join(' '),
  );
const answeredComment = fc
  .tuple(
    subset(['id', 'content', 'createdAt', '__typename']),
    fc.option(answeredUser, { nil: null }),
    fc.option(answeredPost, { nil: null }),
  )
  .map(([scalars, author, post]) =>
    [...scalars, ...(author ? [`author { ${author} }`] : []), ...(post ? [`post { ${post} }`] : [])].join(' '),
  );
/** Comment text: mostly valid, with what JSON and PostgreSQL make hard (PostgreSQL text holds no NUL), some out of the 1–5000 rule. */
const commentText = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map((s) => s.replaceAll('\u0000', '0')) },
  { weight: 2, arbitrary: fc.constantFrom('"quoted" \\ \u0001\u001f \u2028\u2029 é 😀 </script>', 'x'.repeat(5000), 'plain') },
  { weight: 1, arbitrary: fc.constantFrom('', 'y'.repeat(5001)) },
);

t.test('planned mutations: the bytes, the stored rows and the events the resolvers give', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000000000', GRAPHQL_MAX_DEPTH: '100' } });
  const db = server.database.db;
  const ids = await seed(server);
  const { others, postIds } = await seedOtherTenant(server, ids);
  // One timestamp for every new comment (microseconds included): both ways then store and answer the same one.
  await sql`alter table comments alter column created_at set default '2024-05-06 07:08:09.123987+00'`.execute(db);
  t.teardown(() => sql`alter table comments alter column created_at set default now()`.execute(db));
  const events: string[] = [];
  const listener = await listenToChannel(server.database, CONTENT_EVENTS_CHANNEL, (payload) => events.push(payload), {
    log: { error: () => undefined },
  });
  t.teardown(() => listener.close());
  let markers = 0;
  /** The events since the last call: a marker sent after them arrives after them (commit order). */
  const eventsSent = async (): Promise<string[]> => {
    const marker = `marker-${++markers}`;
    await sql`select pg_notify(${CONTENT_EVENTS_CHANNEL}, ${marker})`.execute(db);
    const deadline = Date.now() + 5000;
    while (!events.includes(marker)) {
      if (Date.now() > deadline) throw new Error(`no ${marker} in 5 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
    return events.splice(0).filter((e) => e !== marker);
  };
  const sequence = async () =>
    (await sql<{ last_value: string; is_called: boolean }>`select last_value, is_called from comments_id_seq`.execute(db)).rows[0]!;
  const newComments = async (after: number) => db.selectFrom('comments').selectAll().where('id', '>', after).execute();

  const schema = buildContentSchema();
  const services = server.app.services as unknown as ContentServices;
  const planner = services.planner!;
  const unplanned: ContentServices = { ...services, planner: null };
  const otherTenant = (userId: string, tenantRoles: string[]): Principal => ({ ...principal(userId, []), tenantId: 'other', tenantRoles });
  const viewers = [
    null,
    principal(ids[1]!, []),
    principal(ids[2]!, ['ADMIN']),
    principal(ids[4]!, []),
    otherTenant(others[0]!, []),
    otherTenant(others[1]!, ['ADMIN']),
    principal('no-such-user', []),
  ];
  // Comments to reply to: top-level ones and replies, on posts of every status and tenant.
  const commentIds = (await db.selectFrom('comments').select('id').orderBy('id').execute()).map((c) => String(c.id));
  const tally = { planned: 0, steppedAside: 0, replies: 0 };
  await assertProperty(
    fc.asyncProperty(
      answeredComment,
      // addComment on a post, or replyToComment under a comment (a reply's reply too).
      fc.oneof(
        fc.tuple(
          fc.constant(false),
          fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...postIds) }, { weight: 1, arbitrary: fc.constantFrom('abc', '999999', '') }),
        ),
        fc.tuple(
          fc.constant(true),
          fc.oneof(
            { weight: 8, arbitrary: fc.constantFrom(...commentIds) },
            { weight: 1, arbitrary: fc.constantFrom('abc', '999999', '') },
          ),
        ),
      ),
      commentText,
      fc.integer({ min: 0, max: viewers.length - 1 }),
      async (selection, [reply, targetId], content, v) => {
        const viewer = viewers[v]!;
        const source = reply
          ? `mutation Reply($commentId: ID!, $content: String!) { r0: replyToComment(commentId: $commentId, content: $content) { ${selection} } }`
          : `mutation Add($postId: ID!, $content: String!) { r0: addComment(postId: $postId, content: $content) { ${selection} } }`;
        const variables = reply ? { commentId: targetId, content } : { postId: targetId, content };
        const as = `${source} ${JSON.stringify(variables).slice(0, 200)} as ${viewer?.userId ?? 'anonymous'}`;
        const plan = planner.planOperation(schema, parse(source), undefined);
        if (!plan) throw new Error(`not planned: ${source}`);
        const before = await sequence();
        const last = Number(before.is_called ? before.last_value : Number(before.last_value) - 1);

        const text = await plan.run(viewer, variables);
        const plannedRows = await newComments(last);
        const plannedEvents = await eventsSent();
        if (text === undefined) {
          if (plannedRows.length || plannedEvents.length)
            throw new Error(`stepped aside having written ${JSON.stringify(plannedRows)}: ${as}`);
          tally.steppedAside++;
        } else {
          // Undone, and the sequence put back: the resolvers' insert takes the same id.
          await db.deleteFrom('comments').where('id', '>', last).execute();
          await sql`select setval('comments_id_seq', ${before.last_value}::bigint, ${before.is_called})`.execute(db);
        }

        const expected = await graphql({
          schema,
          source,
          variableValues: variables,
          contextValue: createContentContext(viewer, unplanned),
        });
        const resolverRows = await newComments(last);
        const resolverEvents = await eventsSent();
        await db.deleteFrom('comments').where('id', '>', last).execute();
        if (text === undefined) return;
        if (expected.errors?.length)
          throw new Error(`planned where the resolvers answer with errors ${JSON.stringify(expected.errors)}: ${as}`);
        const written = JSON.stringify(expected.data);
        if (text !== written) throw new Error(`differs for ${as}:\nplanner:   ${text}\nresolvers: ${written}`);
        if (JSON.stringify(plannedRows) !== JSON.stringify(resolverRows) || plannedRows.length !== 1)
          throw new Error(
            `stored rows differ for ${as}:\nplanner:   ${JSON.stringify(plannedRows)}\nresolvers: ${JSON.stringify(resolverRows)}`,
          );
        if (JSON.stringify(plannedEvents) !== JSON.stringify(resolverEvents) || plannedEvents.length !== 1)
          throw new Error(
            `events differ for ${as}:\nplanner:   ${JSON.stringify(plannedEvents)}\nresolvers: ${JSON.stringify(resolverEvents)}`,
          );
        tally.planned++;
        if (reply) tally.replies++;
      },
    ),
    250,
  );
  t.comment(
    `${tally.planned} planned and identical (bytes, row, event; ${tally.replies} replies), ${tally.steppedAside} left to the resolvers`,
  );
  t.ok(tally.planned >= 60, 'a good part of the mutations were planned');
  t.ok(tally.replies >= 20, 'replies among them');
  t.ok(
    tally.steppedAside > 0,
    'some (no viewer, a post or parent not readable or archived, a bad argument, no such user) were left to the resolvers',
  );

  // likePost: the post with its likeCount counting the like, the like stored once, no event.
  await sql`alter table post_likes alter column created_at set default '2024-05-06 07:08:09.123987+00'`.execute(db);
  t.teardown(() => sql`alter table post_likes alter column created_at set default now()`.execute(db));
  const likesOf = async (postId: string, userId: string | undefined) =>
    /^\d+$/.test(postId) && userId
      ? await db.selectFrom('post_likes').selectAll().where('post_id', '=', Number(postId)).where('user_id', '=', userId).execute()
      : [];
  const likes = { planned: 0, steppedAside: 0, already: 0 };
  await assertProperty(
    fc.asyncProperty(
      answeredPost,
      fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...postIds) }, { weight: 1, arbitrary: fc.constantFrom('abc', '999999', '') }),
      fc.integer({ min: 0, max: viewers.length - 1 }),
      fc.boolean(),
      async (selection, postId, v, likedBefore) => {
        const viewer = viewers[v]!;
        const source = `mutation Like($postId: ID!) { r0: likePost(postId: $postId) { ${selection} } }`;
        const variables = { postId };
        const as = `${source} ${JSON.stringify(variables)} as ${viewer?.userId ?? 'anonymous'}${likedBefore ? ', liked before' : ''}`;
        const plan = planner.planOperation(schema, parse(source), undefined);
        if (!plan) throw new Error(`not planned: ${source}`);
        // Liked already or not: the like is then kept, or inserted once.
        const userExists = viewer && viewer.userId !== 'no-such-user';
        if (likedBefore && userExists && postIds.includes(postId))
          await db
            .insertInto('post_likes')
            .values({ post_id: Number(postId), user_id: viewer.userId })
            .onConflict((oc) => oc.doNothing())
            .execute();
        const before = await likesOf(postId, viewer?.userId);

        const text = await plan.run(viewer, variables);
        const plannedRows = await likesOf(postId, viewer?.userId);
        const plannedEvents = await eventsSent();
        const undo = async () => {
          if (!before.length && /^\d+$/.test(postId) && viewer)
            await db.deleteFrom('post_likes').where('post_id', '=', Number(postId)).where('user_id', '=', viewer.userId).execute();
        };
        if (text === undefined) {
          if (JSON.stringify(plannedRows) !== JSON.stringify(before) || plannedEvents.length)
            throw new Error(`stepped aside having written ${JSON.stringify(plannedRows)}: ${as}`);
          likes.steppedAside++;
        } else await undo();

        const expected = await graphql({
          schema,
          source,
          variableValues: variables,
          contextValue: createContentContext(viewer, unplanned),
        });
        const resolverRows = await likesOf(postId, viewer?.userId);
        const resolverEvents = await eventsSent();
        await undo();
        if (text === undefined) return;
        if (expected.errors?.length)
          throw new Error(`planned where the resolvers answer with errors ${JSON.stringify(expected.errors)}: ${as}`);
        const written = JSON.stringify(expected.data);
        if (text !== written) throw new Error(`differs for ${as}:\nplanner:   ${text}\nresolvers: ${written}`);
        if (JSON.stringify(plannedRows) !== JSON.stringify(resolverRows) || plannedRows.length !== 1)
          throw new Error(
            `stored likes differ for ${as}:\nplanner:   ${JSON.stringify(plannedRows)}\nresolvers: ${JSON.stringify(resolverRows)}`,
          );
        if (plannedEvents.length || resolverEvents.length) throw new Error(`an event for a like: ${as}`);
        likes.planned++;
        if (before.length) likes.already++;
      },
    ),
    100,
  );
  t.comment(
    `likePost: ${likes.planned} planned and identical (${likes.already} liked before), ${likes.steppedAside} left to the resolvers`,
  );
  t.ok(likes.planned >= 25 && likes.already > 0, 'a good part of the likes were planned, some of a post liked before');
  t.ok(likes.steppedAside > 0, 'some were left to the resolvers');
  for (const below of [
    'author { posts { content { likeCount } } }',
    'comments { content { author { posts { content { likeCount } } } } }',
  ]) {
    const source = `mutation { likePost(postId: "${postIds[0]}") { likeCount ${below} } }`;
    t.equal(planner.planOperation(schema, parse(source), undefined), null, `not planned: ${below}`);
  }

  // A selection reaching a page of comments would miss the new one (the statement's snapshot): not planned.
  for (const reaching of ['post { comments { totalElements } }', 'author { posts { content { comments { content { id } } } } }']) {
    const source = `mutation { addComment(postId: "${postIds[0]}", content: "x") { id ${reaching} } }`;
    t.equal(planner.planOperation(schema, parse(source), undefined), null, `not planned: ${reaching}`);
    const reply = `mutation { replyToComment(commentId: "${commentIds[0]}", content: "x") { id ${reaching} } }`;
    t.equal(planner.planOperation(schema, parse(reply), undefined), null, `not planned (a reply): ${reaching}`);
  }
});

// Long and awkward texts (posts' and comments' content, bios): `to_json` escapes them as
// JSON.stringify does, each in its place in nested lists (decision 214: kept over a splice in JS).

/**
 * Texts that JSON escaping or a value put in another's place could get wrong (U+0001 was the
 * splice's mark). No NUL: PostgreSQL's text cannot hold
 * it. Lone surrogates are stored as U+FFFD by both drivers (their UTF-8 encoding), so both paths
 * read the same replacement character; they are kept to hold that.
 */
const TRICKY_TEXTS = [
  '',
  '"quoted" \\ backslash \\" \\\\ \\u0001 /slash/',
  Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join(''),
  Array.from({ length: 30 }, (_, i) => String.fromCharCode(i + 2)).join(''),
  '\u0001',
  '\u0001\u0001',
  'U+0001 \u0001 inside',
  '\u0001 at the start',
  'at the end \u0001',
  '\u2028 line and paragraph separators \u2029',
  '\ud800 lone \udc00 surrogates \udbff',
  '😀 👩‍👩‍👧 🇫🇷 e\u0301 \u00e9 \ufeff \u007f \u0080 \uffff',
  '","content":"not a field","id":"',
  '{"json":["like",null]}',
];
/** Very long texts, a few of them: a post's, a comment's and a bio. */
const LONG_TEXTS = [`long ${'Lorem ipsum "dolor" sit\\amet\n\t😀 \u0001 '.repeat(5_000)}end`, 'x'.repeat(300_000)];

/** Eight users (bios from the texts, some null), many published posts and comments each carrying one of the texts. */
async function seedLongTexts(server: TestServer): Promise<{ ids: string[]; postIds: string[] }> {
  const db = server.database.db;
  const text = (i: number) => {
    if (i % 41 === 40) return LONG_TEXTS[i % LONG_TEXTS.length]!;
    const tricky = TRICKY_TEXTS[i % TRICKY_TEXTS.length]!;
    // Most texts end with their index, so that two values put in each other's place differ.
    return i % 3 === 0 ? tricky : `${tricky}#${i}`;
  };
  const users = await db
    .insertInto('users')
    .values(
      Array.from({ length: 8 }, (_, i) => ({
        username: `long${i}`,
        email: `long${i}@example.com`,
        display_name: `Long ${i}`,
        bio: i % 4 === 1 ? null : text(i + 5),
        created_at: new Date(Date.UTC(2024, 0, 1 + i)),
      })),
    )
    .returning('id')
    .execute();
  const ids = users.map((u) => u.id);
  const posts = await db
    .insertInto('posts')
    .values(
      ids.flatMap((author, i) =>
        Array.from({ length: 4 + i * 4 }, (_, j) => ({
          author_id: author,
          title: `Post ${i}.${j} \u0001`,
          content: text(i * 31 + j),
          slug: `long-${i}-${j}`,
          status: 'PUBLISHED',
          created_at: new Date(Date.UTC(2024, 1, 1, 0, i, j)),
        })),
      ),
    )
    .returning('id')
    .execute();
  await db
    .insertInto('comments')
    .values(
      posts.flatMap((post, i) =>
        Array.from({ length: i % 4 }, (_, j) => ({
          post_id: post.id,
          author_id: ids[(i + j) % ids.length]!,
          content: text(i * 7 + j + 1),
          created_at: new Date(Date.UTC(2024, 2, 1, 0, 0, j)),
        })),
      ),
    )
    .execute();
  return { ids, postIds: posts.map((p) => String(p.id)) };
}

/** Where two texts first differ, or -1. */
function firstDifference(a: string, b: string): number {
  if (a === b) return -1;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}

t.test('long and awkward texts: the bytes graphql-js writes, each value in its place', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000000000', GRAPHQL_MAX_DEPTH: '100' } });
  const { ids, postIds } = await seedLongTexts(server);
  const schema = buildContentSchema();
  const services = server.app.services as unknown as ContentServices;
  const unplanned: ContentServices = { ...services, planner: null };
  const comments = 'comments(size: 100) { content { id content author { id bio } } }';
  const sources = [
    `{ users(size: 100) { content { id bio posts(size: 100) { content { id content title ${comments} author { bio } } } } } }`,
    `{ users(size: 100) { content { bio again: bio posts(size: 100) { content { content c2: content } } } } }`,
    `{ a: user(id: "${ids[7]}") { bio posts(size: 100) { content { content ${comments} } } } b: user(id: "${ids[1]}") { bio } }`,
    `{ searchUsers(query: "long") { bio posts(size: 100) { content { id content } } } }`,
    ...postIds.slice(0, 6).map((id) => `{ post(id: "${id}") { content author { bio } ${comments} } }`),
  ];
  for (const source of sources) {
    const expected = await graphql({ schema, source, contextValue: createContentContext(null, unplanned) });
    t.notOk(expected.errors, `the resolvers answer ${source.slice(0, 60)}`);
    const { entries, planner } = recordingPlanner(server);
    const text = await planner.planOperation(schema, parse(source), undefined)!.run(null, {});
    t.same(
      entries.map((e) => e.level),
      ['debug'],
      `the whole-operation plan ran, and did not fail: ${source.slice(0, 60)}`,
    );
    // Not t.equal: its diff of half a megabyte of text is no help; the first difference is.
    const written = JSON.stringify(expected.data);
    const at = firstDifference(text ?? '', written);
    t.ok(at === -1, `the same bytes as graphql-js: ${source.slice(0, 60)}${at === -1 ? '' : ` (first difference at ${at})`}`);
  }
});

// ---------------------------------------------------------------------------------------------
// updateUser: the profile changed, its webhook event recorded and fanned out, in one statement.

/** An input field: absent, null (unchanged), a value, or one the constraints refuse. */
const profileField = (values: fc.Arbitrary<string>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: fc.constant(null) }, { weight: 6, arbitrary: values });
const profileInput = fc.record(
  {
    displayName: profileField(
      fc.oneof(
        { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map((s) => s.replaceAll('\u0000', '0')) },
        { weight: 3, arbitrary: fc.constantFrom('Writer 1', 'Writer 2', 'Other "0"\n', '"quoted" \\ \u2028 😀') },
        { weight: 1, arbitrary: fc.constantFrom('', 'n'.repeat(101)) },
      ),
    ),
    bio: profileField(fc.constantFrom('', 'A new bio', 'Bio 1', '\u0001 "x" \\', 'b'.repeat(500), 'b'.repeat(501))),
    avatarUrl: profileField(fc.constantFrom('https://img.example/a.png', 'http://img.example/b?c=1', 'ftp://img.example/c', 'not a url')),
  },
  { requiredKeys: [] },
);

t.test('planned updateUser: the bytes, the stored user, the webhook events and deliveries the resolvers give', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000000000', GRAPHQL_MAX_DEPTH: '100' } });
  const db = server.database.db;
  const ids = await seed(server);
  const { others } = await seedOtherTenant(server, ids);
  // Endpoints of every audience and status: the platform's (with and without every tenant), each
  // tenant's, subscribed to the type, to everything, or to another type.
  await db
    .insertInto('webhook_endpoints')
    .values(
      (
        [
          [null, true, ['*'], 'active'],
          [null, false, ['user.updated'], 'active'],
          [null, true, ['user.created'], 'active'],
          ['default', false, ['user.updated'], 'active'],
          ['default', false, ['*'], 'degraded'],
          ['default', false, ['user.updated', 'user.deleted'], 'disabled'],
          ['other', false, ['user.updated'], 'active'],
        ] as const
      ).map(([tenant, all, events, status], i) => ({
        url: `https://receiver.example/hook/${i}`,
        events: [...events],
        api_version: '2026-11-24',
        secret: 'whsec_test',
        status,
        tenant_id: tenant,
        all_tenants: all,
      })),
    )
    .execute();
  // Display names derived for a SCIM user who had none: a name given makes it the user's own.
  await db.updateTable('users').set({ display_name_derived: true }).where('id', 'in', [ids[1]!, others[0]!]).execute();
  const schema = buildContentSchema();
  const services = server.app.services as unknown as ContentServices;
  const planner = services.planner!;
  const unplanned: ContentServices = { ...services, planner: null };
  const otherTenant = (userId: string): Principal => ({ ...principal(userId, []), tenantId: 'other' });
  const viewers = [
    principal(ids[1]!, []),
    principal(ids[2]!, ['ADMIN']),
    principal(ids[3]!, []),
    principal(ids[4]!, []),
    otherTenant(others[0]!),
    principal('no-such-user', []),
    null,
  ];

  const userRow = async (id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  const sequence = async () =>
    (await sql<{ last_value: string; is_called: boolean }>`select last_value, is_called from webhook_events_position_seq`.execute(db))
      .rows[0]!;
  const lastPosition = async () =>
    Number(
      (
        await db
          .selectFrom('webhook_events')
          .select(sql<string>`coalesce(max(position), 0)`.as('p'))
          .executeTakeFirstOrThrow()
      ).p,
    );
  /** The events after `after` and their deliveries, without what differs by nature (random ids, clocks). */
  const written = async (after: number, user: Awaited<ReturnType<typeof userRow>>) => {
    const events = await db.selectFrom('webhook_events').selectAll().where('position', '>', after).orderBy('position').execute();
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select([
        'endpoint_id',
        'event_position',
        'ordering_key',
        'state',
        'attempts',
        'lease_expires_at',
        'leased_by',
        'last_error',
        'completed_at',
      ])
      .where('event_position', '>', after)
      .orderBy('event_position')
      .orderBy('endpoint_id')
      .execute();
    // The change's time is now() of its transaction: each way's own, the same in the row and the event.
    for (const event of events) {
      const object = event.object as { updatedAt?: string };
      if (object.updatedAt !== user?.updated_at.toISOString())
        throw new Error(`the event's updatedAt ${object.updatedAt} is not the row's ${user?.updated_at.toISOString()}`);
      object.updatedAt = '(the change)';
    }
    return JSON.stringify({ events: events.map(({ id: _id, created_at: _at, ...event }) => event), deliveries });
  };
  const stored = (user: Awaited<ReturnType<typeof userRow>>) => JSON.stringify(user && { ...user, updated_at: '(the change)' });
  const restore = async (
    before: NonNullable<Awaited<ReturnType<typeof userRow>>>,
    after: number,
    seq: { last_value: string; is_called: boolean },
  ) => {
    const { display_name, bio, avatar_url, display_name_derived, version, updated_at } = before;
    await db
      .updateTable('users')
      .set({ display_name, bio, avatar_url, display_name_derived, version, updated_at })
      .where('id', '=', before.id)
      .execute();
    await db.deleteFrom('webhook_events').where('position', '>', after).execute();
    await sql`select setval('webhook_events_position_seq', ${seq.last_value}::bigint, ${seq.is_called})`.execute(db);
  };

  const tally = { planned: 0, steppedAside: 0, events: 0, unchanged: 0 };
  await assertProperty(
    fc.asyncProperty(
      answeredUser,
      fc.integer({ min: 0, max: viewers.length - 1 }),
      fc.oneof(
        { weight: 8, arbitrary: fc.constant('self') },
        { weight: 1, arbitrary: fc.constantFrom(ids[0]!, others[1]!, 'no-such-user') },
      ),
      profileInput,
      async (selection, v, target, input) => {
        const viewer = viewers[v]!;
        const id = target === 'self' ? (viewer?.userId ?? ids[0]!) : target;
        const source = `mutation Update($id: ID!, $input: UpdateUserInput!) { r0: updateUser(id: $id, input: $input) { ${selection} } }`;
        const variables = { id, input };
        const as = `${source} ${JSON.stringify(variables)} as ${viewer?.userId ?? 'anonymous'}`;
        const plan = planner.planOperation(schema, parse(source), undefined);
        if (!plan) throw new Error(`not planned: ${source}`);
        const before = await userRow(id);
        const after = await lastPosition();
        const seq = await sequence();

        const text = await plan.run(viewer, variables);
        const plannedUser = await userRow(id);
        const plannedWrites = await written(after, plannedUser);
        if (text === undefined) {
          if (
            stored(plannedUser) !== stored(before) ||
            plannedUser?.updated_at.getTime() !== before?.updated_at.getTime() ||
            plannedWrites !== '{"events":[],"deliveries":[]}'
          )
            throw new Error(`stepped aside having written ${JSON.stringify(plannedUser)} ${plannedWrites}: ${as}`);
          tally.steppedAside++;
        } else await restore(before!, after, seq);

        const expected = await graphql({
          schema,
          source,
          variableValues: variables,
          contextValue: createContentContext(viewer, unplanned),
        });
        const resolverUser = await userRow(id);
        const resolverWrites = await written(after, resolverUser);
        if (before) await restore(before, after, seq);
        if (text === undefined) return;
        if (expected.errors?.length)
          throw new Error(`planned where the resolvers answer with errors ${JSON.stringify(expected.errors)}: ${as}`);
        const answer = JSON.stringify(expected.data);
        if (text !== answer) throw new Error(`differs for ${as}:\nplanner:   ${text}\nresolvers: ${answer}`);
        if (stored(plannedUser) !== stored(resolverUser))
          throw new Error(`stored users differ for ${as}:\nplanner:   ${stored(plannedUser)}\nresolvers: ${stored(resolverUser)}`);
        // Changed: both moved updated_at; unchanged: neither did.
        const moved = (user: typeof before) => user!.updated_at.getTime() !== before!.updated_at.getTime();
        if (moved(plannedUser) !== moved(resolverUser) || moved(plannedUser) !== plannedUser!.version > before!.version)
          throw new Error(`updated_at moved differently for ${as}`);
        if (plannedWrites !== resolverWrites)
          throw new Error(`webhook writes differ for ${as}:\nplanner:   ${plannedWrites}\nresolvers: ${resolverWrites}`);
        tally.planned++;
        if (plannedWrites.includes('user.updated')) tally.events++;
        if (plannedUser!.version === before!.version) tally.unchanged++;
      },
    ),
    200,
  );
  t.comment(
    `updateUser: ${tally.planned} planned and identical (${tally.events} with a user.updated event, ${tally.unchanged} changing nothing), ${tally.steppedAside} left to the resolvers`,
  );
  t.ok(tally.planned >= 50, 'a good part of the updates were planned');
  t.ok(tally.events >= 10 && tally.unchanged > 0, 'some recorded an event, some changed nothing');
  t.ok(tally.steppedAside > 0, 'some (no viewer, another user, no such user, a refused input) were left to the resolvers');

  // A user read again below the answer (an author, maybe the same one) would come from the snapshot: not planned.
  for (const below of ['posts { content { author { displayName } } }', 'posts { content { comments { content { author { id } } } } }']) {
    const source = `mutation { updateUser(id: "${ids[1]}", input: { displayName: "x" }) { id ${below} } }`;
    t.equal(planner.planOperation(schema, parse(source), undefined), null, `not planned: ${below}`);
  }
});
