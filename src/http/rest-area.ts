/**
 * The plumbing every REST area registers in its own scope: `request.accepts()` for negotiation and a
 * streaming multipart parser whose limits reject an oversized upload while it is still arriving.
 */
import fastifyAccepts from '@fastify/accepts';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

/** The upload limit of the interface document (files and product images). */
export const MAX_UPLOAD_BYTES = 10_000_000;

export async function registerRestPlumbing(scope: FastifyInstance): Promise<void> {
  await scope.register(fastifyAccepts);
  await scope.register(fastifyMultipart, {
    // Oversized files are detected from busboy's `limit` event (multipart-upload.ts), not by throwing
    // from inside the stream, so the handler can stop reading and answer 413 at once.
    throwFileSizeLimit: false,
    limits: { fileSize: MAX_UPLOAD_BYTES, files: 5, parts: 20, fields: 10, fieldSize: 64 * 1024, headerPairs: 50 },
  });
}
