import { isIP } from 'node:net';
import type { HostResolver } from '../../../src/infrastructure/webhook-delivery/resolved-destinations';

/**
 * A resolver answering from a table, as DNS would (the tests have no outside DNS): a name it lacks
 * does not resolve.
 */
export function resolverTable(table: Record<string, readonly string[]>): HostResolver & jest.Mock {
  return jest.fn(async (host: string) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: isIP(address) }));
  });
}
