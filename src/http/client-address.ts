/**
 * The client address of a request Fastify never sees as a request: a WebSocket upgrade is handled on
 * the raw `upgrade` event. It follows TRUST_PROXY exactly as Fastify's `request.ip` does (the same
 * @fastify/proxy-addr, the same reading of true, a hop count or a list), so a client behind a trusted
 * proxy is the same client on HTTP and on the WebSocket, and an untrusted `X-Forwarded-For` is ignored.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { Config } from '../config.ts';

export type ClientAddressOf = (request: IncomingMessage) => string;

export function clientAddressResolver(trustProxy: Config['trustProxy']): ClientAddressOf {
  // A socket already destroyed has no remote address; '' keeps such a request countable.
  if (trustProxy === false) return (request) => request.socket.remoteAddress ?? '';
  const trust =
    trustProxy === true
      ? () => true
      : typeof trustProxy === 'number'
        ? (_address: string, hop: number) => hop < trustProxy
        : proxyAddr.compile(trustProxy);
  return (request) => proxyAddr(request, trust);
}
