import { UnitOfWorkMisuse } from '../../../../core/ports/transaction-boundary';
import type { Row, Table } from '../kysely';
import type { Refusal } from './write-set';

/**
 * What a repository writes through: inside a unit of work, the writes are collected for the unit's
 * one statement (AccountUnit); the service writes nowhere else (NO_WRITES). Tests set up their
 * rows through writes of their own (tests/support/plain-repositories.ts).
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

/**
 * No writes at all: the repositories of a read are made over it, and then given their reads alone
 * (onlyReads), so nothing reaches it; were anything to, it is refused.
 */
export const NO_WRITES: Writes = {
  insert: refuseWrite,
  update: refuseWrite,
  delete: refuseWrite,
  beforeRead: () => undefined,
};

function refuseWrite(): Promise<void> {
  return Promise.reject(new UnitOfWorkMisuse('a write outside an exclusive unit of work'));
}
