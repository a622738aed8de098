import t from 'tap';
import { sql } from 'kysely';
import { onPostgres } from '../helpers/database.ts';
import { sharedServer } from '../helpers/server.ts';

t.test('the search conditions are served by indexes', async (t) => {
  const server = await sharedServer();
  const db = server.database.db;
  const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = 'products'`.execute(db);
  const names = indexes.rows.map((r) => r.indexname);
  t.ok(names.includes('products_search_fts_idx'), 'full-text GIN index on both databases');
  if (!onPostgres) return;
  t.ok(names.includes('products_search_trgm_idx'), 'trigram index where pg_trgm exists');
  const plan = await db.connection().execute(async (conn) => {
    await sql`set enable_seqscan = off`.execute(conn);
    const { searchCondition, searchTerms } = await import('../../src/catalog/products.search.ts');
    const query = conn
      .selectFrom('products')
      .select('id')
      .where(searchCondition(searchTerms('walnut desk')))
      .compile();
    const explained = await conn.executeQuery({ ...query, sql: `explain ${query.sql}` });
    return (explained.rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
  });
  t.match(plan, /products_search_fts_idx/);
  t.match(plan, /products_search_trgm_idx/);
});
