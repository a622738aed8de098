/**
 * Content negotiation for REST responses. The `format` query parameter, when present, wins over
 * `Accept`; a missing `Accept`, `*` / `*` and `application/*` select the operation's first offered
 * type (JSON). Anything the operation does not offer is a 406, raised as a typed error so it becomes a
 * Problem like every other failure.
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

export type MediaType = 'application/json' | 'application/hal+json' | 'application/xml' | 'text/csv' | (string & {});

const FORMAT_TYPES: Record<string, MediaType> = {
  json: 'application/json',
  xml: 'application/xml',
  csv: 'text/csv',
};

/** `format` values the operation offers, in its order of preference (`json, xml`). */
function offeredFormats(offered: readonly MediaType[]): string[] {
  return offered.flatMap((type) => Object.keys(FORMAT_TYPES).filter((name) => FORMAT_TYPES[name] === type));
}

function notAcceptable(requested: string, offered: readonly MediaType[]): AppError {
  const formats = offeredFormats(offered);
  const byFormat = formats.length ? `; format: ${formats.join(', ')}` : '; no format value selects it';
  return new AppError('NOT_ACCEPTABLE', `${requested} is not available for this resource; available: ${offered.join(', ')}${byFormat}`);
}

/**
 * Chooses the response type among `offered` (most preferred first). Callers pass a constant array so
 * the common case (no `format`, no or wildcard `Accept`) costs two property reads.
 */
export function negotiate(request: FastifyRequest, offered: readonly MediaType[]): MediaType {
  const format = (request.query as { format?: string } | undefined)?.format;
  if (format !== undefined) {
    // Any value, known or not, that names no offered type is a 406 like an unmatched Accept: the
    // parameter is declared as a free string so the validator does not turn `format=yaml` into a 400.
    const type = Object.hasOwn(FORMAT_TYPES, format) ? FORMAT_TYPES[format] : undefined;
    if (type === undefined || !offered.includes(type)) throw notAcceptable(`format=${format}`, offered);
    return type;
  }
  const accept = request.headers.accept;
  if (accept === undefined || accept === '*/*' || accept === offered[0]) return offered[0]!;
  // request.accepts() comes from @fastify/accepts, registered for every REST area (rest-area.ts).
  const chosen = request.accepts().type(offered as string[]);
  if (!chosen) throw notAcceptable(`Accept: ${accept}`, offered);
  return chosen as MediaType;
}

/**
 * For stored bytes (files, images) the only representation is the stored type: every `format` value
 * names another type, so any `format` is a 406, and so is an `Accept` that excludes the stored type.
 */
export function negotiateStored(request: FastifyRequest, storedType: string): void {
  const format = (request.query as { format?: string } | undefined)?.format;
  if (format !== undefined) throw notAcceptable(`format=${format}`, [storedType]);
  const accept = request.headers.accept;
  if (accept === undefined || accept === '*/*') return;
  if (!request.accepts().type([storedType])) throw notAcceptable(`Accept: ${accept}`, [storedType]);
}
