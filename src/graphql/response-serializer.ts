/**
 * A JSON serializer compiled for the response shape of one operation, for results without errors.
 *
 * On Node 20, JSON.stringify costs about as much as executing a compiled operation (it inspects
 * every value it meets); the selection set already says what every value is. This derives a JSON
 * schema from the operation (response names in selection order, each field's type from the schema)
 * and compiles it with fast-json-stringify, which writes the known keys and types directly:
 * about twice as fast here (docs/benchmarks.md).
 *
 * Only a result whose values all match their declared types may take this road: a result without
 * errors, where GraphQL execution has already serialised every leaf through its scalar or enum and
 * a null never sits in a non-null position. Anything else (errors, a subtree of an interface or
 * union type, custom scalars such as DateTime and Json) is written by JSON.stringify, inside the
 * compiled function for subtrees, or by the caller for whole results with errors.
 * graphql-jit has a similar option (`customJSONSerializer`), but it refuses to compile any
 * operation that selects a custom scalar, and it merges the fields of abstract types, which can
 * reorder keys against the selection set.
 */
import fastJson from 'fast-json-stringify';
import {
  getNullableType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

type JsonSchema = Record<string, unknown>;

/** Writes a result that has data and no errors. */
export type DataSerializer = (result: ExecutionResult) => string;

/** The scalars whose serialised values have one JSON type; every other scalar is written as any JSON. */
const BUILT_IN_SCALARS: Record<string, string> = { Int: 'integer', Float: 'number', String: 'string', ID: 'string', Boolean: 'boolean' };

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
}

/**
 * The field nodes of a selection set on an object type, grouped by response name in first-seen
 * order (the order graphql-js and graphql-jit give the response keys). Every fragment applies:
 * on an object type, validation admits only fragments on that type or on an abstract type it
 * belongs to. @skip/@include are not evaluated (they depend on variables): a field they drop is
 * absent from the data, and fast-json-stringify leaves an absent property out.
 */
function collectFields(
  walk: Walk,
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  into = new Map<string, FieldNode[]>(),
  visited = new Set<string>(),
) {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const name = selection.alias?.value ?? selection.name.value;
      const nodes = into.get(name);
      if (nodes) nodes.push(selection);
      else into.set(name, [selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collectFields(walk, type, selection.selectionSet, into, visited);
    } else {
      const name = selection.name.value;
      const fragment = walk.fragments.get(name);
      if (!fragment || visited.has(name)) continue;
      visited.add(name);
      collectFields(walk, type, fragment.selectionSet, into, visited);
    }
  }
  return into;
}

function objectSchema(walk: Walk, type: GraphQLObjectType, nodes: readonly FieldNode[] | SelectionSetNode): JsonSchema {
  const fields = new Map<string, FieldNode[]>();
  const selectionSets = 'kind' in nodes ? [nodes] : nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  for (const selectionSet of selectionSets) collectFields(walk, type, selectionSet, fields);
  const properties: JsonSchema = {};
  for (const [responseName, fieldNodes] of fields) {
    const fieldName = fieldNodes[0]!.name.value;
    const fieldType = fieldName === '__typename' ? walk.schema.getType('String') : type.getFields()[fieldName]?.type;
    // An unknown field cannot pass validation; written as any JSON should one ever get here.
    properties[responseName] = fieldType ? valueSchema(walk, fieldType as GraphQLOutputType, fieldNodes) : {};
  }
  return { type: 'object', properties };
}

function valueSchema(walk: Walk, type: GraphQLOutputType, nodes: readonly FieldNode[]): JsonSchema {
  const nullable = !isNonNullType(type);
  const inner = getNullableType(type);
  let schema: JsonSchema;
  if (isListType(inner)) schema = { type: 'array', items: valueSchema(walk, inner.ofType, nodes) };
  else if (isObjectType(inner)) schema = objectSchema(walk, inner, nodes);
  else if (isEnumType(inner)) schema = { type: 'string' };
  else if (isScalarType(inner) && BUILT_IN_SCALARS[inner.name]) schema = { type: BUILT_IN_SCALARS[inner.name] };
  // Custom scalars and abstract types: any JSON (JSON.stringify keeps each object's own key order).
  else return {};
  return nullable ? { ...schema, nullable: true } : schema;
}

function operationOf(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName === undefined
    ? operations.length === 1
      ? operations[0]
      : undefined
    : operations.find((o) => o.name?.value === operationName);
}

/** The serializer of the operation's results, or undefined when the document has no such operation. */
export function compileDataSerializer(schema: GraphQLSchema, document: DocumentNode, operationName?: string): DataSerializer | undefined {
  const operation = operationOf(document, operationName);
  const rootType = operation && schema.getRootType(operation.operation);
  if (!operation || !rootType) return undefined;
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  const data = objectSchema({ schema, fragments }, rootType, operation.selectionSet);
  return fastJson({ type: 'object', properties: { data: { ...data, nullable: true } } });
}
