/**
 * What of a root field's selection set the planner can read in one statement, worked out once per
 * field node (the preparer caches documents by their text, so a repeated document brings the same
 * nodes) and completed per request with the request's variables.
 *
 * Covered: `User.posts` (its connection, and in it each post's `author`, recursively) and
 * `User.followerCount`; every scalar comes from the row. Anything else under a covered type is left
 * to its resolver, per field, with the planned row as its parent (the row carries every column).
 * A selection using `@skip` or `@include`, or a fragment on another type, is not planned at all:
 * the root field runs as before.
 */
import {
  getArgumentValues,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { readColumn, type PostReads, type PostsPageRead, type UserReads } from '../planned.repository.ts';

interface PostsShape {
  key: string;
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  /** The page's posts, or null when only the counts are selected. */
  content: PostShape | null;
}

interface UserShape {
  posts: PostsShape[];
  followerCounts: string[];
}

interface PostShape {
  content: boolean;
  authors: { key: string; user: UserShape }[];
}

export type Fragments = Record<string, FragmentDefinitionNode>;

/**
 * The fields of selection sets on `type`, grouped by response key in first-seen order (graphql-js's
 * collectFields); null when something is not plannable (a directive, a fragment on another type).
 */
export function collect(selections: readonly SelectionSetNode[], type: string, fragments: Fragments): Map<string, FieldNode[]> | null {
  const fields = new Map<string, FieldNode[]>();
  const visit = (set: SelectionSetNode): boolean => {
    for (const selection of set.selections) {
      if (selection.directives?.length) return false;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const list = fields.get(key);
        if (list) list.push(selection);
        else fields.set(key, [selection]);
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments[selection.name.value];
        if (!fragment || (fragment.typeCondition && fragment.typeCondition.name.value !== type)) return false;
        if (fragment.directives?.length) return false;
        if (!visit(fragment.selectionSet)) return false;
      }
    }
    return true;
  };
  for (const set of selections) if (!visit(set)) return null;
  return fields;
}

const selectionSets = (nodes: readonly FieldNode[]): SelectionSetNode[] => nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));

function userShape(schema: GraphQLSchema, sets: readonly SelectionSetNode[], fragments: Fragments): UserShape | null {
  const fields = collect(sets, 'User', fragments);
  if (!fields) return null;
  const userType = schema.getType('User') as GraphQLObjectType;
  const shape: UserShape = { posts: [], followerCounts: [] };
  for (const [key, nodes] of fields) {
    const name = nodes[0]!.name.value;
    if (name === 'followerCount') shape.followerCounts.push(key);
    if (name !== 'posts') continue;
    const connection = collect(selectionSets(nodes), 'PostConnection', fragments);
    if (!connection) return null;
    let content: PostShape | null = null;
    for (const [, contentNodes] of connection) {
      if (contentNodes[0]!.name.value !== 'content') continue;
      const post = postShape(schema, selectionSets(contentNodes), fragments);
      if (!post) return null;
      // Two response keys for `content` would be one list twice: merge them.
      content = content ? { content: content.content || post.content, authors: [...content.authors, ...post.authors] } : post;
    }
    shape.posts.push({ key, field: userType.getFields().posts!, node: nodes[0]!, content });
  }
  return shape;
}

function postShape(schema: GraphQLSchema, sets: readonly SelectionSetNode[], fragments: Fragments): PostShape | null {
  const fields = collect(sets, 'Post', fragments);
  if (!fields) return null;
  const shape: PostShape = { content: false, authors: [] };
  for (const [key, nodes] of fields) {
    const name = nodes[0]!.name.value;
    if (name === 'content') shape.content = true;
    if (name !== 'author') continue;
    const user = userShape(schema, selectionSets(nodes), fragments);
    if (!user) return null;
    shape.authors.push({ key, user });
  }
  return shape;
}

const shapes = new WeakMap<FieldNode, UserShape | null>();

/** The planned shape of a root field returning users (`users { content … }` or `user`), cached by its node. */
export function shapeOfUsers(
  schema: GraphQLSchema,
  nodes: readonly FieldNode[],
  fragments: Fragments,
  connection: boolean,
): UserShape | null {
  const first = nodes[0]!;
  let shape = shapes.get(first);
  if (shape === undefined) {
    shape = null;
    if (nodes.length === 1) {
      if (!connection) shape = userShape(schema, selectionSets(nodes), fragments);
      else {
        const fields = collect(selectionSets(nodes), 'UserConnection', fragments);
        const content = fields && [...fields.values()].flat().filter((n) => n.name.value === 'content');
        shape = content ? userShape(schema, selectionSets(content), fragments) : null;
      }
    }
    shapes.set(first, shape);
  }
  return shape;
}

/** `page` and `size` as the resolver reads them; null outside the SDL's `@constraint` range, so the resolver reports it as today. */
function pageArguments(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Record<string, unknown>,
): { page: number; size: number } | null {
  const args = getArgumentValues(field, node, variables) as { page?: number | null; size?: number | null };
  const page = args.page ?? 0;
  const size = args.size ?? 10;
  return page >= 0 && size >= 1 && size <= 100 ? { page, size } : null;
}

/**
 * The reads of a shape with this request's variables; a `posts` whose arguments are refused is left
 * to its resolver. Each read of a row gets a column of its own, numbered (readColumn).
 */
export function userReadsOf(shape: UserShape, variables: Record<string, unknown>): UserReads {
  const posts: PostsPageRead[] = [];
  for (const p of shape.posts) {
    const args = pageArguments(p.field, p.node, variables);
    if (!args) continue;
    posts.push({
      key: p.key,
      column: readColumn(posts.length),
      offset: args.page * args.size,
      limit: args.size,
      content: p.content ? postReadsOf(p.content, variables) : null,
    });
  }
  const followerCounts = shape.followerCounts.map((key, i) => ({ key, column: readColumn(posts.length + i) }));
  return { posts, followerCounts };
}

function postReadsOf(shape: PostShape, variables: Record<string, unknown>): PostReads {
  return {
    content: shape.content,
    authors: shape.authors.map(({ key, user }, i) => ({ key, column: readColumn(i), user: userReadsOf(user, variables) })),
  };
}

/** The page arguments a planned `posts` read used, by response key, to shape its connection. */
export function pageOfRead(read: PostsPageRead): { page: number; size: number } {
  return { page: read.offset / read.limit, size: read.limit };
}
