/**
 * One operation answered from its document, as the real server would answer it: the response type
 * negotiated with the server's own negotiate() / negotiateStored() (src/http/negotiation.ts), the
 * body taken from the examples (or generated, `Prefer: dynamic=true`) and written by the server's
 * serializers (representations.ts).
 *
 * Which operations negotiate is read from the document rather than from the handlers: an operation
 * that declares the `format` query parameter negotiates as the server's handlers of such operations
 * do (406 for what it does not offer); another one offering several types (an order's HAL or plain
 * JSON) falls back to its first type rather than refuse, as the server's transitions do.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../src/errors.ts';
import { negotiate, negotiateStored } from '../../src/http/negotiation.ts';
import type { OperationHandler } from '../../src/http/openapi-routes.ts';
import { generateFromSchema } from './dynamic.ts';
import { exampleNames, exampleOf, namedExample, resolve } from './examples.ts';
import { preferencesOf, type MockPreferences } from './prefer.ts';
import { concreteType, hasSerializer, isBinaryType, represent, schemaNameOf } from './representations.ts';

type Json = Record<string, any>;

/** Documented media types, plain JSON first: the server's default when the client states no preference. */
function offeredTypes(content: Json | undefined): string[] {
  const types = Object.keys(content ?? {});
  return types.includes('application/json') ? ['application/json', ...types.filter((t) => t !== 'application/json')] : types;
}

function declaresFormat(doc: Json, item: Json, op: Json): boolean {
  return [...(item.parameters ?? []), ...(op.parameters ?? [])].some((p: Json) => {
    const parameter = resolve(doc, p);
    return parameter?.in === 'query' && parameter.name === 'format';
  });
}

/** The type the request gets among `offered` (throws the server's 406 where the server would). */
function chooseType(request: FastifyRequest, offered: string[], strict: boolean): string | undefined {
  if (offered.length === 0) return undefined;
  if (offered.every(isBinaryType)) {
    // Stored bytes: one real type, refused like the server refuses a stored file's or image's.
    if (strict) negotiateStored(request, concreteType(offered[0]!));
    return offered[0];
  }
  if (strict) return negotiate(request, offered);
  if (offered.length === 1) return offered[0];
  try {
    return negotiate(request, offered);
  } catch {
    return offered[0];
  }
}

/** The body's value: the named example, a generated one, or the document's example for this type. */
async function valueFor(doc: Json, content: Json, type: string, preferences: MockPreferences, operationId: string): Promise<unknown> {
  const media: Json | undefined = content[type];
  if (preferences.dynamic) return generateFromSchema(doc, resolve(doc, media?.schema));
  const others = Object.keys(content)
    .filter((t) => t !== type)
    .map((t) => content[t] as Json);
  if (preferences.example !== undefined) {
    // The chosen type's example of that name, else another type's (XML's `page` is JSON's data too).
    for (const holder of [media, ...others]) {
      const found = namedExample(doc, holder, preferences.example);
      if (found) return found.value;
    }
    const known = [...new Set([media, ...others].flatMap(exampleNames))];
    throw new AppError(
      'VALIDATION',
      `Prefer: example=${preferences.example} is not an example of ${operationId}; ${known.length ? `known: ${known.join(', ')}` : 'it has no named examples'}`,
    );
  }
  // A type the server serialises (XML, CSV) is written from the same data as JSON, not from the text
  // the document shows for it, so that the three representations agree.
  const structured = hasSerializer(type, schemaNameOf(media));
  for (const holder of structured ? [media, content['application/json'] as Json | undefined] : [media]) {
    const value = exampleOf(doc, holder);
    if (value !== undefined && !(structured && typeof value === 'string')) return value;
  }
  return isBinaryType(type) ? undefined : generateFromSchema(doc, resolve(doc, media?.schema));
}

export function answerFromExamples(doc: Json, item: Json, op: Json): OperationHandler<unknown> {
  const responses: Json = op.responses ?? {};
  const operationId = op.operationId as string;
  const success =
    Object.keys(responses)
      .filter((s) => /^2/.test(s))
      .sort()[0] ?? Object.keys(responses)[0]!;
  const offered = offeredTypes(resolve(doc, responses[success])?.content);
  const strict = declaresFormat(doc, item, op);
  return async (request, reply: FastifyReply) => {
    const preferences = preferencesOf(request);
    // Negotiated first, as the server's handlers do before any work: a 406 wins over everything.
    const chosen = chooseType(request, offered, strict);
    const status = preferences.code ?? success;
    const response = resolve(doc, responses[status]);
    if (!response) throw new AppError('VALIDATION', `Prefer: code=${status} is not a documented response of ${operationId}`);
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      // The body's own headers are the body's: a documented Content-Length example would lie about it.
      if (/^content-(type|length)$/i.test(name)) continue;
      const value = exampleOf(doc, resolve(doc, header));
      if (value !== undefined) reply.header(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    reply.code(Number(status));
    const content: Json = response.content ?? {};
    const types = offeredTypes(content);
    if (types.length === 0) return reply.send();
    const type = chosen !== undefined && types.includes(chosen) ? chosen : types[0]!;
    const value = await valueFor(doc, content, type, preferences, operationId);
    const { contentType, body } = represent(type, schemaNameOf(content[type] as Json), value);
    return reply.type(contentType).send(body);
  };
}
