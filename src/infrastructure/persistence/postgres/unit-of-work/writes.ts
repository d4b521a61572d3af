import type { SqlRunner } from '../sql-runner';
import type { Row, Table } from '../kysely';
import { type Refusal, WriteSet } from './write-set';

/**
 * What a repository writes through. Outside a unit of work each write is a statement of its own,
 * sent at once (ImmediateWrites); inside one, the writes are collected for the unit's one
 * statement (AccountUnit).
 */
export interface Writes {
  insert<T extends Table>(
    table: T,
    key: ReadonlyArray<keyof Row<T> & string>,
    row: Row<T>,
    refusal?: Refusal,
  ): Promise<void>;
  update<T extends Table>(table: T, where: Partial<Row<T>>, set: Partial<Row<T>>): Promise<void>;
  delete<T extends Table>(table: T, where: Partial<Row<T>>): Promise<void>;
  /**
   * Before each read of a repository (called by the classes repositories.ts makes for units, not by
   * the repositories themselves): a unit refuses a read after its writes, which it would not see.
   */
  beforeRead(): void;
}

/** Each write a statement of its own, unguarded: for the repositories outside any unit of work. */
export class ImmediateWrites implements Writes {
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
    try {
      await writes.apply(this.sql);
    } catch (error) {
      throw writes.refusalOf(error) ?? error;
    }
  }
}
