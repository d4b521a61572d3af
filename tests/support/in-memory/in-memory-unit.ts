import { ExclusiveWorkRules } from '../../../src/core/ports/exclusive-work-rules';
import type { Repositories } from '../../../src/core/ports/repositories';
import type { InMemoryDatabase } from './in-memory-database';
import { readsAsking } from './reads-asking';
import { Journal } from './table';

/**
 * One run of one account's exclusive work in the fakes, as PostgreSQL's AccountUnit: it starts from
 * the account's traveller and version, its writes are staged and applied together at its end if
 * that version still holds, and it keeps the rules every boundary keeps (ExclusiveWorkRules).
 */
export class InMemoryUnit {
  readonly rules: ExclusiveWorkRules;
  private readonly journal: Journal;
  /** The account's version as the unit starts; null: it has no traveller, and the unit opens it. */
  private readonly version: number | null;

  constructor(
    private readonly database: InMemoryDatabase,
    readonly accountId: string,
  ) {
    this.version = database.versionOf(accountId);
    this.rules = new ExclusiveWorkRules(accountId, database.traveller(accountId) ?? null);
    this.journal = new Journal(() => this.rules.beforeWrite());
  }

  /** The repositories the work is given: reads that ask the rules first, writes staged, its own traveller. */
  repositories(): Repositories {
    const repositories = this.database.repositories(this.journal);
    const stored = repositories.travellers;
    const travellers = this.rules.travellers((traveller) => stored.add(traveller));
    return readsAsking({ ...repositories, travellers }, () => this.rules.beforeRead());
  }

  /** Nothing to write: the unit's answer rests on what it read. */
  get wroteNothing(): boolean {
    return !this.journal.wrote && !this.rules.saved;
  }

  /** The account is still at the version the unit started from: everything it read agrees. */
  get stillAtStart(): boolean {
    return this.database.versionOf(this.accountId) === this.version;
  }

  /** Applies the unit's writes, whole, unless another writer of the account came first. */
  apply(): 'applied' | 'conflict' {
    return this.database.applyUnit({
      accountId: this.accountId,
      version: this.version,
      journal: this.journal,
      saved: this.rules.saved,
      missing: (what) => this.rules.savedNothing(what),
    });
  }
}
