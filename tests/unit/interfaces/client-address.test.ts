import { clientOf, networkOf } from '../../../src/interfaces/http/client-address';

it.each([
  ['an IPv4 address', '192.0.2.1', '192.0.2.1'],
  ['an IPv4-mapped IPv6 address', '::ffff:192.0.2.1', '192.0.2.1'],
  ['an IPv6 address, as its /64', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
  ['another address of the same /64', '2001:db8:1:2::9', '2001:db8:1:2::/64'],
  ['the IPv6 loopback', '::1', '::/64'],
  ['no address (a closed socket)', undefined, 'unknown'],
  ['something that is no address', 'not-an-ip', 'unknown'],
])('counts %s as one client', (_label, ip, client) => {
  expect(clientOf(ip)).toBe(client);
});

it.each([
  ['an IPv4 address, as its /24', '192.0.2.77', '192.0.2.0/24'],
  ['another address of the same /24', '192.0.2.200', '192.0.2.0/24'],
  ['an address of the next /24', '192.0.3.1', '192.0.3.0/24'],
  ['an IPv4-mapped IPv6 address, as its IPv4 /24', '::ffff:198.51.100.9', '198.51.100.0/24'],
  ['an IPv6 address, as its /48', '2001:db8:1:2:3:4:5:6', '2001:db8:1::/48'],
  ['an address of another /64 of the same /48', '2001:db8:1:ffff::1', '2001:db8:1::/48'],
  ['an address of the next /48', '2001:db8:2::1', '2001:db8:2::/48'],
  ['no address', undefined, 'unknown'],
])('puts %s in one network', (_label, ip, network) => {
  expect(networkOf(ip)).toBe(network);
});
