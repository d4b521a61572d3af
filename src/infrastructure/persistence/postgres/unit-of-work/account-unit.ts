import type { Traveller } from '../../../../core/domain/traveller';
import type { TravellerRepository } from '../../../../core/ports/repositories';
import type { Table } from '../kysely';
import { travellerRow } from '../repositories/traveller-repository';
import type { KnownTraveller } from './known-travellers';
import type { Row } from '../kysely';
import type { Guard } from './gated-statement';
import { type Refusal, WriteSet } from './write-set';
import { UnitOfWorkMisuse } from '../../../../core/ports/transaction-boundary';
import type { Writes } from './writes';

/** Where a unit starts: the traveller and its version, read now or known from before; none for a new account. */
export interface Start extends KnownTraveller {
  /** Read for this run (not remembered from an earlier one): nothing can have moved it before the work's reads. */
  readonly fresh: boolean;
}

/**
 * One run of one account's exclusive work: reads go to the database at once, writes are collected
 * for the unit's one statement, and the traveller is the one the unit started from.
 */
export class AccountUnit implements Writes {
  readonly writes = new WriteSet();
  private reads = 0;
  private traveller: Traveller | null;
  private travellerSaved = false;

  constructor(
    readonly accountId: string,
    readonly start: Start | null,
  ) {
    this.traveller = start?.traveller ?? null;
  }

  /** The traveller as the unit leaves it, to remember once its statement applied. */
  get travellerNow(): Traveller | null {
    return this.traveller;
  }

  /** Nothing to write: the unit's answer rests on what it read. */
  get wroteNothing(): boolean {
    return this.writes.isEmpty && !this.travellerSaved;
  }

  /** Read nothing but the traveller, just now: the answer rests on one state without a check. */
  get restsOnFreshStart(): boolean {
    return this.start?.fresh === true && this.reads === 0;
  }

  /** The gate of the unit's statement: its traveller still at the version it started from. */
  get guard(): Guard | undefined {
    if (!this.start) return undefined;
    return {
      accountId: this.accountId,
      version: this.start.version,
      set: this.travellerSaved && this.traveller ? travellerRow(this.traveller) : null,
    };
  }

  insert<T extends Table>(
    table: T,
    key: ReadonlyArray<keyof Row<T> & string>,
    row: Row<T>,
    refusal?: Refusal,
  ): Promise<void> {
    this.writes.insert(table, key, row, refusal);
    return Promise.resolve();
  }

  update<T extends Table>(table: T, where: Partial<Row<T>>, set: Partial<Row<T>>): Promise<void> {
    this.writes.update(table, where, set);
    return Promise.resolve();
  }

  delete<T extends Table>(table: T, where: Partial<Row<T>>): Promise<void> {
    this.writes.delete(table, where);
    return Promise.resolve();
  }

  beforeRead(): void {
    if (!this.wroteNothing) throw new UnitOfWorkMisuse('a read after a write, which would not see it');
    this.reads += 1;
  }

  /** The unit's view of the travellers: its own, as it started and as it saves it. */
  travellers(): TravellerRepository {
    return {
      getForAccount: (accountId) => {
        if (accountId !== this.accountId) return Promise.reject(new UnitOfWorkMisuse("another account's traveller"));
        if (!this.traveller) return Promise.reject(new Error(`account ${accountId} has no traveller`));
        return Promise.resolve(this.traveller);
      },
      save: (traveller) => {
        if (traveller.accountId !== this.accountId || !this.start)
          return Promise.reject(new UnitOfWorkMisuse('saving a traveller the unit did not start from'));
        this.traveller = traveller;
        this.travellerSaved = true;
        return Promise.resolve();
      },
      add: (traveller) => {
        if (traveller.accountId !== this.accountId || this.start)
          return Promise.reject(new UnitOfWorkMisuse('adding a traveller to an account that has one'));
        this.traveller = traveller;
        return this.insert('travellers', ['account_id'], { ...travellerRow(traveller), version: '0' });
      },
    };
  }
}
