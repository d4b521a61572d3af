import type { DestinationCheck, WebhookDestinations } from '../../../src/core/ports/webhook-destinations';

/** Refused as the service's policy refuses them: literal private addresses, and a name that resolves to none. */
export const REFUSED_HOSTS: Readonly<Record<string, 'address_not_allowed' | 'dns'>> = {
  '127.0.0.1': 'address_not_allowed',
  '10.0.0.1': 'address_not_allowed',
  '169.254.169.254': 'address_not_allowed',
  '[::1]': 'address_not_allowed',
  'nowhere.invalid': 'dns',
};

/** A public address (TEST-NET is reserved, which the real policy refuses): what every other host resolves to. */
const PUBLIC_ADDRESS = '93.184.215.14';

/**
 * Where a URL may lead, by a table instead of DNS and the address policy: every host is allowed but
 * those the table refuses, its private addresses allowed too where private URLs are
 * (WEBHOOK_ALLOW_PRIVATE_URLS). It remembers each URL it was asked about, so a test can tell it was.
 */
export class FakeWebhookDestinations implements WebhookDestinations {
  readonly asked: string[] = [];

  constructor(
    private readonly allowPrivateUrls = false,
    private readonly refused: Readonly<Record<string, 'address_not_allowed' | 'dns'>> = REFUSED_HOSTS,
  ) {}

  async check(url: URL): Promise<DestinationCheck> {
    this.asked.push(url.href);
    const reason = this.refused[url.hostname];
    if (reason === undefined || (reason === 'address_not_allowed' && this.allowPrivateUrls))
      return { allowed: true, addresses: [PUBLIC_ADDRESS] };
    return { allowed: false, reason };
  }
}
