/**
 * A covered operation (operation-shape.ts) at run time: each request reads its arguments from its
 * variables as the resolvers would (defaults for null, the `@constraint` rules), picks the statement
 * for its viewer kind (compiled once, operation-sql.ts), fills the slots and returns the `data` JSON
 * text. `undefined` means "run it as before": variables the resolvers would refuse, arguments
 * outside their rules, a `user(id)` that names nobody: the resolver path gives those their errors.
 */
import { createHash } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import { getArgumentValues, getVariableValues, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Principal } from '../../auth/principal.ts';
import type { Database } from '../../db/database.ts';
import { preparedName } from '../../db/prepared-statements.ts';
import { constraintsAccept } from '../../graphql/directives.constraint.ts';
import { DEFAULT_NESTED_SIZE, DEFAULT_SEARCH_LIMIT, DEFAULT_USERS_SIZE } from '../argument-defaults.ts';
import { parseIntegerId } from '../ids.ts';
import { readable, type PostVisibility, type VisibilityBranch } from '../post-visibility.ts';
import { directoryTenant } from '../../users/user-directory.ts';
import { operationShape, type OperationShape } from './operation-shape.ts';
import { operationStatement, Slot, slots } from './operation-sql.ts';

interface Statement {
  sql: string;
  parameters: readonly unknown[];
}

/** Where a plan is shown for debugging (the statement and its parameters, at `debug`) and a failed one reported. */
export interface OperationPlanLog {
  level: string;
  debug(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Names for the plans' statements, so PostgreSQL prepares each once per connection instead of
 * planning it per request (db/prepared-statements.ts). A connection keeps every statement it
 * prepared, so the names are capped: past `limit` distinct statements (clients sending ever new
 * documents), further ones run unnamed, planned per request as any other statement.
 */
export class StatementNames {
  private readonly named = new Set<string>();

  constructor(private readonly limit = 256) {}

  prefix(sql: string): string {
    const name = `plan-${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    if (!this.named.has(name)) {
      if (this.named.size >= this.limit) return sql;
      this.named.add(name);
    }
    return `${preparedName(name)} ${sql}`;
  }
}

export class OperationPlan {
  /** The statement per viewer kind: a handful at most (anonymous, member, ADMIN; with or without a tenant). */
  private readonly statements = new Map<string, Statement>();
  /** A mutation: its root is `@authenticated`. */
  private readonly writes: boolean;

  constructor(
    private readonly db: Database,
    private readonly schema: GraphQLSchema,
    private readonly shape: OperationShape,
    private readonly log: OperationPlanLog | null,
    private readonly names: StatementNames,
  ) {
    this.writes = shape.roots.some(
      ([, value]) => value.kind === 'addComment' || value.kind === 'replyToComment' || value.kind === 'likePost',
    );
  }

  /** The response's `data` as JSON text, or undefined: run the operation through its resolvers. */
  async run(viewer: Principal | null, variables: Record<string, unknown> | null | undefined): Promise<string | undefined> {
    // `@authenticated` (a mutation's root): without a viewer, the resolvers give UNAUTHENTICATED.
    if (this.writes && !viewer) return undefined;
    const values = this.argumentValues(variables, viewer);
    if (!values) return undefined;
    const tenant = directoryTenant(viewer);
    const visibility = readable(viewer);
    values.set(slots.tenant.name, tenant);
    values.set(slots.viewer.name, viewer?.userId);
    const statement = this.statementFor(visibility, tenant !== null);
    const parameters = statement.parameters.map((p) => (p instanceof Slot ? values.get(p.name) : p));
    if (this.log && (this.log.level === 'debug' || this.log.level === 'trace')) {
      this.log.debug({ operation: this.shape.operation.name?.value, sql: statement.sql, parameters }, 'GraphQL plan: one statement');
    }
    try {
      const { rows } = await this.db.executeQuery<{ data: string; complete: boolean }>(CompiledQuery.raw(statement.sql, parameters));
      return rows[0]?.complete ? rows[0].data : undefined;
    } catch (error) {
      // The resolver path reads the same data and reports a failure as GraphQL errors do.
      this.log?.warn(
        { err: error, operation: this.shape.operation.name?.value },
        'GraphQL plan failed; the operation runs through its resolvers',
      );
      return undefined;
    }
  }

  /** Every argument's per-request values by slot name, or null when the resolver path must answer. */
  private argumentValues(variables: Record<string, unknown> | null | undefined, viewer: Principal | null): Map<string, unknown> | null {
    const coerced = getVariableValues(this.schema, this.shape.operation.variableDefinitions ?? [], variables ?? {});
    if ('errors' in coerced) return null;
    const values = new Map<string, unknown>();
    for (const { index, field, node } of this.shape.arguments) {
      const args = getArgumentValues(field, node, coerced.coerced) as {
        page?: number | null;
        size?: number | null;
        id?: string;
        query?: string;
        limit?: number | null;
        postId?: string;
        commentId?: string;
        content?: string;
        input?: { displayName?: string | null; bio?: string | null; avatarUrl?: string | null };
      };
      if (!constraintsAccept(field, args)) return null;
      if (field.name === 'addComment' || field.name === 'replyToComment' || field.name === 'likePost') {
        // Not an integer id: the service's POST_NOT_FOUND (COMMENT_NOT_FOUND for a reply).
        const id = parseIntegerId(field.name === 'replyToComment' ? args.commentId! : args.postId!);
        if (id === null) return null;
        values.set(`id:${index}`, id);
        if (field.name !== 'likePost') values.set(`content:${index}`, args.content);
        continue;
      }
      if (field.name === 'updateUser') {
        // Someone else's profile: the service's FORBIDDEN.
        if (args.id !== viewer?.userId) return null;
        values.set(`displayName:${index}`, args.input!.displayName ?? null);
        values.set(`bio:${index}`, args.input!.bio ?? null);
        values.set(`avatarUrl:${index}`, args.input!.avatarUrl ?? null);
        continue;
      }
      if (field.name === 'user') {
        values.set(`id:${index}`, args.id);
        continue;
      }
      if (field.name === 'post') {
        // Not an integer id: the resolver's POST_NOT_FOUND.
        const id = parseIntegerId(args.id!);
        if (id === null) return null;
        values.set(`id:${index}`, id);
        continue;
      }
      if (field.name === 'searchUsers') {
        values.set(`query:${index}`, args.query);
        values.set(`limit:${index}`, args.limit ?? DEFAULT_SEARCH_LIMIT);
        continue;
      }
      const page = args.page ?? 0;
      const size = args.size ?? (field.name === 'users' ? DEFAULT_USERS_SIZE : DEFAULT_NESTED_SIZE);
      values.set(`page:${index}`, page);
      values.set(`size:${index}`, size);
      values.set(`offset:${index}`, page * size);
    }
    return values;
  }

  private statementFor(visibility: PostVisibility, scoped: boolean): Statement {
    const key = `${scoped ? 'tenant' : 'all'}|${visibility.map((b) => `${b.statuses.join(',')}${b.authorId === undefined ? '' : ':own'}`).join('|')}`;
    let statement = this.statements.get(key);
    if (!statement) {
      // The viewer's id becomes a slot: one text for every member.
      const withSlots = visibility.map((branch): VisibilityBranch =>
        branch.authorId === undefined ? branch : { ...branch, authorId: slots.viewer as unknown as string },
      ) as unknown as PostVisibility;
      const compiled = operationStatement(this.db, this.shape, withSlots, scoped ? slots.tenant : null).compile(this.db);
      statement = { sql: this.names.prefix(compiled.sql), parameters: compiled.parameters };
      this.statements.set(key, statement);
    }
    return statement;
  }
}

/**
 * The content graph's planner: a plan for each query or mutation covered whole (operation-shape.ts),
 * or null, and the operation is executed by its resolvers and their DataLoaders. Those are the two
 * ways a field of the graph is answered; test/graphql/planner.property.test.ts holds them to the
 * same bytes.
 */
export class ContentPlanner {
  private readonly names = new StatementNames();

  constructor(
    private readonly db: Database,
    private readonly log: OperationPlanLog | null = null,
  ) {}

  planOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): OperationPlan | null {
    const shape = operationShape(schema, document, operationName);
    return shape && new OperationPlan(this.db, schema, shape, this.log, this.names);
  }
}
