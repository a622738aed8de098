/**
 * Defaults of the content graph's paged and limited arguments, applied when a client passes an
 * explicit null (the SDL's defaults cover an omitted argument). The resolvers and the planner both
 * read them here, so a planned page is the page the resolver would have read.
 */
export const DEFAULT_USERS_SIZE = 20;
export const DEFAULT_NESTED_SIZE = 10;
export const DEFAULT_SEARCH_LIMIT = 10;
/**
 * `User.followers`, `User.following` and `Comment.replies`: lists bounded by a `limit`, not paged. 10
 * is the length the cost model assumed for them while they were unbounded, so no query costs more.
 */
export const DEFAULT_LIST_LIMIT = 10;
