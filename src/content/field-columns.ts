/**
 * Which column of its row each plain field of the content graph reads: the one place that says so.
 * The resolvers take their one-line mappings from it (`columnResolvers`) and the whole-operation
 * plan its columns (planner/operation-shape.ts), so a field renamed or added here is answered the
 * same way by both paths. Fields that are not a column (a page, a count, an author) are resolved
 * elsewhere; a field whose column has its own name needs no resolver (graphql-js reads the row).
 */
import type { CommentsRow, PostsRow, TagsRow, UsersRow } from '../../generated/db/types.ts';

export const FIELD_COLUMNS = {
  User: {
    id: 'id',
    username: 'username',
    email: 'email',
    displayName: 'display_name',
    bio: 'bio',
    avatarUrl: 'avatar_url',
    createdAt: 'created_at',
  },
  Post: {
    id: 'id',
    title: 'title',
    content: 'content',
    slug: 'slug',
    status: 'status',
    viewCount: 'view_count',
    createdAt: 'created_at',
    updatedAt: 'updated_at',
    metadata: 'metadata',
  },
  Tag: { id: 'id', name: 'name' },
  Comment: { id: 'id', content: 'content', createdAt: 'created_at' },
} as const satisfies {
  User: Record<string, keyof UsersRow>;
  Post: Record<string, keyof PostsRow>;
  Tag: Record<string, keyof TagsRow>;
  Comment: Record<string, keyof CommentsRow>;
};

/** The type names of the graph whose fields map to columns. */
export type MappedType = keyof typeof FIELD_COLUMNS;

type Renamed<M extends Record<string, string>> = { [F in keyof M as M[F] extends F ? never : F]: M[F] };

/**
 * A resolver per field whose column is named differently (`displayName` reads `display_name`);
 * fields named as their column are left to graphql-js's default resolver.
 */
export function columnResolvers<Row, M extends Record<string, keyof Row & string>>(
  columns: M,
): { [F in keyof Renamed<M>]: (row: Row) => Row[M[F]] } {
  const resolvers: Record<string, (row: Row) => unknown> = {};
  for (const [field, column] of Object.entries(columns)) if (field !== column) resolvers[field] = (row) => row[column as keyof Row];
  return resolvers as { [F in keyof Renamed<M>]: (row: Row) => Row[M[F]] };
}
