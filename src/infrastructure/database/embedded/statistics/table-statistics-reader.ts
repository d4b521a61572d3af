import type { SqlRunner } from '../../driver/sql-runner';
import type { TableStatistics } from './stale-statistics';

/** Reads the tables' statistics counts: the service's schema only. */
export type TableStatisticsReader = () => Promise<TableStatistics[]>;

// A backend keeps its counts of changed rows to itself until it goes idle a second after it last
// published them, and PGlite, with no timer, publishes them only then: at the end of the next
// statement. Asking for the next publication first makes the read see every change (measured: a
// read right after 1,000 inserts saw none of them, one after this saw them all).
const PUBLISH = 'SELECT pg_stat_force_next_flush()';
const READ = `SELECT s.relname AS table, c.reltuples AS rows, s.n_mod_since_analyze AS changed
  FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.schemaname = current_schema()`;

export function tableStatisticsOf(sql: SqlRunner): TableStatisticsReader {
  return async () => {
    await sql.query(PUBLISH, []);
    // reltuples is a float4 (a number), n_mod_since_analyze a bigint (text).
    const rows = await sql.query<{ table: string; rows: number; changed: string }>(READ, []);
    return rows.map((row) => ({
      table: row.table,
      rowsAtAnalysis: Number(row.rows),
      changedSinceAnalysis: Number(row.changed),
    }));
  };
}
