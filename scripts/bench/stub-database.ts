/**
 * A Kysely instance whose driver answers from memory: the repository functions still build and
 * compile their queries, but no database runs them. The REST stack-cost case serves it to both our
 * application and the bare route, so the difference between them is the stack alone.
 */
import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { DB } from '../../generated/db/types.ts';
import { PRODUCTS, productRecord } from './fixtures.ts';

const PAGE = Array.from({ length: PRODUCTS }, (_, i) => productRecord(i + 1));

/**
 * What the catalog repository's reads return for the seed (products by id; pages; the count), and
 * the credential look-up of a bearer JWT (src/identity/sign-in/sessions.repository.ts): no stored user, and
 * a credential epoch that never moves.
 */
function answer(query: CompiledQuery): unknown[] {
  const text = query.sql;
  if (text.includes('left join deleted_users')) return [{ tenant_id: null, active: null, deleted: false, roles: [], epoch: 0 }];
  if (text.endsWith('select epoch from credential_epoch')) return [{ epoch: 0 }];
  if (text.includes('count(*)')) return [{ total: PRODUCTS }];
  if (/ limit \$\d+/.test(text)) {
    const [limit, offset] = query.parameters.slice(-2) as number[];
    return PAGE.slice(offset ?? 0, (offset ?? 0) + (limit ?? 20));
  }
  if (/"products"\."id" = \$\d+/.test(text)) {
    const id = query.parameters.at(-1);
    const row = PAGE.find((p) => p.id === id);
    return row ? [row] : [];
  }
  throw new Error(`the stubbed repository has no answer for: ${text}`);
}

const connection: DatabaseConnection = {
  executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => ({ rows: answer(query) as R[] }),
  streamQuery: () => {
    throw new Error('the stubbed repository does not stream');
  },
};

const driver: Driver = {
  init: async () => {},
  acquireConnection: async () => connection,
  beginTransaction: async () => {},
  commitTransaction: async () => {},
  rollbackTransaction: async () => {},
  releaseConnection: async () => {},
  destroy: async () => {},
};

export function stubDatabase(): Kysely<DB> {
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createQueryCompiler: () => new PostgresQueryCompiler(),
      createIntrospector: (db) => new PostgresIntrospector(db),
    },
  });
}
