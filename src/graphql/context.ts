/**
 * What the GraphQL plumbing knows of the graph it serves: the caller on every resolver context, and
 * a graph (resolver map and context builder) handed in by the area that owns it. The plumbing
 * imports no area: the content area's graph is given to the plugin by src/app.ts.
 */
import type { IResolvers } from '@graphql-tools/utils';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Principal } from '../auth/principal.ts';
import type { DatabaseHandle } from '../db/database.ts';
import { unauthenticated } from '../errors.ts';

/** What the plumbing reads of every resolver context (the auth directives): the caller. */
export interface GraphQLRequestContext {
  [key: string | symbol]: unknown;
  principal: Principal | null;
}

/** Operations over HTTP, or over the WebSocket (where subscriptions run). */
type GraphQLTransport = 'http' | 'ws';

interface GraphLog {
  error(details: object, message: string): void;
}

/** A graph served at /graphql: the resolvers of the SDL in schema/ and what each operation receives. */
/**
 * An operation a graph answers without executing it field by field (the content graph's planner):
 * `run` gives the response's `data` as JSON text, or undefined to execute the operation as usual.
 */
export interface PlannedOperation {
  run(principal: Principal | null, variables: Record<string, unknown> | null | undefined): Promise<string | undefined>;
}

/** The graph's planner: a plan for this operation, or null when it has none. */
export type OperationPlanner = (
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
) => PlannedOperation | null;

export interface GraphQLGraph {
  resolvers: IResolvers;
  /** Plans whole operations the graph can answer without executing them field by field; none by default. */
  plan?: OperationPlanner;
  /** Opens what the graph holds for the server's lifetime (the content area: its event LISTEN). */
  open(database: DatabaseHandle, log: GraphLog): Promise<OpenGraph>;
}

export interface OpenGraph {
  /** The context of one operation; `clientAddress` as TRUST_PROXY has it. */
  context: (principal: Principal | null, clientAddress: string | null, transport: GraphQLTransport) => GraphQLRequestContext;
  /** After the HTTP server has stopped (sockets are gone), before the database closes. */
  close(): Promise<void>;
}

/**
 * The principal of a field guarded by @authenticated or @hasRole. The directive has already refused
 * anonymous callers; this narrows the type and keeps the field safe should the directive be removed.
 */
export function requirePrincipal(context: { principal: Principal | null }): Principal {
  if (!context.principal) throw unauthenticated();
  return context.principal;
}
