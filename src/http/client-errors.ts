/**
 * Errors raised before Fastify has a request to reply with: node's HTTP parser refuses the bytes
 * (431 when the request line and headers pass 16 KiB, 400 for anything that is not HTTP/1.1), or the
 * request does not arrive within the request timeout (408). Node hands over the raw socket through
 * its 'clientError' event, so the answer is written here as a whole HTTP/1.1 response with a Problem
 * body, and the connection is closed.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ProblemKind } from '../../generated/openapi/problem-types.ts';
import { problem, problemStatus } from './problem.ts';

interface ClientError extends Error {
  code?: string;
}

/** The bytes node's parser failed on (absent for timeouts). */
function rawPacket(error: ClientError): string {
  const raw = (error as { rawPacket?: unknown }).rawPacket;
  return Buffer.isBuffer(raw) ? raw.toString('latin1') : '';
}

const BY_CODE: Record<string, [ProblemKind, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['request-timeout', 'The request did not arrive completely within the time allowed'],
  HPE_HEADER_OVERFLOW: ['header-fields-too-large', 'The request line and headers exceed 16384 bytes'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ['payload-too-large', 'The chunk extensions of the body are too large'],
};

const MALFORMED: [ProblemKind, string] = ['malformed-request', 'The request is not valid HTTP/1.1'];

/**
 * The path the client asked for, when it can be told: from the response node already created (a
 * timeout after the headers), or from the request line in the bytes the parser refused. Otherwise
 * `about:blank`: the problem concerns no resource.
 */
function requestPath(error: ClientError, socket: Socket): string {
  const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
  const url = inFlight?.req?.url ?? /^[A-Z]+ (\/[\x21-\x7e]*) HTTP\/1\.[01]\r?\n/.exec(rawPacket(error))?.[1];
  return url ?? 'about:blank';
}

export function respondToClientError(this: FastifyInstance, error: ClientError, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [kind, detail] = BY_CODE[error.code ?? ''] ?? MALFORMED;
  this.log.debug({ err: error }, 'client error before routing');
  const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
  // Writing after a response has started would corrupt it; then the connection is only closed.
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const status = problemStatus(kind);
  const path = requestPath(error, socket);
  // The path alone, which the start of the bytes holds even when the request line is too long to end.
  const pathname = /^[A-Z]+ (\/[^\s?]*)/.exec(rawPacket(error))?.[1] ?? path.split('?')[0]!;
  // An area with an error format of its own (SCIM) answers in it here too.
  const own = this.frameworkErrorRenderers.find((r) => pathname === r.prefix || pathname.startsWith(`${r.prefix}/`));
  const { type, body } = own
    ? own.raw(status, detail)
    : { type: 'application/problem+json; charset=utf-8', body: JSON.stringify(problem(kind, detail, path)) };
  writeAndClose(socket, status, type, body);
}

/** A whole HTTP/1.1 response written on a socket node no longer parses, which is then closed. */
function writeAndClose(socket: Duplex, status: number, type: string, body: string, headers: string[] = []): void {
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `Content-Type: ${type}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...headers,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}

/** The same with a Problem Details body. */
export function writeProblemAndClose(socket: Duplex, kind: ProblemKind, detail: string, path: string, headers: string[] = []): void {
  writeAndClose(
    socket,
    problemStatus(kind),
    'application/problem+json; charset=utf-8',
    JSON.stringify(problem(kind, detail, path)),
    headers,
  );
}
