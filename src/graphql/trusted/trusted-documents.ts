/**
 * Trusted documents (persisted operations), as GraphQL Hive and Apollo offer them. A request may
 * name a registered document by id instead of sending its text: `documentId` (the GraphQL over HTTP
 * persisted-documents convention, and graphql-codegen's client preset ids `sha256:<hex>`) or Apollo's
 * `extensions.persistedQuery.sha256Hash`. With GRAPHQL_TRUSTED_DOCUMENTS=true the server runs
 * nothing else: a text must be a registered document's (compared in canonical form, so spacing does
 * not matter) or one of the SDK's own operations.
 *
 * The table is read on a miss only; answers are kept in memory (a known document for a minute, an
 * unknown one for five seconds, so a document registered while the server runs is served within
 * seconds and a removed one stops within a minute), and concurrent misses for one key share one
 * query. A repeated request costs a map lookup.
 */
import { GraphQLError, type DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { Executor } from '../../db/transaction.ts';
import type { RequestParams } from '../request-params.ts';
import { canonicalHashOf, canonicalHashOfText } from './canonical.ts';
import { findDocumentById, isCanonicalHashTrusted } from './trusted-documents.repository.ts';

const KNOWN_TTL_MS = 60_000;
const UNKNOWN_TTL_MS = 5_000;
const CACHE_SIZE = 5_000;
/** Longer ids are refused without a lookup (the table's check allows 200 characters). */
const MAX_ID_LENGTH = 200;

/** What to run: the request as sent (`{}`), the registered text of its documentId, or a refusal. */
export type Admission = { query?: string } | { error: GraphQLError };

const AS_SENT: Admission = Object.freeze({});

const refusal = (code: 'PERSISTED_QUERY_NOT_FOUND' | 'UNTRUSTED_DOCUMENT', message: string): Admission => ({
  error: new GraphQLError(message, { extensions: { errorType: 'BAD_REQUEST', code } }),
});

/** The id a request names, if any: `documentId`, or Apollo's `extensions.persistedQuery.sha256Hash` (hex, given the `sha256:` prefix). */
function requestedId(params: RequestParams): string | undefined {
  if (params.documentId) return params.documentId;
  const persisted = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } | null } | undefined)?.persistedQuery;
  return typeof persisted?.sha256Hash === 'string' && persisted.sha256Hash ? `sha256:${persisted.sha256Hash}` : undefined;
}

export class TrustedDocuments {
  private readonly builtIn: ReadonlySet<string>;
  private readonly byId: LRUCache<string, string | false>;
  private readonly textTrusted: LRUCache<string, boolean>;

  /**
   * `enforce`: GRAPHQL_TRUSTED_DOCUMENTS. `builtIn`: documents trusted without registration (the
   * SDK's own operations).
   */
  constructor(
    db: Executor,
    readonly enforce: boolean,
    builtIn: readonly DocumentNode[],
  ) {
    this.builtIn = new Set(builtIn.map(canonicalHashOf));
    this.byId = new LRUCache<string, string | false>({
      max: CACHE_SIZE,
      ttl: KNOWN_TTL_MS,
      fetchMethod: async (id, _stale, { options }) => {
        const text = await findDocumentById(db, id);
        if (text === undefined) options.ttl = UNKNOWN_TTL_MS;
        return text ?? false;
      },
    });
    this.textTrusted = new LRUCache<string, boolean>({
      max: CACHE_SIZE,
      ttl: KNOWN_TTL_MS,
      fetchMethod: async (text, _stale, { options }) => {
        const hash = canonicalHashOfText(text);
        const trusted = hash !== null && (this.builtIn.has(hash) || (await isCanonicalHashTrusted(db, hash)));
        if (!trusted) options.ttl = UNKNOWN_TTL_MS;
        return trusted;
      },
    });
  }

  /**
   * Whether a request is run as sent, run as the text its id names, or refused; synchronous when the
   * answer is in memory. `params` are the values the operation runs with (request-params.ts).
   */
  admit(params: RequestParams): Admission | Promise<Admission> {
    const text = params.query || undefined;
    if (text !== undefined) {
      if (!this.enforce) return AS_SENT;
      const known = this.textTrusted.get(text);
      if (known !== undefined) return this.textVerdict(known);
      return this.textTrusted.fetch(text).then((trusted) => this.textVerdict(trusted === true));
    }
    const id = requestedId(params);
    if (id === undefined) return AS_SENT;
    if (id.length > MAX_ID_LENGTH) return this.idVerdict(id, false);
    const known = this.byId.get(id);
    if (known !== undefined) return this.idVerdict(id, known);
    return this.byId.fetch(id).then((found) => this.idVerdict(id, found ?? false));
  }

  private textVerdict(trusted: boolean): Admission {
    return trusted
      ? AS_SENT
      : refusal('UNTRUSTED_DOCUMENT', 'This server runs trusted documents only: send the documentId of a registered document');
  }

  private idVerdict(id: string, text: string | false): Admission {
    return text === false
      ? refusal('PERSISTED_QUERY_NOT_FOUND', `No document is registered with id ${id.slice(0, MAX_ID_LENGTH)}`)
      : { query: text };
  }
}
