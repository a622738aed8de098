/**
 * The SQL of product search. A product matches when the query is a case-insensitive substring of its
 * name, description or SKU, or when every word of the query starts a word of those fields. The
 * full-text arm is served by the GIN index `products_search_fts_idx` (on PGlite and PostgreSQL), the
 * substring arm by the trigram index `products_search_trgm_idx` where pg_trgm exists (PostgreSQL);
 * both expressions are repeated verbatim from migration 0003 so the planner can use those indexes.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';

const DOCUMENT = sql`(
  setweight(to_tsvector('simple', products.name), 'A') ||
  setweight(to_tsvector('simple', products.sku), 'A') ||
  setweight(to_tsvector('simple', coalesce(products.description, '')), 'B')
)`;

const SEARCH_TEXT = sql`lower(products.name || chr(31) || coalesce(products.description, '') || chr(31) || products.sku)`;

interface SearchTerms {
  /** The query lowered and escaped for LIKE. */
  likeText: string;
  /** `word:* & word:*` over the query's letters and digits only, or null when it has none. */
  tsquery: string | null;
  /** `word & word`: the same words matched whole, for ranking. */
  wholeWords: string | null;
}

const MAX_WORDS = 16;

export function searchTerms(q: string): SearchTerms {
  const words = (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_WORDS);
  return {
    likeText: q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`),
    tsquery: words.length ? words.map((w) => `${w}:*`).join(' & ') : null,
    wholeWords: words.length ? words.join(' & ') : null,
  };
}

export function searchCondition(terms: SearchTerms): RawBuilder<SqlBool> {
  const substring = sql<SqlBool>`${SEARCH_TEXT} like ${'%' + terms.likeText + '%'}`;
  if (terms.tsquery === null) return substring;
  return sql<SqlBool>`(${DOCUMENT} @@ to_tsquery('simple', ${terms.tsquery}) or ${substring})`;
}

/**
 * Relevance: an exact name or SKU match first, then a name starting with the query, then a name
 * containing it; within a tier, products where the query's words occur whole ("desk" in "Desk Lamp"
 * rather than in "Desktop"), then the weighted full-text rank (name and SKU over description).
 */
export function relevance(terms: SearchTerms): RawBuilder<number> {
  const rank =
    terms.tsquery === null
      ? sql`0`
      : sql`(case when ${DOCUMENT} @@ to_tsquery('simple', ${terms.wholeWords}) then 50 else 0 end
             + ts_rank_cd(${DOCUMENT}, to_tsquery('simple', ${terms.tsquery})))`;
  return sql<number>`(
    case
      when lower(products.name) like ${terms.likeText} or lower(products.sku) like ${terms.likeText} then 300
      when lower(products.name) like ${terms.likeText + '%'} then 200
      when lower(products.name) like ${'%' + terms.likeText + '%'} then 100
      else 0
    end + ${rank}
  )`;
}
