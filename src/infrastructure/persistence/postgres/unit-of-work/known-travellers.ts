import type { Traveller } from '../../../../core/domain/traveller';

/** A traveller as this process last read or wrote it, with the version it had then. */
export interface KnownTraveller {
  readonly traveller: Traveller;
  readonly version: string;
}

/**
 * The travellers this process wrote last, so a unit of work can start without reading the row:
 * the write's guard checks the version anyway, and a traveller changed elsewhere meanwhile (another
 * process) only costs a fresh read and a second run. Bounded by count; a Map keeps insertion order,
 * so the first entry is the one written longest ago, which goes first.
 */
export class KnownTravellers {
  private readonly byAccount = new Map<string, KnownTraveller>();

  constructor(private readonly maxEntries: number) {}

  get(accountId: string): KnownTraveller | undefined {
    return this.byAccount.get(accountId);
  }

  remember(accountId: string, known: KnownTraveller): void {
    if (this.maxEntries <= 0) return;
    this.byAccount.delete(accountId);
    this.byAccount.set(accountId, known);
    if (this.byAccount.size > this.maxEntries) {
      const oldest = this.byAccount.keys().next();
      if (!oldest.done) this.byAccount.delete(oldest.value);
    }
  }

  forget(accountId: string): void {
    this.byAccount.delete(accountId);
  }
}
