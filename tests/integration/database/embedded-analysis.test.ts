// The embedded database's tables analysed again as they grow (PGlite never does it itself: docs/
// decisions.md, "Statistics for the planner"), on a real PGlite, whatever DATABASE_URL says.
import { startInMemoryPostgres } from '../../../src/infrastructure/database/embedded/embedded-postgres';
import { migrateDatabase } from '../../../src/infrastructure/database/migrations/migrate-database';
import { createDatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { EmbeddedAnalysis } from '../../../src/infrastructure/database/embedded/statistics/embedded-analysis';
import { startInMemoryTracing } from '../../support/telemetry/in-memory-tracing';

// Starting PGlite (WebAssembly PostgreSQL) takes seconds on a busy machine.
jest.setTimeout(60_000);

it('analyses a table grown by a tenth, not before, with its line, count and span', async () => {
  const server = await startInMemoryPostgres();
  const tracing = startInMemoryTracing();
  const clients = createDatabaseClients(server.connectionString, {
    maxConnections: 1,
    telemetry: { tracer: tracing.tracer },
  });
  const lines: Array<{ fields: object; message: string }> = [];
  const log = { info: (fields: object, message: string) => lines.push({ fields, message }), warn: unexpected };
  const analysis = new EmbeddedAnalysis(clients.sql, { log, tracer: tracing.tracer });
  const statisticsOf = async () =>
    (
      await clients.sql.query<{ rows: number; analysed: boolean; autoanalysed: boolean }>(
        `SELECT c.reltuples AS rows, s.last_analyze IS NOT NULL AS analysed,
           s.last_autoanalyze IS NOT NULL AS autoanalysed
         FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = 'timelines'`,
        [],
      )
    )[0];
  const addTimelines = (from: number, count: number) =>
    clients.sql.query(
      `INSERT INTO timelines (account_id, id, name, created_at, status, window_minutes)
       SELECT 'acc_1', 'tl_' || n, 'Timeline ' || n, now(), 'open', 60 FROM generate_series($1::int, $2::int) AS n`,
      [from, from + count - 1],
    );
  try {
    await migrateDatabase(server.connectionString);
    await clients.sql.query(
      `INSERT INTO accounts (id, email, password_hash, created_at) VALUES ('acc_1', 'a@example.com', 'x', now())`,
      [],
    );
    // The migrations analysed it, empty.
    expect(await statisticsOf()).toEqual({ rows: 0, analysed: true, autoanalysed: false });
    // What the migrations grew without analysing it (their own bookkeeping, a row or two each),
    // analysed by a first round as a starting service's is, so that the rounds below see timelines alone.
    const settled = await new EmbeddedAnalysis(clients.sql, {
      log: { info: () => undefined, warn: unexpected },
    }).round();
    expect(settled).not.toContain('timelines');

    await addTimelines(1, 1_000);
    expect(await analysis.round()).toEqual(['timelines']);
    expect(await statisticsOf()).toEqual({ rows: 1_000, analysed: true, autoanalysed: false });
    // A tenth and 50 rows more is not yet more than a tenth and 50: nothing to do.
    await addTimelines(1_001, 150);
    expect(await analysis.round()).toEqual([]);
    await addTimelines(1_151, 1);
    expect(await analysis.round()).toEqual(['timelines']);
    expect((await statisticsOf())?.rows).toBe(1_151);

    expect(Object.fromEntries(analysis.analysed)).toEqual({ timelines: 2 });
    expect(lines.map(({ fields, message }) => [message, fields])).toEqual([
      [
        'embedded database: statistics refreshed',
        { table: 'timelines', rows_changed: 1_000, rows_at_last_analysis: 0, duration_ms: expect.any(Number) },
      ],
      [
        'embedded database: statistics refreshed',
        { table: 'timelines', rows_changed: 151, rows_at_last_analysis: 1_000, duration_ms: expect.any(Number) },
      ],
    ]);
    const [span] = tracing.named('refresh statistics');
    expect(span?.attributes).toMatchObject({ 'db.collection.name': 'timelines', rows_changed: 1_000 });
    const statement = tracing.spans().find((each) => each.attributes['db.query.text'] === 'ANALYZE "timelines"');
    expect(statement?.parentSpanContext?.spanId).toBe(span?.spanContext().spanId);
    // Each round's look at the counts makes no trace of its own.
    const looks = tracing
      .spans()
      .filter((each) => /force_next_flush|n_mod_since_analyze/.test(String(each.attributes['db.query.text'])));
    expect(looks).toEqual([]);
  } finally {
    await clients.prisma.$disconnect();
    await tracing.close();
    await server.stop();
  }
});

function unexpected(fields: object, message: string): void {
  throw new Error(`unexpected warning: ${message} ${JSON.stringify(fields)}`);
}
