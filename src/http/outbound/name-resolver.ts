/**
 * Resolves an outbound target's host name to every address it has, with the DNS server named by
 * DNS_RESOLVER when set (tests run one on loopback) or the system resolver otherwise. The callers
 * check the addresses against the address policy; the outbound client (./outbound-client.ts)
 * resolves again for each connection and checks the address it is about to dial, so a name that
 * changes (DNS rebinding) cannot slip a private address past a check made earlier.
 */
import dns from 'node:dns';
import net from 'node:net';

/** DNS_RESOLVER as config.ts reads it: the server to ask, or null for the system resolver. */
export type ResolverAddress = { host: string; port: number } | null;

interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type NameResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** A name that does not resolve (for webhooks, the delivery outcome "DNS resolution failure", retried). */
export class NameResolutionError extends Error {
  constructor(
    readonly hostname: string,
    readonly code: string,
  ) {
    super(`cannot resolve ${hostname}: ${code}`);
    this.name = 'NameResolutionError';
  }
}

function stripBrackets(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

export function createNameResolver(dnsResolver: ResolverAddress): NameResolver {
  let resolver: dns.promises.Resolver | undefined;
  if (dnsResolver) {
    resolver = new dns.promises.Resolver({ timeout: 2000, tries: 2 });
    const host = dnsResolver.host.includes(':') ? `[${dnsResolver.host}]` : dnsResolver.host;
    resolver.setServers([`${host}:${dnsResolver.port}`]);
  }
  return async (rawHostname) => {
    const hostname = stripBrackets(rawHostname);
    const literal = net.isIP(hostname);
    if (literal) return [{ address: hostname, family: literal as 4 | 6 }];
    if (!resolver) {
      try {
        const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
        return found.map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
      } catch (error) {
        throw new NameResolutionError(hostname, (error as NodeJS.ErrnoException).code ?? 'ENOTFOUND');
      }
    }
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses: ResolvedAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length === 0) {
      const reason = v4.status === 'rejected' ? (v4.reason as NodeJS.ErrnoException).code : undefined;
      throw new NameResolutionError(hostname, reason ?? 'ENODATA');
    }
    return addresses;
  };
}
