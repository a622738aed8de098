/**
 * Which IP addresses the server may call out to (webhook deliveries, identity provider documents):
 * only public unicast ones. Everything ipaddr.js classifies otherwise is refused: private (10/8,
 * 172.16/12, 192.168/16), loopback, link-local (169.254/16, fe80::/10), carrier-grade NAT
 * (100.64/10), multicast, unspecified, broadcast, reserved and documentation ranges, IPv6
 * unique-local (fc00::/7), and the IPv6 forms that embed an IPv4 address (IPv4-mapped ::ffff:0:0/96,
 * NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo, and the deprecated IPv4-compatible ::/96, which
 * ipaddr.js calls unicast): an allow-list of one range is the only rule that stays right as new
 * special ranges are assigned.
 */
import ipaddr from 'ipaddr.js';

interface AddressVerdict {
  allowed: boolean;
  /** ipaddr.js's name for the range the address is in (`unicast` when allowed), or `ipv4Compatible`. */
  range: string;
}

/**
 * An IPv6 literal with a dotted-quad tail (`::127.0.0.1`) rewritten with hex groups (`::7f00:1`).
 * ipaddr.js reads `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`, which would name the wrong range,
 * and the WHATWG URL parser hands us the hex form anyway: both spellings must classify alike.
 */
function hexTail(address: string): string {
  const match = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (!match || !ipaddr.IPv4.isValidFourPartDecimal(match[2]!)) return address;
  const [a, b, c, d] = ipaddr.IPv4.parse(match[2]!).octets as [number, number, number, number];
  return `${match[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** ::/96 apart from :: and ::1 (which ipaddr.js names already): an IPv4 address in IPv6 clothing. */
function isIpv4Compatible(parsed: ipaddr.IPv6): boolean {
  const parts = parsed.parts;
  return parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7]! > 1);
}

/** Classifies an IP literal; anything that does not parse as one is refused as `invalid`. */
function classifyAddress(address: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // Zone ids (fe80::1%eth0) are only ever link-local, which is refused anyway.
    const bare = address.replace(/%.*$/, '');
    parsed = ipaddr.parse(bare.includes(':') ? hexTail(bare) : bare);
  } catch {
    return { allowed: false, range: 'invalid' };
  }
  if (parsed.kind() === 'ipv6' && isIpv4Compatible(parsed as ipaddr.IPv6)) return { allowed: false, range: 'ipv4Compatible' };
  const range = parsed.range();
  return { allowed: range === 'unicast', range };
}

/**
 * The refusal of an address under the policy, or null when it may be dialled. `allowLoopback` opens
 * exactly 127.0.0.0/8 and ::1, for the receivers and identity providers that tests run on loopback
 * (WEBHOOK_ALLOW_PRIVATE_TARGETS, ALLOW_INSECURE_IDP; decision 75): every other internal range stays
 * refused, so the address-safety tests can run with it on and no test can ever be made to dial a
 * non-loopback internal address.
 */
export function addressRefusal(address: string, allowLoopback: boolean): string | null {
  const verdict = classifyAddress(address);
  if (verdict.allowed || (allowLoopback && verdict.range === 'loopback')) return null;
  return `${address} is a ${verdict.range} address; only public addresses are called`;
}
