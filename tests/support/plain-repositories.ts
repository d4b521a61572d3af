// The PostgreSQL repositories outside any unit of work, each write a statement of its own, sent at
// once: what tests set up their rows with, and what the repositories' contracts run on. The service
// writes only in units of work (TransactionBoundary.exclusive), and reads through reads alone.
import { sql } from 'kysely';
import type { Traveller } from '../../src/core/domain/traveller';
import type { Repositories, TravellerRepository } from '../../src/core/ports/repositories';
import {
  kysely,
  type Row,
  type Slots,
  statement,
  type Table,
} from '../../src/infrastructure/persistence/postgres/kysely';
import { type Database, repositoriesWriting } from '../../src/infrastructure/persistence/postgres/repositories';
import {
  PostgresTravellerReads,
  travellerRow,
} from '../../src/infrastructure/persistence/postgres/repositories/traveller-repository';
import type { SqlRunner } from '../../src/infrastructure/database/driver/sql-runner';
import type { TravellerRow } from '../../src/infrastructure/persistence/postgres/unit-of-work/gated-statement';
import { type Refusal, WriteSet } from '../../src/infrastructure/persistence/postgres/unit-of-work/write-set';
import type { Writes } from '../../src/infrastructure/persistence/postgres/unit-of-work/writes';

/** The repositories with each read and each write a statement of its own. */
export function plainRepositories(db: Database): Repositories {
  const writes = new ImmediateWrites(db.sql);
  return repositoriesWriting(db, writes, new PlainTravellers(db.sql, writes));
}

/** The traveller's row set outside a unit of work: its version moves on, so no unit that read the old state applies. */
export const SAVE_TRAVELLER = statement((p: Slots<TravellerRow>) =>
  kysely
    .updateTable('travellers')
    .set({
      clock_reading: p.clock_reading,
      clock_read_at: p.clock_read_at,
      clock_paused: p.clock_paused,
      timeline_id: p.timeline_id,
      location: p.location,
      journey_travel_id: p.journey_travel_id,
      version: sql<string>`version + 1`,
    })
    .where('account_id', '=', p.account_id),
);

class PlainTravellers extends PostgresTravellerReads implements TravellerRepository {
  constructor(
    private readonly statements: SqlRunner,
    private readonly writes: Writes,
  ) {
    super(statements);
  }

  add(traveller: Traveller): Promise<void> {
    return this.writes.insert('travellers', ['account_id'], { ...travellerRow(traveller), version: '0' });
  }

  async save(traveller: Traveller): Promise<void> {
    await SAVE_TRAVELLER.run(this.statements, travellerRow(traveller));
  }
}

/** Each write a statement of its own, unguarded; a save of a row that is not there is refused. */
class ImmediateWrites implements Writes {
  constructor(private readonly sql: SqlRunner) {}

  insert<T extends Table>(
    table: T,
    key: ReadonlyArray<keyof Row<T> & string>,
    row: Row<T>,
    refusal?: Refusal,
  ): Promise<void> {
    return this.apply((writes) => writes.insert(table, key, row, refusal));
  }

  update<T extends Table>(table: T, where: Partial<Row<T>>, set: Partial<Row<T>>): Promise<void> {
    return this.apply((writes) => writes.update(table, where, set));
  }

  delete<T extends Table>(table: T, where: Partial<Row<T>>): Promise<void> {
    return this.apply((writes) => writes.delete(table, where));
  }

  beforeRead(): void {}

  private async apply(write: (writes: WriteSet) => void): Promise<void> {
    const writes = new WriteSet();
    write(writes);
    let applied;
    try {
      applied = await writes.apply(this.sql);
    } catch (error) {
      throw writes.refusalOf(error) ?? error;
    }
    if (applied.missing) throw new Error(`no row to update: ${writes.updatedRows}`);
  }
}
