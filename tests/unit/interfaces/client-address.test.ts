import { clientOf } from '../../../src/interfaces/http/client-address';

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
