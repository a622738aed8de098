/**
 * Which IP addresses a webhook may be delivered to: only public unicast ones. Everything ipaddr.js
 * classifies otherwise is refused: private (10/8, 172.16/12, 192.168/16), loopback, link-local
 * (169.254/16, fe80::/10), carrier-grade NAT (100.64/10), multicast, unspecified, broadcast,
 * reserved and documentation ranges, IPv6 unique-local (fc00::/7), and the IPv6 forms that embed an
 * IPv4 address (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo): an
 * allow-list of one range is the only rule that stays right as new special ranges are assigned.
 */
import ipaddr from 'ipaddr.js';

export interface AddressVerdict {
  allowed: boolean;
  /** ipaddr.js's name for the range the address is in (`unicast` when allowed). */
  range: string;
}

/** Classifies an IP literal; anything that does not parse as one is refused as `invalid`. */
export function classifyAddress(address: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // Zone ids (fe80::1%eth0) are only ever link-local, which is refused anyway.
    parsed = ipaddr.parse(address.replace(/%.*$/, ''));
  } catch {
    return { allowed: false, range: 'invalid' };
  }
  const range = parsed.range();
  return { allowed: range === 'unicast', range };
}

/**
 * The refusal of an address under the policy, or null when it may be dialled. `allowLoopback`
 * (WEBHOOK_ALLOW_PRIVATE_TARGETS=true) opens exactly 127.0.0.0/8 and ::1, for receivers that tests
 * run on loopback (decision 75): every other internal range stays refused, so the address-safety
 * tests can run with it on and no test can ever be made to dial a non-loopback internal address.
 */
export function addressRefusal(address: string, allowLoopback: boolean): string | null {
  const verdict = classifyAddress(address);
  if (verdict.allowed || (allowLoopback && verdict.range === 'loopback')) return null;
  return `${address} is a ${verdict.range} address; webhooks are only delivered to public addresses`;
}
