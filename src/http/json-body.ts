/**
 * JSON request bodies, for every area: nesting is bounded before the text is parsed, so no handler,
 * validator or service ever walks a value deep enough to exhaust the stack (a `settings` object
 * nested 10,000 deep was a 500 in the configuration service). The check is one pass over the text,
 * linear in its length; the parser is Fastify's own (prototype-poisoning protection included).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

/**
 * Arrays and objects a request body may nest: twice what a GraphQL Json value may (64), so that such a
 * value inside a request's variables is refused by its own rule, which names the field.
 */
const MAX_BODY_DEPTH = 128;

/** Whether `text` opens more than `max` arrays and objects inside one another (strings skipped). */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

function tooDeep(): AppError {
  return new AppError('VALIDATION', `The JSON body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep`, 'JSON_TOO_DEEP');
}

type Done = (error: Error | null, body?: unknown) => void;
type JsonParser = (request: FastifyRequest, body: string, done: Done) => void;

/** Fastify's JSON parser behind the depth bound; with `emptyIsNoBody` an empty body is no body (else Fastify's 400). */
export function boundedJsonParser(app: FastifyInstance, options: { emptyIsNoBody?: boolean } = {}): JsonParser {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    if (options.emptyIsNoBody && body.trim() === '') done(null, undefined);
    else if (nestsDeeperThan(body, MAX_BODY_DEPTH)) done(tooDeep());
    else void parse(request, body, done);
  };
}

/** Replaces the root's JSON parser with the bounded one; areas register after this. */
export function useBoundedJsonBodies(app: FastifyInstance): void {
  const parser = boundedJsonParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => parser(request, body as string, done));
}
