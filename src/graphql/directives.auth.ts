/**
 * @authenticated and @hasRole(role, scope): field-level authorization declared in the SDL. Each guarded
 * field's resolver (and, for subscriptions, its subscribe function) is wrapped so the check runs
 * before anything else, including the @constraint checks (see schema.ts for the order).
 */
import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { hasRole, hasRoleInOwnTenant } from '../auth/principal.ts';
import { forbidden, unauthenticated } from '../errors.ts';
import type { GraphQLRequestContext } from './context.ts';

type Check = (context: GraphQLRequestContext) => void;

function guard(
  check: Check,
  resolve: GraphQLFieldResolver<unknown, GraphQLRequestContext>,
): GraphQLFieldResolver<unknown, GraphQLRequestContext> {
  return (source, args, context, info) => {
    check(context);
    return resolve(source, args, context, info);
  };
}

export function applyAuthDirectives(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (fieldConfig) => {
      const checks: Check[] = [];
      if (getDirective(schema, fieldConfig, 'authenticated')?.length) {
        checks.push((context) => {
          if (!context.principal) throw unauthenticated();
        });
      }
      for (const { role, scope } of getDirective(schema, fieldConfig, 'hasRole') ?? []) {
        // TENANT: a role the caller's own tenant grants is enough; the resolver then acts on that tenant.
        const inOwnTenant = scope === 'TENANT';
        checks.push((context) => {
          if (!context.principal) throw unauthenticated();
          const held = hasRole(context.principal, role as string) || (inOwnTenant && hasRoleInOwnTenant(context.principal, role as string));
          if (!held) throw forbidden();
        });
      }
      if (!checks.length) return fieldConfig;
      const check: Check = (context) => checks.forEach((c) => c(context));
      return {
        ...fieldConfig,
        resolve: guard(check, fieldConfig.resolve ?? defaultFieldResolver),
        ...(fieldConfig.subscribe ? { subscribe: guard(check, fieldConfig.subscribe) } : {}),
      };
    },
  });
}
