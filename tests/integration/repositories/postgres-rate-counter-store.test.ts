import { PostgresRateCounterStore } from '../../../src/infrastructure/persistence/postgres/rate-counter-store';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

describe('PostgresRateCounterStore', () => {
  let database: TestDatabase;
  let store: PostgresRateCounterStore;
  const second = new Date('2026-11-22T04:00:00.000Z');
  /** The window of a second starting `offsetMs` after `second`. */
  const windowAt = (offsetMs: number) => ({
    start: new Date(second.getTime() + offsetMs),
    end: new Date(second.getTime() + offsetMs + 1000),
  });

  beforeAll(async () => {
    database = await provisionTestDatabase();
    store = new PostgresRateCounterStore(database.prisma, database.sql);
  });
  afterAll(() => database.close());

  it('counts each hit once per key and window, concurrent hits included', async () => {
    const counts = await Promise.all(Array.from({ length: 20 }, () => store.hit('api-key:one', windowAt(0), 1)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
    expect(await store.hit('api-key:two', windowAt(0), 1)).toBe(1);
    expect(await store.hit('api-key:one', windowAt(1000), 1)).toBe(1);
    // A block of requests counts as that many.
    expect(await store.hit('api-key:one', windowAt(1000), 6)).toBe(7);
  });

  it('forgets the windows that ended, whatever their length', async () => {
    const hour = { start: second, end: new Date(second.getTime() + 3_600_000) };
    await store.hit('kept-bytes:one', hour, 4096);
    await store.deleteWindowsOver(new Date(second.getTime() + 1000));
    expect(await store.hit('api-key:one', windowAt(0), 1)).toBe(1);
    expect(await store.hit('api-key:one', windowAt(1000), 1)).toBe(8);
    // The hour's window is not over: its bytes still count.
    expect(await store.hit('kept-bytes:one', hour, 1)).toBe(4097);
  });

  it('gives a row written without its end (a process of an earlier release) two minutes', async () => {
    await database.prisma.$executeRaw`
      INSERT INTO rate_limit_counters (key, window_start, count) VALUES ('old-release', now(), 1)`;
    const [row] = await database.prisma.$queryRaw<{ seconds: number }[]>`
      SELECT extract(epoch FROM window_end - window_start)::float8 AS seconds
      FROM rate_limit_counters WHERE key = 'old-release'`;
    expect(row?.seconds).toBe(120);
  });

  it('keeps the counters in an unlogged table: written on every request, not worth a WAL flush', async () => {
    const [table] = await database.prisma.$queryRaw<{ relpersistence: string }[]>`
      SELECT relpersistence::text AS relpersistence FROM pg_class WHERE relname = 'rate_limit_counters'`;
    expect(table?.relpersistence).toBe('u');
  });
});
