/** Domain verification's TXT records: their name and value, and the lookup through node:dns, at DNS_RESOLVER when configured (tests run a DNS server on loopback). */
import { Resolver } from 'node:dns/promises';
import type { Config } from '../../config.ts';

export type TxtLookup = (name: string) => Promise<string[]>;

const TXT_RECORD_PREFIX = '_schemaforge-verification';
const TOKEN_PREFIX = 'schemaforge-verification=';

/** The TXT record a tenant publishes to prove it holds `domain`, and the value it must hold. */
export function txtRecordName(domain: string): string {
  return `${TXT_RECORD_PREFIX}.${domain}`;
}

export function txtRecordValue(row: { verification_token: string }): string {
  return `${TOKEN_PREFIX}${row.verification_token}`;
}

export function createTxtLookup(resolverAddress: Config['dnsResolver']): TxtLookup {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (resolverAddress) {
    const { host, port } = resolverAddress;
    resolver.setServers([host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`]);
  }
  return async (name) => {
    try {
      // A record may be split into 255-byte strings; they are one value.
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
      throw error;
    }
  };
}
