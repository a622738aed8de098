/**
 * The queries the GraphQL cost model is calibrated on (docs/graphql.md, "Limits"): realistic ones a
 * client sends first, which must fit under the default complexity limit, and hostile ones, which
 * must stay refused. scripts/bench/graphql-cost.ts measures what each costs the server;
 * test/graphql/cost-calibration.test.ts pins their estimates and runs them against the server.
 */
import { OPERATIONS } from './fixtures.ts';

export interface CostQuery {
  query: string;
  /** `$user` and `$post` are filled in with an existing user's and post's id where declared. */
  variables?: Record<string, unknown>;
}

export const REALISTIC = {
  /** The issue's first query: five users, their posts' titles, statuses and tags. */
  natural: { query: '{ users(size: 5) { content { posts { content { title status tags { name } } } } } }' },
  /** The benchmarks' feed (scripts/bench/fixtures.ts): 5 users, 5 posts each, each post's author. */
  feed: OPERATIONS.feed,
  /** A profile page: the user, who follows them and whom they follow, their latest posts. */
  profile: {
    query:
      'query Profile($user: ID!) { user(id: $user) { id username displayName bio avatarUrl followerCount createdAt followers { id username displayName } following { id username } posts(size: 10) { totalElements content { id title createdAt likeCount tags { name } } } } }',
  },
  /** A post page: the post, its author and tags, a page of comments with their authors and first replies. */
  post: {
    query:
      'query PostPage($post: ID!) { post(id: $post) { id title content status likeCount viewCount createdAt author { id username displayName } tags { name } comments(size: 10) { totalElements hasNext content { id content createdAt author { id username } replies(limit: 5) { id content createdAt author { id username } } } } } }',
  },
  /** A people search with each match's three latest posts. */
  search: {
    query:
      'query Search($q: String!) { searchUsers(query: $q, limit: 10) { id username displayName posts(size: 3) { content { id title } } } }',
    variables: { q: 'user' },
  },
} as const satisfies Record<string, CostQuery>;

/** `fragment F0 on User { id ...F1 ...F1 } … fragment F<levels> on User { id }`: 2^levels fields. */
export function doublingFragments(levels: number, root: string): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on User { id ...F${i + 1} ...F${i + 1} }`);
  return `${root} ${fragments.join(' ')} fragment F${levels} on User { id }`;
}

const aliases = (count: number, selection: (i: number) => string) => Array.from({ length: count }, (_, i) => selection(i)).join(' ');

export const HOSTILE = {
  /** 2^40 fields once expanded: refused by the expansion bound (document-bounds.ts) before any cost. */
  fragmentBomb: { query: doublingFragments(40, '{ users { content { ...F0 } } }') },
  /** The largest page of every level, nested: 100 users × 100 posts × 100 comments. */
  nestedPages: {
    query: '{ users(size: 100) { content { posts(size: 100) { content { comments(size: 100) { content { id content } } } } } } }',
  },
  /** Followers of followers at the largest limit, under the largest page: 100 × 100 × 100 users. */
  followersOfFollowers: { query: '{ users(size: 100) { content { followers(limit: 100) { followers(limit: 100) { id } } } } }' },
  /** Deep alias fan-out: 20 aliased follower lists (the alias cap) under every user of a page. */
  aliasFanOut: {
    query: `{ users(size: 20) { content { ${aliases(20, (i) => `f${i}: followers(limit: 100) { id username }`)} } } }`,
  },
  /** Alias fan-out at the root: 20 copies (the alias cap) of a cheap-looking page of posts with tags. */
  rootFanOut: {
    query: `{ ${aliases(20, (i) => `u${i}: users(size: 10) { content { posts(size: 10) { content { title tags { name } } } } }`)} }`,
  },
} as const satisfies Record<string, CostQuery>;
