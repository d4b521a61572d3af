import ipaddr from 'ipaddr.js';

/** The prefix lengths a block of addresses is counted by, for each kind of address. */
interface Prefixes {
  readonly ipv4: number;
  readonly ipv6: number;
}

/** One subscriber: an IPv4 address, or the IPv6 /64 one subscriber is given (RFC 6177). */
const CLIENT: Prefixes = { ipv4: 32, ipv6: 64 };
/** One site or organisation: an IPv4 /24, or an IPv6 /48, the most an end site is usually given (RFC 6177). */
const NETWORK: Prefixes = { ipv4: 24, ipv6: 48 };

/**
 * The client a request's address stands for, as throttles count it: an IPv4 address (also when the
 * socket gives it IPv4-mapped), or an IPv6 address's /64, so rotating addresses within it does not
 * make a client new. `req.ip` already reflects TRUST_PROXY.
 */
export function clientOf(ip: string | undefined): string {
  return blockOf(ip, CLIENT);
}

/**
 * The network a client's address belongs to, for the wider bound of a per-address limit: its IPv4
 * /24 or its IPv6 /48, so that many addresses of one network, each within its own limit, cannot
 * each take a whole quota.
 */
export function networkOf(ip: string | undefined): string {
  return blockOf(ip, NETWORK);
}

function blockOf(ip: string | undefined, prefixes: Prefixes): string {
  if (!ip || !ipaddr.isValid(ip)) return 'unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') {
    // A single address is written as it is, as the counters have always keyed it.
    if (prefixes.ipv4 === 32) return address.toString();
    const network = ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${prefixes.ipv4}`);
    return `${network.toString()}/${prefixes.ipv4}`;
  }
  const cidr = `${address.toNormalizedString()}/${prefixes.ipv6}`;
  return `${ipaddr.IPv6.networkAddressFromCIDR(cidr).toString()}/${prefixes.ipv6}`;
}
