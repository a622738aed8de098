/**
 * The address policy at connect time. `fetch` gives no hook on the address it dials; an agent's
 * `lookup` does: it resolves the name itself (NameResolver) and hands the socket only an address the
 * policy allows, so a name that resolved to a public address when it was checked and to a private
 * one now (DNS rebinding) is refused at the connection. IP literals never reach `lookup` (Node dials
 * them directly): `literalRefusal` checks them before a request is made.
 */
import type { LookupFunction } from 'node:net';
import { addressRefusal } from './address-policy.ts';
import type { NameResolver } from './name-resolver.ts';

/** The policy refused every address a name resolved to: no connection was made. */
export class AddressRefused extends Error {
  readonly code = 'EADDRREFUSED_POLICY';
}

/** The policy's refusal of a URL host that is an IP literal (`10.0.0.1`, `[::1]`), else null. */
export function literalRefusal(hostname: string, allowLoopback: boolean): string | null {
  const literal = hostname.replace(/^\[|\]$/g, '');
  // Digits and dots, or anything with a colon, is meant as an address: one that does not parse as
  // one is refused as `invalid` rather than handed to the resolver.
  return /^[\d.]+$|:/.test(literal) ? addressRefusal(literal, allowLoopback) : null;
}

/** A `lookup` for an agent: resolve, keep only allowed addresses, dial the first of them. */
export function policyLookup(resolve: NameResolver, allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = typeof options === 'object' ? options.family : options;
        const candidates = addresses.filter((a) => !family || a.family === family);
        const allowed = candidates.filter((a) => addressRefusal(a.address, allowLoopback) === null);
        if (allowed.length === 0) {
          const refused = candidates[0] ?? addresses[0];
          const reason = refused ? addressRefusal(refused.address, allowLoopback)! : `${hostname} has no usable address`;
          callback(new AddressRefused(reason), '', 4);
          return;
        }
        // A name with both allowed and refused addresses is refused as a whole: it is a rebinding setup.
        if (allowed.length !== candidates.length) {
          const bad = candidates.find((a) => addressRefusal(a.address, allowLoopback) !== null)!;
          callback(new AddressRefused(addressRefusal(bad.address, allowLoopback)!), '', 4);
          return;
        }
        const chosen = allowed[0]!;
        if (typeof options === 'object' && options.all) {
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [chosen]);
        } else callback(null, chosen.address, chosen.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
}
