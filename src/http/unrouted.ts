/**
 * Answers for unrouted requests, one mechanism for every scope with a not-found handler of its own:
 * a request for a known path with the wrong method gets 405 and an `Allow` header, any other 404.
 * The scope chooses the wording of the 404 and the error format (REST: Problem Details, SCIM: its
 * error message).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Every route registered in a scope, by path pattern, with its methods. */
class RouteIndex {
  private readonly routes: { pattern: RegExp; methods: Set<string> }[] = [];

  add(method: string | string[], url: string): void {
    const source = url
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const pattern = new RegExp(`^${source}/?$`);
    let entry = this.routes.find((r) => r.pattern.source === pattern.source);
    if (!entry) {
      entry = { pattern, methods: new Set() };
      this.routes.push(entry);
    }
    for (const m of Array.isArray(method) ? method : [method]) entry.methods.add(m.toUpperCase());
  }

  methodsFor(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) for (const m of route.methods) methods.add(m);
    return [...methods].filter((m) => m !== 'HEAD').sort();
  }
}

/** How a scope words and renders its answers to unrouted requests. */
interface UnroutedAnswers {
  /** The 404's detail for a path no route of the scope serves. */
  notFound(method: string, path: string): string;
  /**
   * Sends `detail` in the scope's error format, with its media type. The status (404 or 405) and, for
   * a 405, the `Allow` header are already set on `reply`.
   */
  send(request: FastifyRequest, reply: FastifyReply, status: 404 | 405, detail: string): FastifyReply;
}

/**
 * The not-found handler of `scope`: it remembers every route registered in the scope from now on
 * (call it before registering them), and answers a request none matches with 405 when its path is
 * served with other methods, else 404.
 */
export function answerUnroutedRequests(scope: FastifyInstance, answers: UnroutedAnswers): void {
  const routes = new RouteIndex();
  scope.addHook('onRoute', (route) => routes.add(route.method, route.url));
  scope.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = routes.methodsFor(path);
    if (allowed.length) {
      reply.code(405).header('Allow', allowed.join(', '));
      return answers.send(request, reply, 405, `${request.method} is not allowed here; allowed: ${allowed.join(', ')}`);
    }
    return answers.send(request, reply.code(404), 404, answers.notFound(request.method, path));
  });
}
