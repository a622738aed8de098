/**
 * The stand-in cases of `npm run bench -- profile` (cpu-profile.ts) and `npm run bench -- settings`
 * (settings-ab.ts): ours on in-memory resolvers or the stubbed repository, and its peer, each a
 * server of scripts/bench/serve.ts with the request it is measured with.
 */
import { signToken } from '../../src/auth/jwt.ts';
import { JWT_SECRET, MEMORY_GRAPHQL_PATH, VIEWER } from './fixtures.ts';
import { request as graphqlRequest, VARIANTS as GRAPHQL_VARIANTS, type Variant as GraphQLVariant } from './graphql.ts';
import type { LoadRequest } from './load.ts';
import { REST_VARIANTS } from './products.ts';

export interface StandInTarget {
  name: string;
  /** serve.ts's server kind and data. */
  kind: string;
  data: 'memory' | 'stub';
  /** Settings of this target beside the production environment (context.ts productionEnv; settings-ab.ts). */
  env: Record<string, string>;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface StandInCase {
  title: string;
  ours: StandInTarget;
  peer: StandInTarget;
}

/**
 * graphql: ours on in-memory resolvers (`ours-memory`) and Mercurius+jit, the same operation
 * (variants feed, feed-bearer, large, mutation; default feed); rest: ours on the stubbed repository
 * (`ours-stub`) and the bare Fastify route (variants by-id, by-id-bearer, page; default by-id).
 */
export async function standInCase(caseName: string, variant: string | undefined): Promise<StandInCase> {
  const token = await signToken(JWT_SECRET, { sub: VIEWER, expiresIn: 24 * 3600 });
  if (caseName === 'graphql') {
    const v = (variant ?? 'feed') as GraphQLVariant;
    if (!GRAPHQL_VARIANTS.includes(v)) throw new Error(`graphql variants: ${GRAPHQL_VARIANTS.join(', ')}`);
    const of = (name: string, kind: string, at: string): StandInTarget => {
      const r = graphqlRequest(v, at, token);
      return { name, kind, data: 'memory', env: {}, method: 'POST', path: r.path, headers: r.headers ?? {}, body: r.body };
    };
    return {
      title: `GraphQL on in-memory resolvers, ${v}`,
      ours: of('ours', 'ours-memory', MEMORY_GRAPHQL_PATH),
      peer: of('Mercurius+jit', 'mercurius', '/graphql'),
    };
  }
  if (caseName === 'rest') {
    const v = REST_VARIANTS.find((r) => r.id === (variant ?? 'by-id'));
    if (!v) throw new Error(`rest variants: ${REST_VARIANTS.map((r) => r.id).join(', ')}`);
    const headers = { accept: 'application/json', ...(v.bearer ? { authorization: `Bearer ${token}` } : {}) };
    const of = (name: string, kind: string): StandInTarget => ({ name, kind, data: 'stub', env: {}, method: 'GET', path: v.path, headers });
    return { title: `REST on the stubbed repository, ${v.title}`, ours: of('ours', 'ours-stub'), peer: of('bare Fastify', 'fastify-bare') };
  }
  throw new Error('graphql or rest');
}

/** The load generator's request for a target served at `url`. */
export function standInLoad(target: StandInTarget, url: string, seconds: number): LoadRequest {
  return { url: `${url}${target.path}`, method: target.method, headers: target.headers, body: target.body, connections: 10, seconds };
}
