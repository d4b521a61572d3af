import { PostgresRateCounterStore } from '../../../src/infrastructure/persistence/postgres/rate-counter-store';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

describe('PostgresRateCounterStore', () => {
  let database: TestDatabase;
  let store: PostgresRateCounterStore;
  const second = new Date('2026-11-22T04:00:00.000Z');

  beforeAll(async () => {
    database = await provisionTestDatabase();
    store = new PostgresRateCounterStore(database.prisma, database.sql);
  });
  afterAll(() => database.close());

  it('counts each hit once per key and window, concurrent hits included', async () => {
    const counts = await Promise.all(Array.from({ length: 20 }, () => store.hit('api-key:one', second, 1)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
    expect(await store.hit('api-key:two', second, 1)).toBe(1);
    expect(await store.hit('api-key:one', new Date(second.getTime() + 1000), 1)).toBe(1);
    // A block of requests counts as that many.
    expect(await store.hit('api-key:one', new Date(second.getTime() + 1000), 6)).toBe(7);
  });

  it('forgets windows that ended', async () => {
    await store.deleteWindowsBefore(new Date(second.getTime() + 1000));
    expect(await store.hit('api-key:one', second, 1)).toBe(1);
  });

  it('keeps the counters in an unlogged table: written on every request, not worth a WAL flush', async () => {
    const [table] = await database.prisma.$queryRaw<{ relpersistence: string }[]>`
      SELECT relpersistence::text AS relpersistence FROM pg_class WHERE relname = 'rate_limit_counters'`;
    expect(table?.relpersistence).toBe('u');
  });
});
