import ipaddr from 'ipaddr.js';

/**
 * The client a request's address stands for, as throttles count it: an IPv4 address (also when the
 * socket gives it IPv4-mapped), or an IPv6 address's /64, the block one subscriber is given (RFC
 * 6177), so rotating addresses within it does not make a client new. `req.ip` already reflects
 * TRUST_PROXY.
 */
export function clientOf(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return 'unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toNormalizedString()}/64`).toString()}/64`;
}
