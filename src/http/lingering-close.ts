/**
 * The connection of a request refused before its body has arrived (413 for a body over the limit).
 * The answer says `Connection: close`, and node would then close the socket as soon as the answer is
 * written; while the client is still writing, its next bytes meet a reset, which can destroy the
 * answer in the client's receive buffer before it is read (an oversized SCIM PatchOp sometimes got no
 * 413). So only the sending side is closed at once; the rest of the body is read and thrown away
 * until the client closes too, for at most LINGER_MS or LINGER_BYTES (what web servers call a
 * lingering close).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

const LINGER_MS = 2_000;
const LINGER_BYTES = 64 * 1024 * 1024;

/** Call with the `Connection: close` answer of a request whose body has not all arrived. */
export function lingerBeforeClosing(request: IncomingMessage): void {
  const socket = request.socket as Socket & { destroySoon?: () => void };
  let seen = 0;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  request.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > LINGER_BYTES) cut();
  });
  // The client has sent everything: close for good once our answer is out. Not before: a request
  // without a body ends at once, possibly before an asynchronous hook has let the answer be written.
  request.once('end', () => (socket.writableEnded ? cut() : socket.once('finish', cut)));
  request.resume();
  // What node calls once the answer is written on a connection that is to close: end our side only.
  socket.destroySoon = () => socket.end();
}
