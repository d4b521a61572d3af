// The writes of one unit of work, collected in order and folded so that each row is written once:
// they are applied as ONE statement behind the unit's gates (gated-statement.ts), compiled once per
// shape (compiled-statements.ts).
import type { Row, Table } from '../kysely';
import type { RunOptions, SqlRunner } from '../../../database/driver/sql-runner';
import { activeTraceparent } from '../../../telemetry/trace-context';
import { compiledStatement } from './compiled-statements';
import type { Gates, Write } from './gated-statement';

/** Turns PostgreSQL's refusal of the statement into the domain's answer (a taken email), if it is one. */
export type Refusal = (error: unknown) => Error | null;

type Values = Readonly<Record<string, unknown>>;

/** What the statement found: the traveller's new version (null: another writer came first). */
export interface Applied {
  readonly version: string | null;
  /** The key is still kept for a request (this one's retry or another's): nothing was written. */
  readonly keyTaken: boolean;
  /** A row to update was not there: nothing was written. */
  readonly missing: boolean;
}

/**
 * Statements of up to this many writes are prepared on each connection (an anchor: 2). Longer ones
 * vary with their input (a travel's items) and are sent unprepared, so they do not stay prepared.
 */
const PREPARED_WRITES = 4;

/**
 * Collects inserts, updates and deletes in order. A row written twice is written once with its last
 * state (an insert stays an insert; a delete replaces what came before): CTEs of one statement share
 * one snapshot, so a second write of the same row would not see the first.
 */
export class WriteSet {
  private readonly writes: Write[] = [];
  private readonly byRow = new Map<string, number>();
  private readonly refusals: Refusal[] = [];

  get isEmpty(): boolean {
    return this.writes.length === 0;
  }

  insert<T extends Table>(table: T, key: ReadonlyArray<keyof Row<T> & string>, row: Row<T>, refusal?: Refusal): void {
    const values: Values = row;
    const where = Object.fromEntries(key.map((column) => [column, values[column]]));
    this.push({ kind: 'insert', table, where, set: values });
    if (refusal) this.refusals.push(refusal);
  }

  update<T extends Table>(table: T, where: Partial<Row<T>>, set: Partial<Row<T>>): void {
    const identity = rowIdentity(table, where);
    const earlier = this.byRow.get(identity);
    const first = earlier === undefined ? undefined : this.writes[earlier];
    if (earlier === undefined || !first || first.kind === 'delete')
      return this.push({ kind: 'update', table, where, set });
    this.writes[earlier] = { ...first, set: { ...first.set, ...set } };
  }

  delete<T extends Table>(table: T, where: Partial<Row<T>>): void {
    this.push({ kind: 'delete', table, where, set: {} });
  }

  /** The rows the writes update, named for a report: "items itm_1, timelines tml_2". */
  get updatedRows(): string {
    return this.writes
      .filter((write) => write.kind === 'update')
      .map((write) => `${write.table} ${Object.values(write.where).join('/')}`)
      .join(', ');
  }

  /** The domain's answer for PostgreSQL's refusal of the statement, if one of the writes knows it. */
  refusalOf(error: unknown): Error | null {
    for (const refusal of this.refusals) {
      const answer = refusal(error);
      if (answer) return answer;
    }
    return null;
  }

  /** Applies the writes in one statement behind the gates given (none: they apply unconditionally). */
  async apply(sql: SqlRunner, gates: Gates = {}): Promise<Applied> {
    const { text, values } = compiledStatement(this.writes, gates, activeTraceparent());
    const options: RunOptions = { prepare: this.writes.length <= PREPARED_WRITES };
    const [found] = await sql.query<{ version?: string | null; taken?: boolean; missing?: boolean }>(
      text,
      values,
      options,
    );
    return {
      version: gates.guard ? (found?.version ?? null) : null,
      keyTaken: found?.taken === true,
      missing: found?.missing === true,
    };
  }

  private push(write: Write): void {
    const identity = rowIdentity(write.table, write.where);
    const earlier = this.byRow.get(identity);
    if (write.kind === 'delete' && earlier !== undefined) {
      const first = this.writes[earlier];
      // A row inserted and deleted in one unit was never there: neither is written.
      if (first?.kind === 'insert') {
        this.writes.splice(earlier, 1);
        this.reindex();
        return;
      }
      if (first) this.writes.splice(earlier, 1);
      this.reindex();
    }
    this.writes.push(write);
    this.byRow.set(identity, this.writes.length - 1);
  }

  private reindex(): void {
    this.byRow.clear();
    this.writes.forEach((write, index) => this.byRow.set(rowIdentity(write.table, write.where), index));
  }
}

function rowIdentity(table: string, where: Values): string {
  return [table, ...Object.values(where).map(String)].join('\u0000');
}
