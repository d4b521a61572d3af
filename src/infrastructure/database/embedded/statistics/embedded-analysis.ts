// The embedded database's statistics kept fresh, as autovacuum keeps a server's: PGlite runs
// PostgreSQL in single-user mode, where autovacuum never runs (docs/decisions.md, "Statistics for
// the planner"). Off the request path, on a timer; bounded: a few tables a round, each ANALYZE
// reading a sample of at most 300 × default_statistics_target rows whatever the table's size.
import { context, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_SYSTEM_NAME,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import type { SqlRunner } from '../../driver/sql-runner';
import { staleTables, type TableStatistics } from './stale-statistics';
import { tableStatisticsOf, type TableStatisticsReader } from './table-statistics-reader';

/** As autovacuum_naptime's default: how often the tables are looked at. */
export const ANALYSIS_ROUND_MS = 60_000;
/** Tables analysed in one round at most, the most changed first; the others wait for the next. */
export const TABLES_PER_ROUND = 3;

export interface AnalysisLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface EmbeddedAnalysisOptions {
  readonly log: AnalysisLog;
  /** Each table's analysis is a span when tracing is on (its ANALYZE statement a child of it). */
  readonly tracer?: Tracer;
  /** Default: pg_stat_user_tables through `sql`. */
  readonly read?: TableStatisticsReader;
  readonly tablesPerRound?: number;
}

export class EmbeddedAnalysis {
  /** Tables analysed since the process started, by table, for the metrics. */
  readonly analysed = new Map<string, number>();
  private readonly read: TableStatisticsReader;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private busy = false;

  constructor(
    private readonly sql: SqlRunner,
    private readonly options: EmbeddedAnalysisOptions,
  ) {
    this.read = options.read ?? tableStatisticsOf(sql);
  }

  /** Looks at the tables every round from now on; a round still running when the next is due is not doubled. */
  started(): this {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.running = this.round();
    }, ANALYSIS_ROUND_MS);
    // Never what keeps the process alive.
    this.timer.unref();
    return this;
  }

  /** No round after this; resolves once the one under way, if any, has ended (before the database closes). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * One round: the stale tables analysed, the most changed first; answers their names. Never
   * rejects: a failure is logged, and the next round tries again.
   */
  async round(): Promise<string[]> {
    this.busy = true;
    const done: string[] = [];
    try {
      // The look at the counts is no trace of its own each minute; an analysis is (its span below).
      const counts = await context.with(suppressTracing(context.active()), this.read);
      const stale = staleTables(counts, this.options.tablesPerRound ?? TABLES_PER_ROUND);
      for (const table of stale) {
        await this.analyse(table);
        done.push(table.table);
      }
    } catch (error) {
      this.options.log.warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'embedded database: statistics not refreshed; the next round tries again',
      );
    } finally {
      this.busy = false;
    }
    return done;
  }

  private async analyse(statistics: TableStatistics): Promise<void> {
    const { table, rowsAtAnalysis, changedSinceAnalysis } = statistics;
    const fields = { table, rows_changed: changedSinceAnalysis, rows_at_last_analysis: Math.max(rowsAtAnalysis, 0) };
    const run = async () => {
      const started = performance.now();
      await this.sql.query(`ANALYZE ${quoted(table)}`, []);
      this.analysed.set(table, (this.analysed.get(table) ?? 0) + 1);
      const durationMs = Math.round(performance.now() - started);
      this.options.log.info({ ...fields, duration_ms: durationMs }, 'embedded database: statistics refreshed');
    };
    const tracer = this.options.tracer;
    if (!tracer) return run();
    return tracer.startActiveSpan(
      'refresh statistics',
      {
        attributes: {
          [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
          [ATTR_DB_COLLECTION_NAME]: table,
          rows_changed: fields.rows_changed,
          rows_at_last_analysis: fields.rows_at_last_analysis,
        },
      },
      async (span) => {
        try {
          await run();
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }
}

/** A table's name as an SQL identifier. */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
