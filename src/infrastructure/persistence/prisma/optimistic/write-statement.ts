// The writes of one optimistic unit of work as ONE statement: each write a data-modifying CTE that
// acts only when the guard (the account's traveller at the version the unit read) matched. One
// round trip, no BEGIN/COMMIT, and atomic: a single statement commits whole or not at all.

import { columnOf, type SqlType, type TableSpec, TRAVELLERS } from '../tables';

/** A row by field names: a domain object or a repository's row of it. */
type Row = object;

interface Write {
  readonly kind: 'insert' | 'update';
  readonly spec: TableSpec;
  readonly row: Row;
}

export interface Statement {
  readonly sql: string;
  readonly values: unknown[];
}

/**
 * Collects inserts and updates in order. A row written twice is written once with its last state
 * (an insert stays an insert): CTEs of one statement share one snapshot, so a second write of the
 * same row would not see the first.
 */
export class WriteSet {
  private readonly writes: Write[] = [];
  private readonly byRow = new Map<string, number>();

  get isEmpty(): boolean {
    return this.writes.length === 0;
  }

  get size(): number {
    return this.writes.length;
  }

  insert(spec: TableSpec, row: Row): void {
    this.writes.push({ kind: 'insert', spec, row });
    this.byRow.set(rowKey(spec, row), this.writes.length - 1);
  }

  update(spec: TableSpec, row: Row): void {
    const earlier = this.byRow.get(rowKey(spec, row));
    if (earlier === undefined) {
      this.writes.push({ kind: 'update', spec, row });
      this.byRow.set(rowKey(spec, row), this.writes.length - 1);
      return;
    }
    const first = this.writes[earlier];
    if (first) this.writes[earlier] = { ...first, row };
  }

  /**
   * The statement: the guard moves the traveller's version on (and sets `travellerState`, when the
   * unit saved the traveller) only if it is still `version`; every write acts once per guard row.
   * It answers the traveller's new version when the writes were made, no row when another writer
   * came first.
   */
  statement(accountId: string, version: string, travellerState: Row | null): Statement {
    const values: unknown[] = [];
    const param = (value: unknown, type: SqlType) => {
      values.push(value);
      return `$${values.length}::${type}`;
    };
    const setTraveller = travellerState
      ? assignments(TRAVELLERS, travellerState, param)
          .map((assignment) => `, ${assignment}`)
          .join('')
      : '';
    const guard = `UPDATE ${TRAVELLERS.table} SET version = version + 1${setTraveller}
      WHERE account_id = ${param(accountId, 'text')} AND version = ${param(version, 'bigint')} RETURNING version`;
    const ctes = this.writes.map(
      (write, index) => `w${index} AS (${write.kind === 'insert' ? insertSql(write, param) : updateSql(write, param)})`,
    );
    return {
      sql:
        `WITH guard AS (${guard})${ctes.map((cte) => `, ${cte}`).join('')} ` +
        'SELECT version::text AS version FROM guard',
      values,
    };
  }
}

type Param = (value: unknown, type: SqlType) => string;

function insertSql({ spec, row }: Write, param: Param): string {
  const fields = Object.entries(spec.types);
  const columns = fields.map(([field]) => `"${columnOf(field)}"`);
  const selected = fields.map(([field, type]) => param(valueOf(spec, row, field), type));
  return `INSERT INTO ${spec.table} (${columns.join(', ')}) SELECT ${selected.join(', ')} FROM guard`;
}

function updateSql({ spec, row }: Write, param: Param): string {
  const where = spec.key.map(
    (field) => `${spec.table}."${columnOf(field)}" = ${param(valueOf(spec, row, field), typeOf(spec, field))}`,
  );
  return `UPDATE ${spec.table} SET ${assignments(spec, row, param).join(', ')} FROM guard WHERE ${where.join(' AND ')}`;
}

function assignments(spec: TableSpec, row: Row, param: Param): string[] {
  return Object.entries(spec.types)
    .filter(([field]) => !spec.key.includes(field))
    .map(([field, type]) => `"${columnOf(field)}" = ${param(valueOf(spec, row, field), type)}`);
}

function typeOf(spec: TableSpec, field: string): SqlType {
  const type = spec.types[field];
  if (!type) throw new Error(`${spec.table} has no column for ${field}`);
  return type;
}

function valueOf(spec: TableSpec, row: Row, field: string): unknown {
  const value: unknown = (row as Readonly<Record<string, unknown>>)[field];
  if (value === undefined) throw new Error(`a write to ${spec.table} lacks ${field}`);
  return value;
}

function rowKey(spec: TableSpec, row: Row): string {
  return [spec.table, ...spec.key.map((field) => String(valueOf(spec, row, field)))].join('\u0000');
}
