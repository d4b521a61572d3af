// PostgresIdempotencyStore.reserve on a key whose claim is unanswered: a live request's or a dead
// process's, which look the same. On a real PostgreSQL (or PGlite without DATABASE_URL).
import { PostgresIdempotencyStore } from '../../../src/infrastructure/persistence/postgres/idempotency-store';
import { plainRepositories } from '../../../src/infrastructure/persistence/postgres/repositories';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { FrozenWallClock } from '../../support/in-memory/frozen-wall-clock';
import { givenAccounts } from '../../support/contracts/subject';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

const CLAIMED_AT = new Date('2030-01-01T12:00:00.250Z');

describe('PostgresIdempotencyStore: an unanswered claim', () => {
  let database: TestDatabase;
  let clock: FrozenWallClock;
  let store: PostgresIdempotencyStore;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    await givenAccounts(plainRepositories(database), 'acc_1');
    clock = new FrozenWallClock(CLAIMED_AT);
    store = new PostgresIdempotencyStore(database.prisma, database.sql, new KeyedRequests(database.sql), clock);
    expect(await store.reserve('acc_1', 'k1', 'digest')).toEqual({
      outcome: 'reserved',
      claim: { accountId: 'acc_1', key: 'k1', claimedAt: CLAIMED_AT },
    });
  });
  afterAll(() => database.close());

  const reserveAfter = (ms: number) => {
    clock.set(new Date(CLAIMED_AT.getTime() + ms));
    return store.reserve('acc_1', 'k1', 'digest');
  };

  it('is in progress: a second while its request may run, then the time left until it is abandoned', async () => {
    expect(await reserveAfter(0)).toEqual({ outcome: 'in_progress', retryAfterMs: 1_000 });
    expect(await reserveAfter(29_999)).toEqual({ outcome: 'in_progress', retryAfterMs: 1_000 });
    expect(await reserveAfter(30_000)).toEqual({ outcome: 'in_progress', retryAfterMs: 270_000 });
    expect(await reserveAfter(2 * 60_000 + 500)).toEqual({ outcome: 'in_progress', retryAfterMs: 179_500 });
    expect(await reserveAfter(5 * 60_000 - 1)).toEqual({ outcome: 'in_progress', retryAfterMs: 1 });
  });

  it('is taken over by a retry once that time has passed, which the claim it replaced cannot release', async () => {
    const takenOverAt = new Date(CLAIMED_AT.getTime() + 5 * 60_000);
    expect(await reserveAfter(5 * 60_000)).toEqual({
      outcome: 'reserved',
      claim: { accountId: 'acc_1', key: 'k1', claimedAt: takenOverAt },
    });
    await store.release({ accountId: 'acc_1', key: 'k1', claimedAt: CLAIMED_AT });

    const claim = await database.prisma.idempotencyKey.findUniqueOrThrow({
      where: { accountId_key: { accountId: 'acc_1', key: 'k1' } },
    });
    expect(claim.createdAt).toEqual(takenOverAt);
  });
});
