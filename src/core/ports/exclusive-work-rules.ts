import type { Traveller } from '../domain/traveller';
import type { TravellerRepository } from './repositories';
import { UnitOfWorkMisuse } from './transaction-boundary';

/** What a unit of work may not ask its boundary for while it runs. */
export type WorkInside = 'read' | 'consistent read' | 'count' | 'second unit';

/**
 * The rules of one run of an account's exclusive work (TransactionBoundary.exclusive), which every
 * boundary keeps, PostgreSQL's and the fakes' alike, so that neither accepts what the other refuses:
 * - the work reads, then writes: its writes apply at its end, so a read after one would not see it;
 * - it asks its boundary for nothing while it runs: a read or a count there would escape the
 *   unit's guard, and a second unit of the account would queue behind this one for ever;
 * - its traveller is its account's own: the one it started from, which it may save, or, on an
 *   account that has none, the one it opens the account with, added once;
 * - a save changes a row that is there: saving one never added is a defect, not a quiet nothing.
 * Each breach is a UnitOfWorkMisuse: a defect to fix, never run again.
 */
export class ExclusiveWorkRules {
  private wrote = false;
  private reads = 0;
  private traveller: Traveller | null;
  private travellerSaved = false;

  constructor(
    readonly accountId: string,
    /** The traveller the run starts from; null: the account has none yet, and the work opens it. */
    private readonly start: Traveller | null,
  ) {
    this.traveller = start;
  }

  /** Before each read of the unit's repositories (but its traveller, its own). */
  beforeRead(): void {
    if (this.wrote) throw new UnitOfWorkMisuse('a read after a write, which would not see it');
    this.reads += 1;
  }

  /** Before each write of the unit's repositories. */
  beforeWrite(): void {
    this.wrote = true;
  }

  /** Whether the work read anything but its traveller. */
  get readAnything(): boolean {
    return this.reads > 0;
  }

  /** The boundary was asked for more work from inside this unit's work. */
  refuseInside(what: WorkInside): never {
    throw new UnitOfWorkMisuse(`a ${what} inside an account's exclusive work`);
  }

  /** A save of the unit found no row to change: what to throw. */
  savedNothing(what: string): UnitOfWorkMisuse {
    return new UnitOfWorkMisuse(`saving ${what}, which was never added`);
  }

  /** The traveller as the unit leaves it: started from, saved or added. */
  get travellerNow(): Traveller | null {
    return this.traveller;
  }

  /** The traveller the unit saved (null: it saved none), to write with the unit's other writes. */
  get saved(): Traveller | null {
    return this.travellerSaved ? this.traveller : null;
  }

  /**
   * The unit's view of the travellers: its own, as it started and as it saved it. `add` records the
   * traveller that opens the account among the unit's writes.
   */
  travellers(add: (traveller: Traveller) => Promise<void>): TravellerRepository {
    return {
      getForAccount: async (accountId) => {
        this.ownAccount(accountId);
        if (!this.traveller) throw new Error(`account ${accountId} has no traveller`);
        return this.traveller;
      },
      save: async (traveller) => {
        this.ownAccount(traveller.accountId);
        if (!this.start) throw new UnitOfWorkMisuse('saving a traveller the unit did not start from');
        this.beforeWrite();
        this.traveller = traveller;
        this.travellerSaved = true;
      },
      add: async (traveller) => {
        this.ownAccount(traveller.accountId);
        if (this.traveller) throw new UnitOfWorkMisuse('adding a traveller to an account that has one');
        this.beforeWrite();
        this.traveller = traveller;
        await add(traveller);
      },
    };
  }

  private ownAccount(accountId: string): void {
    if (accountId !== this.accountId) throw new UnitOfWorkMisuse("another account's traveller");
  }
}
