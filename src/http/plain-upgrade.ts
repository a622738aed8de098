/**
 * Requests that carry an `Upgrade` header the server does not take up. Node hands every request with
 * one to the 'upgrade' listener (the GraphQL WebSocket's) instead of the HTTP handler; a client may
 * send `Upgrade: h2c` or a WebSocket handshake to any path, and RFC 9110 §7.8 lets the server ignore
 * the offer and answer as usual. So those requests are answered by the application like any other,
 * on a connection closed afterwards (node has handed the socket over and no longer parses it).
 */
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { writeProblemAndClose } from './client-errors.ts';

export function serveIgnoringUpgrade(server: Server, request: IncomingMessage, socket: Duplex): void {
  // Node stops reading the connection once it has become an upgrade: a body that follows cannot be
  // read for the application. Such a request (rare: upgrades are GETs) is refused, not half-read.
  const hasBody = Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
  if (hasBody) {
    writeProblemAndClose(
      socket,
      'malformed-request',
      'A request with a body cannot ask for a protocol upgrade here; send it without the Upgrade header',
      (request.url ?? '/').split('?')[0]!,
    );
    return;
  }
  const response = new ServerResponse(request);
  response.shouldKeepAlive = false;
  response.assignSocket(socket as Socket);
  response.once('finish', () => {
    response.detachSocket(socket as Socket);
    socket.end();
  });
  request.push(null);
  server.emit('request', request, response);
}
