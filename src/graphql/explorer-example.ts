/**
 * The query GraphiQL opens with (its `defaultQuery`: shown until the visitor's own text is kept in the
 * browser's storage). It runs as-is without signing in: `users` lists the default tenant's active
 * users to anyone, and `User.posts` shows anyone the PUBLISHED and ARCHIVED posts (drafts only to
 * their author). Its cost, 101, is well inside GRAPHQL_MAX_COMPLEXITY's default 200
 * (src/graphql/limits.ts), so a somewhat lowered limit still runs it.
 */
export const EXAMPLE_QUERY = `# A first query, runnable as-is without signing in (Ctrl-Enter or the ▶ button): the first
# users and each one's latest public posts. An empty database answers empty lists: \`npm run seed\`.
query {
  users(size: 5) {
    totalElements
    content {
      username
      displayName
      posts(size: 3) {
        totalElements
        content {
          title
          status
          createdAt
        }
      }
    }
  }
}
`;
