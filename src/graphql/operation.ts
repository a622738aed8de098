/**
 * Parses, validates and checks the limits of one GraphQL request, the same way for HTTP and
 * WebSocket: length first (before parsing), then the standard rules plus depth, alias and
 * introspection rules, then the cost estimate with the request's variables.
 */
import { parse, specifiedRules, validate, GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import { aliasLimitRule, depthLimitRule, introspectionRule, limitError, operationComplexity, type GraphQLLimits } from './limits.ts';

export interface OperationRequest {
  query: string;
  variables?: Record<string, unknown> | null | undefined;
  operationName?: string | null | undefined;
}

/** Bounds the parser's work on top of the length cap (a token-dense query is still cheap to refuse). */
const MAX_TOKENS = 5_000;

export class OperationPreparer {
  private readonly rules;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limits: GraphQLLimits,
  ) {
    this.rules = [...specifiedRules, depthLimitRule(limits.maxDepth), aliasLimitRule(limits.maxAliases), introspectionRule()];
  }

  /** The parsed document ready to execute, or the errors that refuse it. */
  prepare(request: OperationRequest): DocumentNode | readonly GraphQLError[] {
    const { maxQueryLength, maxComplexity } = this.limits;
    if (request.query.length > maxQueryLength) {
      return [limitError('QUERY_TOO_LONG', `Query is ${request.query.length} characters long; at most ${maxQueryLength} are allowed`)];
    }
    let document: DocumentNode;
    try {
      document = parse(request.query, { maxTokens: MAX_TOKENS });
    } catch (error) {
      if (error instanceof GraphQLError) return [error];
      throw error;
    }
    const errors = validate(this.schema, document, this.rules);
    if (errors.length) return errors;
    const complexity = operationComplexity(this.schema, document, request.variables, request.operationName);
    if (complexity !== null && complexity > maxComplexity) {
      return [limitError('QUERY_TOO_COMPLEX', `Query complexity ${complexity} exceeds the maximum complexity of ${maxComplexity}`)];
    }
    return document;
  }
}
