/**
 * The look-ahead planner of the content graph: `users` and `user` read their whole covered
 * selection (selection.ts) in one statement (planned.repository.ts) and hand graphql-js rows that
 * carry what their nested fields would have loaded. A nested field's resolver takes its planned
 * value when there is one (`plannedValue`) and otherwise does what it always did, so a field the
 * planner does not cover still works, through the loaders, under a planned parent.
 *
 * The rules are the services' own: the directory scope of `users.list`, the visibility of
 * `User.posts` (readable), the defaults and bounds of the arguments; an empty page, where the
 * directory's total needs a query of its own, is left to the service.
 */
import type { DocumentNode, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import type { Principal } from '../../auth/principal.ts';
import type { Database } from '../../db/database.ts';
import { pageOf } from '../../paging.ts';
import { userRead, usersPageRead, type PostReads, type ReadKey, type UserReads } from '../planned.repository.ts';
import { readable } from '../post-visibility.ts';
import { directoryTenant } from '../../users/user-directory.ts';
import { userNotFound } from '../../users/users.service.ts';
import { OperationPlan, StatementNames, type OperationPlanLog } from './operation-plan.ts';
import { operationShape } from './operation-shape.ts';
import { pageOfRead, shapeOfUsers, userReadsOf } from './selection.ts';

const PLANNED = Symbol('planned values');

type Row = Record<string, unknown> & { [PLANNED]?: Record<string, unknown> };

/** The value the planner read for this field of `parent` (its response key), or undefined: resolve as usual. */
export function plannedValue(parent: object, info: Pick<GraphQLResolveInfo, 'path'>): unknown {
  const value = (parent as Row)[PLANNED]?.[info.path.key];
  return value === null ? undefined : value;
}

const connection = <T>(items: T[], page: number, size: number, total: number) => {
  const p = pageOf(items, page, size, total);
  return { content: p.items, totalElements: p.totalElements, totalPages: p.totalPages, hasNext: p.hasNext };
};

/** A row that came as JSON: its timestamps are text there, Dates in a row the driver decoded. */
function decodeJsonRow(row: Row): Row {
  for (const [key, value] of Object.entries(row)) if (key.endsWith('_at') && typeof value === 'string') row[key] = new Date(value);
  return row;
}

/** The value a nested read's column carries, taken off the row (the row is the resolvers' parent). */
function takeRead(row: Row, { column }: ReadKey): unknown {
  const value = row[column];
  delete row[column];
  return value;
}

function planUser(row: Row, reads: UserReads): Row {
  const planned: Record<string, unknown> = {};
  for (const read of reads.posts) {
    const { content, total } = takeRead(row, read) as { content: Row[]; total: number };
    const { page, size } = pageOfRead(read);
    const posts = read.content ? content.map((post) => planPost(decodeJsonRow(post), read.content!)) : [];
    planned[read.key] = connection(posts, page, size, Number(total));
  }
  for (const read of reads.followerCounts) planned[read.key] = Number(takeRead(row, read));
  row[PLANNED] = planned;
  return row;
}

function planPost(row: Row, reads: PostReads): Row {
  const planned: Record<string, unknown> = {};
  for (const read of reads.authors) {
    const { key, user } = read;
    const author = takeRead(row, read) as Row | null;
    // No author row (it cannot happen while posts reference users): left to the resolver's error.
    planned[key] = author ? planUser(decodeJsonRow(author), user) : null;
  }
  row[PLANNED] = planned;
  return row;
}

/** Where a plan is shown for debugging: the statement and the reads, at `debug` (LOG_LEVEL=debug). */
export type PlanLog = OperationPlanLog;

type Query<R> = { compile(): { sql: string; parameters: readonly unknown[] }; execute(): Promise<R[]> };

export class ContentPlanner {
  private readonly names = new StatementNames();

  constructor(
    private readonly db: Database,
    private readonly log: PlanLog | null = null,
  ) {}

  private run<R>(field: string, reads: UserReads, query: Query<R>): Promise<R[]> {
    if (this.log && (this.log.level === 'debug' || this.log.level === 'trace')) {
      const { sql, parameters } = query.compile();
      this.log.debug({ field, reads, sql, parameters }, 'GraphQL plan: one statement');
    }
    return query.execute();
  }

  /**
   * The plan of a whole operation the planner covers (operation-shape.ts), whose statement builds
   * the response's `data` itself; null when it is not covered (its root fields then use the
   * per-field plans below).
   */
  planOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): OperationPlan | null {
    const shape = operationShape(schema, document, operationName);
    return shape && new OperationPlan(this.db, schema, shape, this.log, this.names);
  }

  /** `users(page, size)` in one statement, or undefined when the selection is not planned or the page is empty. */
  async users(info: GraphQLResolveInfo, viewer: Principal | null, page: number, size: number) {
    const shape = shapeOfUsers(info.schema, info.fieldNodes, info.fragments, true);
    if (!shape) return undefined;
    const reads = userReadsOf(shape, info.variableValues);
    const query = usersPageRead(this.db, directoryTenant(viewer), page * size, size, reads, readable(viewer));
    const rows = (await this.run('users', reads, query)) as Row[];
    if (!rows.length) return undefined;
    const total = Number(rows[0]!.total_count);
    return connection(
      rows.map((row) => planUser(row, reads)),
      page,
      size,
      total,
    );
  }

  /** `user(id)` in one statement (USER_NOT_FOUND as the service says it), or undefined when the selection is not planned. */
  async user(info: GraphQLResolveInfo, viewer: Principal | null, id: string) {
    const shape = shapeOfUsers(info.schema, info.fieldNodes, info.fragments, false);
    if (!shape) return undefined;
    const reads = userReadsOf(shape, info.variableValues);
    const [row] = (await this.run('user', reads, userRead(this.db, id, reads, readable(viewer)))) as Row[];
    if (!row) throw userNotFound(id);
    return planUser(row, reads);
  }
}
