/**
 * Where a webhook endpoint's URL leads, checked before it is accepted and again before each
 * delivery, so that a name which later resolves elsewhere (DNS rebinding) reaches nothing it may not.
 */
export type DestinationCheck =
  | {
      readonly allowed: true;
      /** The addresses the host was resolved to, every one allowed: a delivery connects to one of these. */
      readonly addresses: readonly string[];
    }
  | {
      readonly allowed: false;
      /** address_not_allowed: the host is or resolves to an address refused; dns: it resolves to none. */
      readonly reason: 'address_not_allowed' | 'dns';
    };

export interface WebhookDestinations {
  /** `url` has already been parsed and its scheme checked; this resolves and checks its host. */
  check(url: URL): Promise<DestinationCheck>;
}
