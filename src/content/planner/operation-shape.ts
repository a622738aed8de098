/**
 * Whether a whole operation is covered by the planner, and its shape if it is: a query whose every
 * root field is `users`, `user`, `searchUsers` or `post` (alone: it counts a read), or a mutation
 * whose one root field is `addComment`, `replyToComment`, `likePost` or `updateUser` (decision 215), and every field under
 * them one the database can answer as GraphQL would (a column, a count, a nested page of posts or
 * comments, an author, tags). Such an operation is answered by one statement
 * that builds the response's `data` itself (operation-sql.ts), so neither graphql-jit nor the JSON
 * serializer touch it. Anything else (another field, `@skip`/`@include`, a fragment on another
 * type, a field whose definition carries a directive such as `@hasRole`) gives null: the operation
 * is executed by its resolvers and their DataLoaders, the only other way a field is answered.
 *
 * Worked out once per document and operation (the executor caches it with the compiled operation);
 * arguments are kept as their field and node, read per request with that request's variables.
 */
import {
  getNamedType,
  getOperationAST,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { FIELD_COLUMNS, type MappedType } from '../field-columns.ts';

/** How a column's value becomes its GraphQL value: as it is, an integer id as text, a timestamp as ISO 8601 in UTC. */
type ColumnFormat = 'value' | 'text' | 'timestamp';

/** A field with arguments, read per request (`getArgumentValues` with the request's variables). */
export interface ArgumentsOf {
  /** Its index among the operation's fields with arguments: names its parameters in the statement. */
  readonly index: number;
  readonly field: GraphQLField<unknown, unknown>;
  readonly node: FieldNode;
}

export type Entry<V> = readonly [key: string, value: V];
type Typename = { readonly kind: 'typename'; readonly name: string };
export type Column = { readonly kind: 'column'; readonly column: string; readonly format: ColumnFormat };

type UserValue =
  | Typename
  | Column
  | { readonly kind: 'posts'; readonly args: ArgumentsOf; readonly connection: ConnectionShape<PostShape> }
  | { readonly kind: 'followerCount' };
export type UserShape = readonly Entry<UserValue>[];

type PostValue =
  | Typename
  | Column
  | { readonly kind: 'author'; readonly user: UserShape }
  | { readonly kind: 'likeCount' }
  | { readonly kind: 'tags'; readonly tag: TagShape }
  | { readonly kind: 'comments'; readonly args: ArgumentsOf; readonly connection: ConnectionShape<CommentShape> };
export type PostShape = readonly Entry<PostValue>[];

type TagValue = Typename | Column | { readonly kind: 'postCount' };
export type TagShape = readonly Entry<TagValue>[];

type CommentValue =
  | Typename
  | Column
  | { readonly kind: 'author'; readonly user: UserShape }
  /** Its post: only in a planned mutation's answer (a comment listed under a post is that post's). */
  | { readonly kind: 'post'; readonly post: PostShape };
export type CommentShape = readonly Entry<CommentValue>[];

type ConnectionValue<Item> =
  | Typename
  | { readonly kind: 'content'; readonly item: Item }
  | { readonly kind: 'totalElements' | 'totalPages' | 'hasNext' };
export type ConnectionShape<Item> = readonly Entry<ConnectionValue<Item>>[];

export type RootValue =
  | Typename
  | { readonly kind: 'users'; readonly args: ArgumentsOf; readonly connection: ConnectionShape<UserShape> }
  | { readonly kind: 'user'; readonly args: ArgumentsOf; readonly user: UserShape }
  | { readonly kind: 'searchUsers'; readonly args: ArgumentsOf; readonly user: UserShape }
  | { readonly kind: 'post'; readonly args: ArgumentsOf; readonly post: PostShape }
  /** The mutation `addComment(postId, content)`: the comment inserted, its event, and the answer. */
  | { readonly kind: 'addComment'; readonly args: ArgumentsOf; readonly comment: CommentShape }
  /** The mutation `replyToComment(commentId, content)`: the same, under the parent comment, on its post. */
  | { readonly kind: 'replyToComment'; readonly args: ArgumentsOf; readonly comment: CommentShape }
  /** The mutation `likePost(postId)`: the like inserted (once), and the post with it counted. */
  | { readonly kind: 'likePost'; readonly args: ArgumentsOf; readonly post: PostShape }
  /** The mutation `updateUser(id, input)`: the viewer's profile changed, its webhook event, and the user. */
  | { readonly kind: 'updateUser'; readonly args: ArgumentsOf; readonly user: UserShape };

export interface OperationShape {
  readonly operation: OperationDefinitionNode;
  readonly roots: readonly Entry<RootValue>[];
  /** Every field with arguments, in `index` order. */
  readonly arguments: readonly ArgumentsOf[];
}

/**
 * The column a plain field reads (field-columns.ts, the table the resolvers take their mappings
 * from), with its GraphQL format: an `ID` as text (integer ids are strings in GraphQL), a
 * `DateTime` as ISO 8601, anything else as it is; undefined when the field is not a column.
 */
function columnOf(type: MappedType, field: GraphQLField<unknown, unknown>): Column | undefined {
  const column = (FIELD_COLUMNS[type] as Record<string, string>)[field.name];
  if (column === undefined) return undefined;
  const scalar = getNamedType(field.type).name;
  // PostgreSQL writes a json column's text as stored (its spacing, its key order), not as
  // JSON.stringify would: such a field is the resolvers' to answer.
  if (scalar === 'Json') return undefined;
  return { kind: 'column', column, format: scalar === 'ID' ? 'text' : scalar === 'DateTime' ? 'timestamp' : 'value' };
}

type Fragments = Record<string, FragmentDefinitionNode>;

/**
 * The fields of selection sets on `type`, grouped by response key in first-seen order (graphql-js's
 * collectFields); null when something is not covered (a directive, a fragment on another type).
 */
function collect(selections: readonly SelectionSetNode[], type: string, fragments: Fragments): Map<string, FieldNode[]> | null {
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

/** Thrown inside the walk when something is not covered; caught once at the top. */
class NotCovered extends Error {}
const notCovered = (): never => {
  throw new NotCovered();
};

class ShapeBuilder {
  readonly arguments: ArgumentsOf[] = [];

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Fragments,
  ) {}

  /** The fields of the selection sets on `type` by response key, in first-seen order, with their definitions. */
  private collect(
    sets: readonly SelectionSetNode[],
    type: GraphQLObjectType,
  ): [string, GraphQLField<unknown, unknown> | null, FieldNode[]][] {
    const fields = collect(sets, type.name, this.fragments) ?? notCovered();
    return [...fields].map(([key, nodes]) => {
      const name = nodes[0]!.name.value;
      const field = name === '__typename' ? null : (type.getFields()[name] ?? notCovered());
      // A directive on the definition (an auth rule, say) is the resolver path's to apply.
      if (field?.astNode?.directives?.length) notCovered();
      return [key, field, nodes];
    });
  }

  private type(name: string): GraphQLObjectType {
    return this.schema.getType(name) as GraphQLObjectType;
  }

  private argumentsOf(field: GraphQLField<unknown, unknown>, nodes: FieldNode[]): ArgumentsOf {
    const args = { index: this.arguments.length, field, node: nodes[0]! };
    this.arguments.push(args);
    return args;
  }

  roots(sets: readonly SelectionSetNode[], query: GraphQLObjectType): Entry<RootValue>[] {
    return this.collect(sets, query).map(([key, field, nodes]): Entry<RootValue> => {
      if (!field) return [key, { kind: 'typename', name: query.name }];
      // Two nodes with arguments under one key: graphql-js merges them only when equal; not worth planning.
      if (nodes.length > 1) notCovered();
      if (field.name === 'users') return [key, { kind: 'users', ...this.paged(field, nodes, 'UserConnection', (s) => this.user(s)) }];
      if (field.name === 'user')
        return [key, { kind: 'user', args: this.argumentsOf(field, nodes), user: this.user(selectionSets(nodes)) }];
      if (field.name === 'searchUsers') {
        return [key, { kind: 'searchUsers', args: this.argumentsOf(field, nodes), user: this.user(selectionSets(nodes)) }];
      }
      if (field.name === 'post') {
        const post = this.post(selectionSets(nodes));
        // The statement reads in the snapshot from before its own update: a page of posts under the
        // counted post would show its view count before the read, where the resolvers (update,
        // then read) show it after.
        if (readsPostPages(post)) notCovered();
        return [key, { kind: 'post', args: this.argumentsOf(field, nodes), post }];
      }
      return notCovered();
    });
  }

  /** A paged field: its arguments and its connection. */
  private paged<Item>(
    field: GraphQLField<unknown, unknown>,
    nodes: FieldNode[],
    connectionType: string,
    item: (sets: SelectionSetNode[]) => Item,
  ): { args: ArgumentsOf; connection: ConnectionShape<Item> } {
    // Two nodes with arguments under one key: graphql-js merges them only when equal; not worth planning.
    if (nodes.length > 1) notCovered();
    return { args: this.argumentsOf(field, nodes), connection: this.connection(nodes, connectionType, item) };
  }

  private connection<Item>(nodes: FieldNode[], typeName: string, item: (sets: SelectionSetNode[]) => Item): ConnectionShape<Item> {
    const type = this.type(typeName);
    return this.collect(selectionSets(nodes), type).map(([key, field, inner]): Entry<ConnectionValue<Item>> => {
      if (!field) return [key, { kind: 'typename', name: type.name }];
      if (field.name === 'content') return [key, { kind: 'content', item: item(selectionSets(inner)) }];
      if (field.name === 'totalElements' || field.name === 'totalPages' || field.name === 'hasNext') return [key, { kind: field.name }];
      return notCovered();
    });
  }

  user(sets: readonly SelectionSetNode[]): UserShape {
    const type = this.type('User');
    return this.collect(sets, type).map(([key, field, nodes]): Entry<UserValue> => {
      if (!field) return [key, { kind: 'typename', name: type.name }];
      const column = columnOf('User', field);
      if (column) return [key, column];
      if (field.name === 'followerCount') return [key, { kind: 'followerCount' }];
      if (field.name === 'posts') return [key, { kind: 'posts', ...this.paged(field, nodes, 'PostConnection', (s) => this.post(s)) }];
      return notCovered();
    });
  }

  private post(sets: readonly SelectionSetNode[]): PostShape {
    const type = this.type('Post');
    return this.collect(sets, type).map(([key, field, nodes]): Entry<PostValue> => {
      if (!field) return [key, { kind: 'typename', name: type.name }];
      const column = columnOf('Post', field);
      if (column) return [key, column];
      if (field.name === 'author') return [key, { kind: 'author', user: this.user(selectionSets(nodes)) }];
      if (field.name === 'likeCount') return [key, { kind: 'likeCount' }];
      if (field.name === 'tags') return [key, { kind: 'tags', tag: this.tag(selectionSets(nodes)) }];
      if (field.name === 'comments') {
        return [key, { kind: 'comments', ...this.paged(field, nodes, 'CommentConnection', (s) => this.comment(s)) }];
      }
      return notCovered();
    });
  }

  private tag(sets: readonly SelectionSetNode[]): TagShape {
    const type = this.type('Tag');
    return this.collect(sets, type).map(([key, field]): Entry<TagValue> => {
      if (!field) return [key, { kind: 'typename', name: type.name }];
      const column = columnOf('Tag', field);
      if (column) return [key, column];
      if (field.name === 'postCount') return [key, { kind: 'postCount' }];
      return notCovered();
    });
  }

  /**
   * A comment of `Post.comments` (top-level: its parent and replies are left to the resolvers); in a
   * mutation's answer (`withPost`), its `post` too.
   */
  private comment(sets: readonly SelectionSetNode[], withPost = false): CommentShape {
    const type = this.type('Comment');
    return this.collect(sets, type).map(([key, field, nodes]): Entry<CommentValue> => {
      if (!field) return [key, { kind: 'typename', name: type.name }];
      const column = columnOf('Comment', field);
      if (column) return [key, column];
      if (field.name === 'author') return [key, { kind: 'author', user: this.user(selectionSets(nodes)) }];
      if (withPost && field.name === 'post') return [key, { kind: 'post', post: this.post(selectionSets(nodes)) }];
      return notCovered();
    });
  }

  /**
   * The root of a covered mutation: `addComment`, `replyToComment`, `likePost` or `updateUser` alone (besides `__typename`). Its definition's one
   * directive, `@authenticated`, is applied by the plan (no viewer: the resolvers answer). The
   * answer is read in the statement's snapshot, from before its own insert: a selection that
   * lists comments anywhere would miss the new one, where the resolvers (insert, commit, then
   * read) show it, so such a selection is left to the resolvers.
   */
  mutationRoots(sets: readonly SelectionSetNode[], mutation: GraphQLObjectType): Entry<RootValue>[] {
    const fields = collect(sets, mutation.name, this.fragments) ?? notCovered();
    return [...fields].map(([key, nodes]): Entry<RootValue> => {
      const name = nodes[0]!.name.value;
      if (name === '__typename') return [key, { kind: 'typename', name: mutation.name }];
      const field = mutation.getFields()[name];
      const directives = field?.astNode?.directives?.map((d) => d.name.value) ?? [];
      if (!field || nodes.length > 1 || directives.some((d) => d !== 'authenticated')) return notCovered();
      if (name === 'likePost') {
        // The liked post's own likeCount is counted with the new like; any other would be read
        // from before it (the statement's snapshot), so the answer may count likes at its top only.
        const post = this.post(selectionSets(nodes));
        if (postReadsLikeCountBelow(post)) notCovered();
        return [key, { kind: 'likePost', args: this.argumentsOf(field, nodes), post }];
      }
      if (name === 'updateUser') {
        // The answer is the changed row; a user read again below it (an author of its posts or of
        // their comments, who may be the same user) would come from the snapshot, before the change.
        const user = this.user(selectionSets(nodes));
        if (userReadsUsers(user)) notCovered();
        return [key, { kind: 'updateUser', args: this.argumentsOf(field, nodes), user }];
      }
      if (name !== 'addComment' && name !== 'replyToComment') return notCovered();
      const comment = this.comment(selectionSets(nodes), true);
      if (commentReadsComments(comment)) notCovered();
      return [key, { kind: name, args: this.argumentsOf(field, nodes), comment }];
    });
  }
}

/** Whether a post's selection reaches a page of posts again (through an author). */
function readsPostPages(post: PostShape): boolean {
  const ofUser = (user: UserShape): boolean => user.some(([, value]) => value.kind === 'posts');
  return post.some(([, value]) => {
    if (value.kind === 'author') return ofUser(value.user);
    if (value.kind === 'comments')
      return value.connection.some(([, c]) => c.kind === 'content' && c.item.some(([, v]) => v.kind === 'author' && ofUser(v.user)));
    return false;
  });
}

/** Whether a mutation's answer reaches a page of comments (through its post, an author's posts). */
function commentReadsComments(comment: CommentShape): boolean {
  const ofUser = (user: UserShape): boolean =>
    user.some(([, value]) => value.kind === 'posts' && value.connection.some(([, c]) => c.kind === 'content' && ofPost(c.item)));
  const ofPost = (post: PostShape): boolean =>
    post.some(([, value]) => value.kind === 'comments' || (value.kind === 'author' && ofUser(value.user)));
  return comment.some(([, value]) => (value.kind === 'author' && ofUser(value.user)) || (value.kind === 'post' && ofPost(value.post)));
}

/** Whether a user's selection reads a user again (an author of its posts, of their comments). */
function userReadsUsers(user: UserShape): boolean {
  return user.some(
    ([, value]) =>
      value.kind === 'posts' &&
      value.connection.some(
        ([, c]) =>
          c.kind === 'content' &&
          c.item.some(
            ([, v]) =>
              v.kind === 'author' ||
              (v.kind === 'comments' &&
                v.connection.some(([, cc]) => cc.kind === 'content' && cc.item.some(([, w]) => w.kind === 'author'))),
          ),
      ),
  );
}

/** Whether a post's selection counts likes of a post below it (through an author's posts, a comment's author). */
function postReadsLikeCountBelow(post: PostShape): boolean {
  const ofUser = (user: UserShape): boolean =>
    user.some(([, value]) => value.kind === 'posts' && value.connection.some(([, c]) => c.kind === 'content' && ofPost(c.item)));
  const ofPost = (shape: PostShape): boolean => shape.some(([, value]) => value.kind === 'likeCount') || below(shape);
  const below = (shape: PostShape): boolean =>
    shape.some(([, value]) => {
      if (value.kind === 'author') return ofUser(value.user);
      if (value.kind === 'comments')
        return value.connection.some(([, c]) => c.kind === 'content' && c.item.some(([, v]) => v.kind === 'author' && ofUser(v.user)));
      return false;
    });
  return below(post);
}

const selectionSets = (nodes: readonly FieldNode[]): SelectionSetNode[] => nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));

/** The shape of a query or mutation operation the planner answers whole, or null. */
export function operationShape(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): OperationShape | null {
  const operation = getOperationAST(document, operationName);
  const root =
    operation?.operation === OperationTypeNode.QUERY
      ? schema.getQueryType()
      : operation?.operation === OperationTypeNode.MUTATION
        ? schema.getMutationType()
        : null;
  if (!operation || !root || operation.directives?.length) return null;
  const fragments: Fragments = {};
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  const builder = new ShapeBuilder(schema, fragments);
  try {
    const mutation = operation.operation === OperationTypeNode.MUTATION;
    const roots = mutation ? builder.mutationRoots([operation.selectionSet], root) : builder.roots([operation.selectionSet], root);
    const reads = roots.filter(([, value]) => value.kind !== 'typename');
    // `{ __typename }` alone needs no database.
    if (!reads.length) return null;
    // `post(id)` counts a read and a mutation writes: planned only alone, so that a plan that steps
    // aside (another root naming nobody) has written nothing the resolvers would write again.
    if (reads.length > 1 && reads.some(([, value]) => value.kind !== 'users' && value.kind !== 'user' && value.kind !== 'searchUsers'))
      return null;
    return { operation, roots, arguments: builder.arguments };
  } catch (error) {
    if (error instanceof NotCovered) return null;
    throw error;
  }
}
