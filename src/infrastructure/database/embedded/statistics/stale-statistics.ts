// When a table's statistics are stale: PostgreSQL's own autovacuum rule, for the embedded database,
// whose PostgreSQL never analyses by itself (docs/decisions.md, "Statistics for the planner").

/** A table as pg_stat_user_tables and pg_class count it. */
export interface TableStatistics {
  readonly table: string;
  /** Rows at its last analysis (pg_class.reltuples): -1 until it was first analysed or vacuumed. */
  readonly rowsAtAnalysis: number;
  /** Rows inserted, updated or deleted since (n_mod_since_analyze). */
  readonly changedSinceAnalysis: number;
}

/**
 * A table is analysed again once the rows changed since its last analysis pass a tenth of the rows
 * it had then, plus 50: autovacuum's rule with PostgreSQL's defaults (autovacuum_analyze_scale_factor
 * and autovacuum_analyze_threshold), so the embedded database's plans rest on what a server's would.
 */
export const GROWTH_FRACTION = 0.1;
export const MIN_CHANGED_ROWS = 50;

export function isStale(statistics: TableStatistics): boolean {
  const rows = Math.max(statistics.rowsAtAnalysis, 0);
  return statistics.changedSinceAnalysis > MIN_CHANGED_ROWS + GROWTH_FRACTION * rows;
}

/** The stale tables, the most changed for their size first, at most `limit` of them. */
export function staleTables(tables: readonly TableStatistics[], limit: number): TableStatistics[] {
  const growth = (statistics: TableStatistics) =>
    statistics.changedSinceAnalysis / Math.max(statistics.rowsAtAnalysis, MIN_CHANGED_ROWS);
  return tables
    .filter(isStale)
    .sort((a, b) => growth(b) - growth(a))
    .slice(0, limit);
}
