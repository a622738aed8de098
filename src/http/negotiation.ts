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

function notAcceptable(requested: string, offered: readonly MediaType[]): AppError {
  return new AppError('NOT_ACCEPTABLE', `${requested} is not available for this resource; available: ${offered.join(', ')}`);
}

/**
 * Chooses the response type among `offered` (most preferred first). Callers pass a constant array so
 * the common case (no `format`, no or wildcard `Accept`) costs two property reads.
 */
export function negotiate(request: FastifyRequest, offered: readonly MediaType[]): MediaType {
  const format = (request.query as { format?: string } | undefined)?.format;
  if (format !== undefined) {
    const type = FORMAT_TYPES[format];
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
