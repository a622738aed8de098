/**
 * Parses, validates and checks the limits of one GraphQL request, the same way for HTTP and
 * WebSocket: length and bracket nesting first (before parsing), then the size of each operation and
 * fragment once its fragments are expanded (computed linearly, before validation could expand them
 * exponentially: document-bounds.ts), then the standard rules plus depth, alias and introspection
 * rules, then the cost estimate with the request's variables.
 *
 * Parsing and validation depend only on the schema and the query text, so a valid document is
 * cached by its text (bounded LRU): a repeated query skips parse, validate and the depth, alias and
 * introspection rules. The cost estimate can depend on variables (a `size: $n`, an
 * `@include(if: $flag)`), so what is cached with the document is its cost compiled per operationName
 * into a function of the variables (cost.ts), evaluated with each request's variables.
 */
import { Kind, parse, specifiedRules, validate, GraphQLError, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import { LRUCache } from 'lru-cache';
import { compileCost, type CompiledCost } from './cost.ts';
import { largestExpansion, MAX_EXPANDED_FIELDS, MAX_TEXT_NESTING, textNesting } from './document-bounds.ts';
import { aliasLimitRule, depthLimitRule, introspectionRule, limitError, type GraphQLLimits } from './limits.ts';

export interface OperationRequest {
  query: string;
  variables?: Record<string, unknown> | null | undefined;
  operationName?: string | null | undefined;
}

/**
 * A syntax error, told apart from a validation error by its code (GRAPHQL_PARSE_FAILED, the code
 * Apollo clients already branch on), with graphql-js's message and location.
 */
function parseFailed(error: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    source: error.source,
    positions: error.positions,
    extensions: { errorType: 'BAD_REQUEST', code: 'GRAPHQL_PARSE_FAILED' },
  });
}

const tooNested = () =>
  new GraphQLError(`Syntax Error: the document nests brackets more than ${MAX_TEXT_NESTING} levels deep`, {
    extensions: { errorType: 'BAD_REQUEST', code: 'GRAPHQL_PARSE_FAILED' },
  });

/** Bounds the parser's work on top of the length cap (a token-dense query is still cheap to refuse). */
const MAX_TOKENS = 5_000;

/** Distinct valid query texts kept parsed and validated. */
const DEFAULT_DOCUMENT_CACHE_SIZE = 1_000;

interface CachedDocument {
  document: DocumentNode;
  /** The compiled cost, by the request's operationName (null when none, or an empty one, was given). */
  costs: Map<string | null, CompiledCost>;
}

function namesOperation(document: DocumentNode, name: string): boolean {
  return document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name);
}

export class OperationPreparer {
  private readonly rules: readonly ValidationRule[];
  /** Only documents that passed validation: refused texts are never cached, so junk cannot evict them. */
  private readonly documents: LRUCache<string, CachedDocument>;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limits: GraphQLLimits,
    cacheSize = DEFAULT_DOCUMENT_CACHE_SIZE,
  ) {
    this.rules = [...specifiedRules, depthLimitRule(limits.maxDepth), aliasLimitRule(limits.maxAliases), introspectionRule()];
    this.documents = new LRUCache({ max: cacheSize });
  }

  /** Number of validated documents currently cached. */
  get cachedDocuments(): number {
    return this.documents.size;
  }

  /** The parsed document ready to execute, or the errors that refuse it. */
  prepare(request: OperationRequest): DocumentNode | readonly GraphQLError[] {
    const { maxQueryLength, maxComplexity } = this.limits;
    if (request.query.length > maxQueryLength) {
      return [limitError('QUERY_TOO_LONG', `Query is ${request.query.length} characters long; at most ${maxQueryLength} are allowed`)];
    }
    let entry = this.documents.get(request.query);
    if (!entry) {
      if (textNesting(request.query) > MAX_TEXT_NESTING) return [tooNested()];
      let document: DocumentNode;
      try {
        document = parse(request.query, { maxTokens: MAX_TOKENS });
      } catch (error) {
        if (error instanceof GraphQLError) return [parseFailed(error)];
        throw error;
      }
      const expansion = largestExpansion(document);
      if (expansion.fields > MAX_EXPANDED_FIELDS) {
        const fields = expansion.fields > 1e9 ? 'more than a billion' : String(expansion.fields);
        return [
          limitError(
            'QUERY_TOO_COMPLEX',
            `${expansion.largest[0]!.toUpperCase()}${expansion.largest.slice(1)} selects ${fields} fields once its fragments are expanded; at most ${MAX_EXPANDED_FIELDS} are allowed`,
          ),
        ];
      }
      const errors = validate(this.schema, document, this.rules);
      if (errors.length) return errors;
      entry = { document, costs: new Map() };
      this.documents.set(request.query, entry);
    }
    const complexity = this.complexity(entry, request);
    if (complexity !== null && complexity > maxComplexity) {
      return [limitError('QUERY_TOO_COMPLEX', `Query complexity ${complexity} exceeds the maximum complexity of ${maxComplexity}`)];
    }
    return entry.document;
  }

  private complexity(entry: CachedDocument, request: OperationRequest): number | null {
    // operationComplexity takes an empty operationName for none, and so does compileCost.
    const key = request.operationName || null;
    let cost = entry.costs.get(key);
    if (!cost) {
      cost = compileCost(this.schema, entry.document, key);
      // A name that is no operation's is not kept: requests could otherwise grow the map without
      // bound. Its cost (0, or null beside an anonymous operation) compiles without walking a selection.
      if (key === null || namesOperation(entry.document, key)) entry.costs.set(key, cost);
    }
    return cost(request.variables);
  }
}
