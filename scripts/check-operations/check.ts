/**
 * Checks operation documents as the server will check them at run time: each operation, with the
 * fragments it spreads (from any file, as graphql-codegen's client preset resolves them), goes
 * through the server's own OperationPreparer (length, nesting, fragment expansion, the standard
 * rules and the depth, alias and introspection rules of limits.ts, then the cost estimate), and its
 * cost is the server's operationComplexity. Nothing of the cost model is restated here.
 */
import {
  GraphQLError,
  Kind,
  parse,
  print,
  visit,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { operationComplexity, type GraphQLLimits } from '../../src/graphql/limits.ts';
import { OperationPreparer } from '../../src/graphql/operation.ts';
import type { DocumentText } from './sources.ts';
import { assumedVariables } from './variables.ts';

export interface OperationReport {
  /** `file:line:col` of the operation. */
  where: string;
  name: string;
  /** The server's estimate with the assumed variables; null when it cannot be estimated. */
  cost: number | null;
  /** The server's refusals: message and `extensions.code`. */
  errors: { message: string; code: string }[];
  /** What was assumed for the variables that set a size. */
  notes: string[];
}

interface Parsed {
  text: DocumentText;
  document: DocumentNode;
}

function where(text: DocumentText, line: number, column: number): string {
  return `${text.file}:${text.line + line - 1}:${line === 1 ? text.column + column - 1 : column}`;
}

/** The fragments an operation needs, transitively, from all the documents' fragments. */
function neededFragments(operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): FragmentDefinitionNode[] {
  const needed = new Map<string, FragmentDefinitionNode>();
  const pending: (OperationDefinitionNode | FragmentDefinitionNode)[] = [operation];
  while (pending.length) {
    visit(pending.pop()!, {
      FragmentSpread(node) {
        const fragment = fragments.get(node.name.value);
        if (fragment && !needed.has(node.name.value)) {
          needed.set(node.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return [...needed.values()];
}

export function checkOperations(schema: GraphQLSchema, texts: readonly DocumentText[], limits: GraphQLLimits): OperationReport[] {
  const reports: OperationReport[] = [];
  const parsed: Parsed[] = [];
  for (const text of texts) {
    try {
      parsed.push({ text, document: parse(text.body) });
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      const at = error.locations?.[0] ?? { line: 1, column: 1 };
      reports.push({
        where: where(text, at.line, at.column),
        name: '',
        cost: null,
        errors: [{ message: error.message, code: 'GRAPHQL_PARSE_FAILED' }],
        notes: [],
      });
    }
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const { document } of parsed) {
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  }
  const preparer = new OperationPreparer(schema, limits);
  for (const { text, document: whole } of parsed) {
    for (const operation of whole.definitions) {
      if (operation.kind !== Kind.OPERATION_DEFINITION) continue;
      const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...neededFragments(operation, fragments)] };
      const name = operation.name?.value ?? '';
      const { values, notes } = assumedVariables(schema, document, operation);
      // The text a client sends: the operation and its fragments, printed (the client preset does the same).
      const prepared = preparer.prepare({ query: print(document), variables: values, operationName: name || null });
      const errors =
        'kind' in prepared
          ? []
          : prepared.map((e) => ({
              message: e.message,
              code: typeof e.extensions['code'] === 'string' ? e.extensions['code'] : 'GRAPHQL_VALIDATION_FAILED',
            }));
      const cost = operationComplexity(schema, document, values, name || null);
      // Never pass silently: the server skips the estimate when the variables do not coerce.
      if (cost === null && !errors.length)
        errors.push({ message: 'Its cost cannot be estimated with the assumed variables', code: 'NO_ESTIMATE' });
      const start = operation.loc?.startToken;
      reports.push({ where: where(text, start?.line ?? 1, start?.column ?? 1), name, cost, errors, notes });
    }
  }
  return reports;
}
