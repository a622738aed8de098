/**
 * Remembers every registered route so that a request for a known path with the wrong method gets 405
 * and an `Allow` header instead of a 404.
 */
export class RouteIndex {
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
