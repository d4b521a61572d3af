import {
  type HostResolver,
  ResolvedWebhookDestinations,
} from '../../../src/infrastructure/webhook-delivery/resolved-destinations';
import { resolverTable } from '../../support/webhook-delivery/resolver-table';

const refusing = (resolve: HostResolver = resolverTable({})) => new ResolvedWebhookDestinations(false, resolve);
const check = (destinations: ResolvedWebhookDestinations, url: string) => destinations.check(new URL(url));
const NOT_ALLOWED = { allowed: false, reason: 'address_not_allowed' };

describe('where a webhook URL may lead, with WEBHOOK_ALLOW_PRIVATE_URLS off', () => {
  it.each([
    ['loopback', '127.0.0.1'],
    ['loopback, anywhere in 127/8', '127.45.0.9'],
    ['private 10/8', '10.0.0.1'],
    ['private 172.16/12', '172.31.255.1'],
    ['private 192.168/16', '192.168.1.10'],
    ['link-local, cloud metadata', '169.254.169.254'],
    ['CGNAT 100.64/10', '100.64.0.1'],
    ['CGNAT, its top', '100.127.255.254'],
    ['multicast', '224.0.0.251'],
    ['unspecified', '0.0.0.0'],
    ['this network 0/8', '0.1.2.3'],
    ['broadcast', '255.255.255.255'],
    ['reserved 240/4', '240.0.0.1'],
    ['documentation', '192.0.2.10'],
    ['benchmarking', '198.18.0.1'],
  ])('refuses %s (%s)', async (_range, address) => {
    expect(await check(refusing(), `https://${address}/hooks`)).toEqual(NOT_ALLOWED);
  });

  it.each([
    ['loopback', '::1'],
    ['unspecified', '::'],
    ['link-local', 'fe80::1'],
    ['unique-local', 'fd12:3456::1'],
    ['unique-local fc00/8', 'fc00::1'],
    ['multicast', 'ff02::1'],
    ['site-local, deprecated', 'fec0::1'],
    ['documentation', '2001:db8::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped private, in hex', '::ffff:a00:1'],
    ['IPv4-mapped link-local', '::ffff:169.254.169.254'],
    ['IPv4-translated loopback (SIIT)', '::ffff:0:7f00:1'],
    ['NAT64 of loopback', '64:ff9b::7f00:1'],
    ['NAT64 of the metadata address', '64:ff9b::a9fe:a9fe'],
    ['NAT64 local-use prefix', '64:ff9b:1::a00:1'],
    ['6to4 of loopback', '2002:7f00:1::1'],
    ['6to4 of a private address', '2002:c0a8:101::1'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['IPv4-compatible, deprecated', '::7f00:1'],
    ['outside global unicast', '4000::1'],
  ])('refuses IPv6 %s ([%s])', async (_range, address) => {
    expect(await check(refusing(), `https://[${address}]/hooks`)).toEqual(NOT_ALLOWED);
  });

  it.each([
    ['a public IPv4 address', 'https://93.184.215.14/hooks', '93.184.215.14'],
    ['a public IPv6 address', 'https://[2606:4700:4700::1111]/', '2606:4700:4700::1111'],
    ['a public address, IPv4-mapped', 'https://[::ffff:8.8.8.8]/', '::ffff:808:808'],
    ['a public address behind NAT64', 'https://[64:ff9b::808:808]/', '64:ff9b::808:808'],
    ['a public address in 6to4', 'https://[2002:808:808::1]/', '2002:808:808::1'],
  ])('allows %s, checked without resolving it', async (_what, url, address) => {
    const resolve = resolverTable({});
    expect(await check(refusing(resolve), url)).toEqual({ allowed: true, addresses: [address] });
    expect(resolve).not.toHaveBeenCalled();
  });

  it("reads a literal address as the URL's parser does, in whatever form it was written", async () => {
    const resolve = resolverTable({});
    for (const url of ['https://2130706433/', 'https://0x7f.1/', 'https://0177.0.0.1/', 'https://[0:0:0:0:0:0:0:1]/'])
      expect(await check(refusing(resolve), url)).toEqual(NOT_ALLOWED);
    expect(resolve).not.toHaveBeenCalled();
  });

  it('refuses a name resolving to 127.0.0.1, localhost included', async () => {
    const resolve = resolverTable({ 'rebind.example.test': ['127.0.0.1'], localhost: ['127.0.0.1', '::1'] });
    expect(await check(refusing(resolve), 'https://rebind.example.test/hooks')).toEqual(NOT_ALLOWED);
    expect(await check(refusing(resolve), 'https://localhost:8443/')).toEqual(NOT_ALLOWED);
    expect(resolve).toHaveBeenCalledWith('rebind.example.test');
  });

  it('refuses a name whose answers mix public and private addresses: the connection may take any', async () => {
    const resolve = resolverTable({
      'mixed.example.test': ['93.184.215.14', '10.1.2.3'],
      'mixed6.example.test': ['2606:4700:4700::1111', 'fd00::5'],
    });
    expect(await check(refusing(resolve), 'https://mixed.example.test/')).toEqual(NOT_ALLOWED);
    expect(await check(refusing(resolve), 'https://mixed6.example.test/')).toEqual(NOT_ALLOWED);
  });

  it('allows a name whose every address is public, and gives them all for the connection', async () => {
    const resolve = resolverTable({ 'hooks.example.test': ['93.184.215.14', '2606:4700:4700::1111'] });
    expect(await check(refusing(resolve), 'https://hooks.example.test/in')).toEqual({
      allowed: true,
      addresses: ['93.184.215.14', '2606:4700:4700::1111'],
    });
  });

  it('says dns for a name that resolves to nothing, or not at all', async () => {
    const resolve = resolverTable({ 'empty.example.test': [] });
    for (const url of ['https://empty.example.test/', 'https://nowhere.example.test/'])
      expect(await check(refusing(resolve), url)).toEqual({ allowed: false, reason: 'dns' });
  });

  it('refuses an answer that is no address at all', async () => {
    const resolve = resolverTable({ 'odd.example.test': ['not-an-address'] });
    expect(await check(refusing(resolve), 'https://odd.example.test/')).toEqual(NOT_ALLOWED);
    expect(await check(new ResolvedWebhookDestinations(true, resolve), 'https://odd.example.test/')).toEqual(
      NOT_ALLOWED,
    );
  });
});

describe('where a webhook URL may lead, with WEBHOOK_ALLOW_PRIVATE_URLS on', () => {
  const resolve = resolverTable({ 'receiver.test': ['127.0.0.1'], 'lan.test': ['10.0.0.7', 'fd00::7'] });
  const allowing = new ResolvedWebhookDestinations(true, resolve);

  it('allows loopback and private addresses, literal or resolved', async () => {
    expect(await check(allowing, 'http://127.0.0.1:8080/')).toEqual({ allowed: true, addresses: ['127.0.0.1'] });
    expect(await check(allowing, 'http://[::1]:8080/')).toEqual({ allowed: true, addresses: ['::1'] });
    expect(await check(allowing, 'http://receiver.test/')).toEqual({ allowed: true, addresses: ['127.0.0.1'] });
    expect(await check(allowing, 'https://lan.test/')).toEqual({ allowed: true, addresses: ['10.0.0.7', 'fd00::7'] });
  });

  it('still says dns for a name that does not resolve', async () => {
    expect(await check(allowing, 'http://nowhere.test/')).toEqual({ allowed: false, reason: 'dns' });
  });
});
