/**
 * Executes prepared operations, compiled by graphql-jit where it can and by graphql-js otherwise.
 *
 * graphql-jit turns an operation into a JavaScript function specialised to its selection set (no
 * per-request walk of the AST, argument coercion done once at compile time, resolver info built
 * lazily). It calls the same resolvers of the same schema, so the directive wrappers, DataLoaders
 * and scalars behave as under graphql-js. The compiled function is cached per document and
 * operation name; documents come from OperationPreparer's cache, so the same query text yields the
 * same DocumentNode and the WeakMap lets a compilation go when its document leaves that cache.
 *
 * graphql-js runs instead:
 * - for subscriptions (graphql-ws subscribes through graphql-js; HTTP refuses them before this);
 * - when graphql-jit cannot compile an operation (it answers with errors instead of a function);
 * - when graphql-jit refuses the variables: no resolver has run then, and graphql-js reports the
 *   problem in its own (tested, documented) words, or runs the operation should it accept them;
 * - for a schema other than the one compiled against (a caller passing its own args).
 *
 * Each compiled operation also carries the serializer the HTTP transport writes its results without
 * errors with: JSON.stringify, or a planned result's text in its envelope (decision 216).
 */
import {
  execute as executeJs,
  subscribe as subscribeJs,
  getOperationAST,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery, type CompilerOptions } from 'graphql-jit';
import type { GraphQLRequestContext, OperationPlanner, PlannedOperation } from './context.ts';

type MaybePromise<T> = T | Promise<T>;

/** Writes a result that has data and no errors. */
export type DataSerializer = (result: ExecutionResult) => string;

/**
 * Runs around each operation executed or subscribed to, on every transport (tracing,
 * src/ops/tracing/graphql-spans.ts): it must call `run` once and return what it returns.
 */
export type OperationWrapper = <T>(args: ExecutionArgs, run: () => MaybePromise<T>) => MaybePromise<T>;

interface ExecutorOptions {
  /** Plans whole operations (the graph's `planOperation`); none: every operation is executed. */
  plan?: OperationPlanner;
  /** Told once per operation graphql-jit could not compile (the operation then runs on graphql-js). */
  onCompileError?: (errors: readonly unknown[], operationName: string | undefined) => void;
  /** Runs around every operation; none by default (the check costs one comparison). */
  around?: OperationWrapper;
}

const COMPILER_OPTIONS: Partial<CompilerOptions> = {
  // Stack traces never leave the server (errors.ts replaces unknown errors), so capturing one for
  // every field error is wasted work; errors thrown by resolvers keep their own stacks for the log.
  disablingCapturingStackErrors: true,
  // Off: JSON.stringify writes the results (decision 216); graphql-jit's refuses custom scalars.
  customJSONSerializer: false,
};

/** Not compiled: run on graphql-js (kept, so a refused operation is not recompiled on every request). */
const INTERPRETED = null;

/** One operation of one document, compiled. */
interface CompiledOperation {
  query: CompiledQuery;
  /** Writes a result of this operation that has no errors. */
  serialize: DataSerializer;
  /** The graph's plan for it, tried first; null: executed by graphql-jit. */
  planned: PlannedOperation | null;
}

/** Where a planned result keeps its `data` as the JSON text the database wrote. */
const DATA_TEXT = Symbol('data as JSON text');
type PlannedResult = ExecutionResult & { [DATA_TEXT]: string };

/** A result whose `data` is JSON text: sent as it is over HTTP, parsed only when something reads `data`. */
function plannedResult(text: string): PlannedResult {
  let data: ExecutionResult['data'];
  return {
    [DATA_TEXT]: text,
    get data() {
      return (data ??= JSON.parse(text) as ExecutionResult['data']);
    },
  };
}

/** The serializer of an operation with a plan: a planned result is its text in an envelope, no copy made. */
function withPlannedText(serialize: DataSerializer): DataSerializer {
  return (result) => {
    const text = (result as Partial<PlannedResult>)[DATA_TEXT];
    return text === undefined ? serialize(result) : `{"data":${text}}`;
  };
}

export class OperationExecutor {
  private readonly compiled = new WeakMap<DocumentNode, Map<string | null, CompiledOperation | typeof INTERPRETED>>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly options: ExecutorOptions = {},
  ) {}

  /** graphql-js's execute signature, so it plugs into graphql-http and graphql-ws as their `execute`. */
  readonly execute = (args: ExecutionArgs): MaybePromise<ExecutionResult> => {
    const around = this.options.around;
    return around === undefined ? this.executeNow(args) : around(args, () => this.executeNow(args));
  };

  /** graphql-js's subscribe, for graphql-ws's `subscribe` (subscriptions always run on graphql-js). */
  readonly subscribe = (args: ExecutionArgs): MaybePromise<Awaited<ReturnType<typeof subscribeJs>>> => {
    const around = this.options.around;
    return around === undefined ? subscribeJs(args) : around(args, () => subscribeJs(args));
  };

  /** Runs a compiled operation; args are what graphql-js runs should graphql-jit refuse the variables. */
  run(operation: CompiledOperation, args: ExecutionArgs): MaybePromise<ExecutionResult> {
    const around = this.options.around;
    return around === undefined ? this.runNow(operation, args) : around(args, () => this.runNow(operation, args));
  }

  private executeNow(args: ExecutionArgs): MaybePromise<ExecutionResult> {
    const operation = args.schema === this.schema ? this.compiledFor(args.document, args.operationName) : INTERPRETED;
    return operation === INTERPRETED ? executeJs(args) : this.runNow(operation, args);
  }

  private runNow(operation: CompiledOperation, args: ExecutionArgs): MaybePromise<ExecutionResult> {
    const planned = operation.planned;
    if (planned === null) return this.runCompiled(operation, args);
    const principal = (args.contextValue as GraphQLRequestContext).principal;
    return planned
      .run(principal, args.variableValues)
      .then((text) => (text === undefined ? this.runCompiled(operation, args) : plannedResult(text)));
  }

  private runCompiled(operation: CompiledOperation, args: ExecutionArgs): MaybePromise<ExecutionResult> {
    const result = operation.query.query(args.rootValue, args.contextValue, args.variableValues);
    return result instanceof Promise ? result.then((r) => checked(r, args)) : checked(result, args);
  }

  /** The operation compiled (compiling it if that has not been tried yet), or null when it runs on graphql-js. */
  compiledFor(document: DocumentNode, operationName: string | null | undefined): CompiledOperation | null {
    let byName = this.compiled.get(document);
    if (!byName) {
      byName = new Map();
      this.compiled.set(document, byName);
    }
    const key = operationName ?? null;
    let operation = byName.get(key);
    if (operation === undefined) {
      const ast = getOperationAST(document, operationName);
      // Unknown or ambiguous operation: graphql-js produces the error. Not remembered, so that
      // arbitrary operation names cannot grow the map (the transports refuse them before anyway).
      if (!ast) return INTERPRETED;
      operation = ast.operation === OperationTypeNode.SUBSCRIPTION ? INTERPRETED : this.tryCompile(document, operationName ?? undefined);
      byName.set(key, operation);
    }
    return operation;
  }

  /**
   * compileQuery answers a refusal with errors (it throws only without a schema or a document);
   * the graph's planner is asked once per operation compiled.
   */
  private tryCompile(document: DocumentNode, operationName: string | undefined): CompiledOperation | typeof INTERPRETED {
    const compiled = compileQuery(this.schema, document, operationName, COMPILER_OPTIONS);
    if (!isCompiledQuery(compiled)) {
      this.options.onCompileError?.(compiled.errors ?? [], operationName);
      return INTERPRETED;
    }
    const planned = this.options.plan?.(this.schema, document, operationName) ?? null;
    return { query: compiled, serialize: planned ? withPlannedText(JSON.stringify) : JSON.stringify, planned };
  }
}

/** A result without `data` means graphql-jit refused the variables before running anything. */
function checked(result: ExecutionResult, args: ExecutionArgs): MaybePromise<ExecutionResult> {
  return 'data' in result ? result : executeJs(args);
}
