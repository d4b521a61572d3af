import type { Counters } from '../../../core/ports/counters';
import type { ReadRepositories, Repositories } from '../../../core/ports/repositories';
import type { TransactionBoundary } from '../../../core/ports/transaction-boundary';
import { postgresCounters } from './counters';
import { type Database, readRepositories, unitRepositories } from './repositories';
import { AccountUnits, type RerunListener } from './unit-of-work/account-units';
import type { KeyedRequests } from './unit-of-work/keyed-requests';

/**
 * The three ways a unit of work reaches PostgreSQL (docs/architecture.md#units-of-work): an
 * account's exclusive write (one guarded statement: unit-of-work/account-units.ts), a plain read
 * (each statement on its own), a consistent read of one account (reads checked against the
 * account's version). A keyed request's write carries its kept answer (unit-of-work/keyed-requests.ts).
 */
export class PostgresTransactionBoundary implements TransactionBoundary {
  private readonly reads: ReadRepositories;
  private readonly counters: Counters;
  private readonly units: AccountUnits;

  constructor(
    db: Database,
    private readonly keyed: KeyedRequests,
    onRerun?: RerunListener,
  ) {
    this.reads = readRepositories(db);
    this.counters = postgresCounters(db);
    this.units = new AccountUnits(db.sql, (unit) => unitRepositories(db, unit), keyed, onRerun);
  }

  exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return this.units.run(accountId, work);
  }

  async read<T>(work: (repositories: ReadRepositories) => Promise<T>): Promise<T> {
    this.units.refuseInside('read');
    this.keyed.current()?.beforeRead();
    return work(this.reads);
  }

  async snapshot<T>(accountId: string, work: (repositories: ReadRepositories) => Promise<T>): Promise<T> {
    this.units.refuseInside('consistent read');
    this.keyed.current()?.beforeRead();
    return this.units.readConsistently(accountId, () => work(this.reads));
  }

  async count<T>(work: (counters: Counters) => Promise<T>): Promise<T> {
    this.units.refuseInside('count');
    this.keyed.current()?.beforeRead();
    return work(this.counters);
  }
}
