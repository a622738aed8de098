/**
 * The `Prefer` request header as Prism reads it: `code=<status>`, `example=<name>` and
 * `dynamic=true`, in any order, separated by commas or semicolons (`Prefer: code=404, example=gone`).
 * Anything else in the header is ignored, as RFC 7240 asks of preferences a server does not know.
 */
import type { FastifyRequest } from 'fastify';

export interface MockPreferences {
  /** A documented status to answer with instead of the first 2xx. */
  code?: string;
  /** The name of an entry of the media type's `examples`. */
  example?: string;
  /** A body generated from the response schema rather than an example. */
  dynamic: boolean;
}

export function preferencesOf(request: FastifyRequest): MockPreferences {
  const header = request.headers.prefer;
  const preferences: MockPreferences = { dynamic: false };
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const token of text.split(/[,;]/)) {
    const match = /^\s*([\w-]+)\s*=\s*"?([^"]*)"?\s*$/.exec(token);
    if (!match) continue;
    const [, name, value] = match as unknown as [string, string, string];
    if (name.toLowerCase() === 'code' && /^\d{3}$/.test(value)) preferences.code = value;
    else if (name.toLowerCase() === 'example') preferences.example = value;
    else if (name.toLowerCase() === 'dynamic') preferences.dynamic = value.toLowerCase() === 'true';
  }
  return preferences;
}
