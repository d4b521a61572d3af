// The embedded database's tables are analysed again once changed by a tenth (plus 50 rows), as
// autovacuum would on a server; a round analyses a bounded number, the most changed first.
import { EmbeddedAnalysis } from '../../../src/infrastructure/database/embedded/statistics/embedded-analysis';
import {
  isStale,
  staleTables,
  type TableStatistics,
} from '../../../src/infrastructure/database/embedded/statistics/stale-statistics';
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';

const table = (name: string, rowsAtAnalysis: number, changedSinceAnalysis: number): TableStatistics => ({
  table: name,
  rowsAtAnalysis,
  changedSinceAnalysis,
});

it('is stale once the rows changed pass a tenth of those at its last analysis, plus 50', () => {
  expect(isStale(table('events', 10_000, 1_050))).toBe(false);
  expect(isStale(table('events', 10_000, 1_051))).toBe(true);
  // Small tables need their 50 rows: no analysis at every write of an almost empty table.
  expect(isStale(table('timelines', 10, 50))).toBe(false);
  expect(isStale(table('timelines', 10, 52))).toBe(true);
  // Never analysed (reltuples -1): as an empty table.
  expect(isStale(table('items', -1, 50))).toBe(false);
  expect(isStale(table('items', -1, 51))).toBe(true);
});

it('picks at most the limit, the most changed for its size first', () => {
  const tables = [
    table('events', 100_000, 20_000),
    table('items', 1_000, 900),
    table('timelines', 1_000, 10),
    table('anchors', -1, 60),
  ];
  expect(staleTables(tables, 2).map((each) => each.table)).toEqual(['anchors', 'items']);
  expect(staleTables(tables, 10).map((each) => each.table)).toEqual(['anchors', 'items', 'events']);
});

describe('a round of the embedded analysis, its counts read through an injected reader', () => {
  function analysisOf(read: () => Promise<TableStatistics[]>) {
    const sent: string[] = [];
    const sql: SqlRunner = {
      query: async <T>(text: string): Promise<T[]> => {
        sent.push(text);
        return [];
      },
    };
    const lines: Array<{ level: string; fields: object; message: string }> = [];
    const log = {
      info: (fields: object, message: string) => lines.push({ level: 'info', fields, message }),
      warn: (fields: object, message: string) => lines.push({ level: 'warn', fields, message }),
    };
    return { analysis: new EmbeddedAnalysis(sql, { log, read, tablesPerRound: 2 }), sent, lines };
  }

  it('analyses the stale tables alone, bounded, and counts and logs each', async () => {
    const { analysis, sent, lines } = analysisOf(async () => [
      table('events', 10_000, 1_051),
      table('items', 10_000, 1_050),
      table('timelines', 100, 500),
      table('weird "name"', 0, 51),
    ]);

    expect(await analysis.round()).toEqual(['timelines', 'weird "name"']);
    expect(sent).toEqual(['ANALYZE "timelines"', 'ANALYZE "weird ""name"""']);
    expect(Object.fromEntries(analysis.analysed)).toEqual({ 'weird "name"': 1, timelines: 1 });
    expect(lines.map(({ level, fields, message }) => [level, message, fields])).toEqual([
      [
        'info',
        'embedded database: statistics refreshed',
        expect.objectContaining({ table: 'timelines', rows_changed: 500, rows_at_last_analysis: 100 }),
      ],
      [
        'info',
        'embedded database: statistics refreshed',
        expect.objectContaining({ table: 'weird "name"', rows_changed: 51, rows_at_last_analysis: 0 }),
      ],
    ]);
  });

  it('logs a failed round and tries again at the next', async () => {
    let calls = 0;
    const { analysis, lines } = analysisOf(async () => {
      calls += 1;
      if (calls === 1) throw new Error('the database did not answer');
      return [table('events', 10_000, 2_000)];
    });

    expect(await analysis.round()).toEqual([]);
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: { reason: 'the database did not answer' },
        message: 'embedded database: statistics not refreshed; the next round tries again',
      },
    ]);
    expect(await analysis.round()).toEqual(['events']);
  });
});
