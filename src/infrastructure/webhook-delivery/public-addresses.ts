import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** IPv6's global unicast block (RFC 4291): the rest of the space is reserved, local or unassigned. */
const GLOBAL_UNICAST_IPV6 = ipaddr.IPv6.parseCIDR('2000::/3');
/** NAT64's well-known prefix (RFC 6052): the last 32 bits are the IPv4 address it reaches. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Whether a webhook may connect to `text`: an address on the public internet. An allow-list
 * (ipaddr.js's `unicast`, which it gives only outside every special range it knows: loopback,
 * private, link-local, unique-local, CGNAT, multicast, unspecified, broadcast, reserved, ...)
 * rather than a list of what is refused, so that a range nobody thought of is refused too.
 */
export function isPublicAddress(text: string): boolean {
  const family = isIP(text);
  if (family === 0) return false;
  if (family === 4) return ipaddr.IPv4.parse(text).range() === 'unicast';
  const ipv6 = ipaddr.IPv6.parse(text);
  // A zone names a local interface: only link-local addresses have one.
  if (ipv6.zoneId !== undefined) return false;
  const embedded = embeddedIPv4(ipv6);
  if (embedded) return embedded.range() === 'unicast';
  return ipv6.range() === 'unicast' && ipv6.match(GLOBAL_UNICAST_IPV6);
}

/**
 * The IPv4 address an IPv6 form reaches (IPv4-mapped, SIIT's translated form, NAT64's well-known
 * prefix, 6to4), judged as that address: `::ffff:127.0.0.1` is loopback, `64:ff9b::a00:1` is 10.0.0.1.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return new ipaddr.IPv4(bytes.slice(12));
    case 'rfc6052':
      // 64:ff9b:1::/48 (RFC 8215) is for local use, its embedding the network's choice: refused whole.
      return address.match(NAT64_WELL_KNOWN) ? new ipaddr.IPv4(bytes.slice(12)) : null;
    case '6to4':
      return new ipaddr.IPv4(bytes.slice(2, 6));
    default:
      return null;
  }
}
