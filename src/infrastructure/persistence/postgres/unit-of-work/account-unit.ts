import type { Traveller } from '../../../../core/domain/traveller';
import type { TravellerRepository } from '../../../../core/ports/repositories';
import type { Table } from '../kysely';
import { travellerRow } from '../repositories/traveller-repository';
import type { KnownTraveller } from './known-travellers';
import type { Row } from '../kysely';
import type { Guard } from './gated-statement';
import { type Refusal, WriteSet } from './write-set';
import { ExclusiveWorkRules } from '../../../../core/ports/exclusive-work-rules';
import type { Writes } from './writes';

/** Where a unit starts: the traveller and its version, read now or known from before; none for a new account. */
export interface Start extends KnownTraveller {
  /** Read for this run (not remembered from an earlier one): nothing can have moved it before the work's reads. */
  readonly fresh: boolean;
}

/**
 * One run of one account's exclusive work: reads go to the database at once, writes are collected
 * for the unit's one statement, and the traveller is the one the unit started from. The rules every
 * boundary keeps (a read after a write, the traveller's) are ExclusiveWorkRules'.
 */
export class AccountUnit implements Writes {
  readonly writes = new WriteSet();
  readonly rules: ExclusiveWorkRules;

  constructor(
    readonly accountId: string,
    readonly start: Start | null,
  ) {
    this.rules = new ExclusiveWorkRules(accountId, start?.traveller ?? null);
  }

  /** The traveller as the unit leaves it, to remember once its statement applied. */
  get travellerNow(): Traveller | null {
    return this.rules.travellerNow;
  }

  /** Nothing to write: the unit's answer rests on what it read. */
  get wroteNothing(): boolean {
    return this.writes.isEmpty && !this.rules.saved;
  }

  /** Read nothing but the traveller, just now: the answer rests on one state without a check. */
  get restsOnFreshStart(): boolean {
    return this.start?.fresh === true && !this.rules.readAnything;
  }

  /** The gate of the unit's statement: its traveller still at the version it started from. */
  get guard(): Guard | undefined {
    if (!this.start) return undefined;
    const saved = this.rules.saved;
    return { accountId: this.accountId, version: this.start.version, set: saved ? travellerRow(saved) : null };
  }

  insert<T extends Table>(
    table: T,
    key: ReadonlyArray<keyof Row<T> & string>,
    row: Row<T>,
    refusal?: Refusal,
  ): Promise<void> {
    this.rules.beforeWrite();
    this.writes.insert(table, key, row, refusal);
    return Promise.resolve();
  }

  update<T extends Table>(table: T, where: Partial<Row<T>>, set: Partial<Row<T>>): Promise<void> {
    this.rules.beforeWrite();
    this.writes.update(table, where, set);
    return Promise.resolve();
  }

  delete<T extends Table>(table: T, where: Partial<Row<T>>): Promise<void> {
    this.rules.beforeWrite();
    this.writes.delete(table, where);
    return Promise.resolve();
  }

  beforeRead(): void {
    this.rules.beforeRead();
  }

  /** The unit's view of the travellers: its own, as it started and as it saves it. */
  travellers(): TravellerRepository {
    return this.rules.travellers((traveller) =>
      this.insert('travellers', ['account_id'], { ...travellerRow(traveller), version: '0' }),
    );
  }
}
