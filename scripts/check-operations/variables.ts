/**
 * The variable values an operation is checked with. The server estimates the cost with the request's
 * variables, which a check before any request does not have, so it assumes what the caller most
 * likely sends and says so for each variable that sets a size: a variable's default value, else
 * (a nullable one left unset) the argument's default, else (a required one) the argument's default
 * passed explicitly. Other required variables get a stand-in value of their type, which only has to
 * coerce: their values do not change the cost, except a Boolean under @include/@skip, set so that
 * the subtree counts.
 */
import {
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  print,
  TypeInfo,
  typeFromAST,
  visit,
  visitWithTypeInfo,
  Kind,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { sizeArgument } from '../../src/graphql/limits.ts';

interface SizeUse {
  /** `users(size:)`, for the note. */
  argument: string;
  defaultValue: unknown;
}

interface AssumedVariables {
  values: Record<string, unknown>;
  /** One phrase per size-setting variable: what was assumed for it. */
  notes: string[];
}

/** A value of `type` that coerces; `skipped`: a Boolean used by @skip (false keeps the subtree). */
function standInValue(type: GraphQLInputType, skipped: boolean): unknown {
  if (isNonNullType(type)) return standInValue(type.ofType, skipped);
  if (isListType(type)) return [];
  if (isEnumType(type)) return type.getValues()[0]?.value;
  if (isInputObjectType(type)) {
    const required = Object.values(type.getFields()).filter((f) => isNonNullType(f.type) && f.defaultValue === undefined);
    return Object.fromEntries(required.map((f) => [f.name, standInValue(f.type, false)]));
  }
  if (type.name === 'Int' || type.name === 'Float') return 0;
  if (type.name === 'Boolean') return !skipped;
  return '0';
}

/** Variables used by size arguments (with the argument's default) and by @skip, in the whole document. */
function variableUses(schema: GraphQLSchema, document: DocumentNode) {
  const sizes = new Map<string, SizeUse[]>();
  const skips = new Set<string>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        if (node.value.kind !== Kind.VARIABLE) return;
        const variable = node.value.name.value;
        const directive = typeInfo.getDirective();
        if (directive) {
          if (directive.name === 'skip') skips.add(variable);
          return;
        }
        const field = typeInfo.getFieldDef();
        const sized = field && sizeArgument(field);
        if (sized?.name !== node.name.value) return;
        const uses = sizes.get(variable) ?? [];
        uses.push({ argument: `${field!.name}(${sized.name}:)`, defaultValue: sized.defaultValue });
        sizes.set(variable, uses);
      },
    }),
  );
  return { sizes, skips };
}

export function assumedVariables(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): AssumedVariables {
  const { sizes, skips } = variableUses(schema, document);
  const values: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const uses = sizes.get(name) ?? [];
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (definition.defaultValue) {
      if (uses.length) notes.push(`$${name} = ${print(definition.defaultValue)}, its default`);
    } else if (!isNonNullType(type)) {
      // Unset, so each argument takes its own default, as the server does for a request without it.
      for (const use of uses) {
        notes.push(
          use.defaultValue === undefined
            ? `$${name} unset: ${use.argument} has no default and counts 1`
            : `$${name} unset: ${use.argument} at its default ${JSON.stringify(use.defaultValue)}`,
        );
      }
    } else if (uses.length) {
      // A value must be sent: the largest default of the arguments it sets, so no use is undercounted.
      const numbered = uses.filter((u): u is SizeUse & { defaultValue: number } => typeof u.defaultValue === 'number');
      const largest = numbered.sort((a, b) => b.defaultValue - a.defaultValue)[0];
      values[name] = largest?.defaultValue ?? 1;
      notes.push(
        largest
          ? `$${name} = ${largest.defaultValue}, the default of ${largest.argument}`
          : `$${name} = 1: ${uses[0]!.argument} has no default`,
      );
    } else if (type) {
      values[name] = standInValue(type, skips.has(name));
    }
  }
  return { values, notes };
}
