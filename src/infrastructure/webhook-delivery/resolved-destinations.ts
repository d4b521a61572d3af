import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { DestinationCheck, WebhookDestinations } from '../../core/ports/webhook-destinations';
import { isPublicAddress } from './public-addresses';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** A host name to its addresses: the system's resolver in the service, a table in the tests. */
export type HostResolver = (host: string) => Promise<readonly ResolvedAddress[]>;

/** The system's resolver as Node's own connections use it (getaddrinfo: /etc/hosts, then DNS). */
export const systemResolver: HostResolver = (host) => lookup(host, { all: true });

/**
 * A URL's host checked as a delivery would reach it: a literal address as it is, a name by every
 * address it resolves to, all of which must be public (unless WEBHOOK_ALLOW_PRIVATE_URLS is on),
 * since the connection may go to any of them. The addresses checked are the ones a delivery
 * connects to, so a name that resolves elsewhere a moment later (DNS rebinding) changes nothing.
 */
export class ResolvedWebhookDestinations implements WebhookDestinations {
  constructor(
    private readonly allowPrivateUrls: boolean,
    private readonly resolve: HostResolver = systemResolver,
  ) {}

  async check(url: URL): Promise<DestinationCheck> {
    // The URL keeps an IPv6 literal in brackets: `[::1]`.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const addresses = isIP(host) === 0 ? await this.addressesOf(host) : [host];
    if (addresses.length === 0) return { allowed: false, reason: 'dns' };
    if (!addresses.every((address) => this.allows(address))) return { allowed: false, reason: 'address_not_allowed' };
    return { allowed: true, addresses };
  }

  private allows(address: string): boolean {
    return isIP(address) !== 0 && (this.allowPrivateUrls || isPublicAddress(address));
  }

  /** Its addresses, none when it does not resolve: the attempt or the creation then says `dns`. */
  private async addressesOf(host: string): Promise<string[]> {
    try {
      return (await this.resolve(host)).map(({ address }) => address);
    } catch {
      // ENOTFOUND, ENODATA, a resolver that timed out: all mean the name leads nowhere now.
      return [];
    }
  }
}
