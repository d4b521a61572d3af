// A keyed request (Idempotency-Key): its unit of work's statement waits for the request's answer and
// carries it, so the writes and the kept answer commit together or not at all. On a real PostgreSQL
// (or PGlite without DATABASE_URL).
import type { StoredResponse } from '../../../src/core/ports/idempotency-store';
import { IdempotencyClaimLost, type KeyClaim } from '../../../src/core/ports/idempotency-store';
import type { Repositories } from '../../../src/core/ports/repositories';
import { PostgresIdempotencyStore } from '../../../src/infrastructure/persistence/postgres/idempotency-store';
import { plainRepositories } from '../../../src/infrastructure/persistence/postgres/repositories';
import { PostgresTransactionBoundary } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import type { SqlRunner } from '../../../src/infrastructure/persistence/postgres/sql-runner';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { UnitOfWorkMisuse } from '../../../src/infrastructure/persistence/postgres/unit-of-work/writes';
import { aTimeline } from '../../support/builders/timeline-builder';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { givenAccounts } from '../../support/contracts/subject';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

const NOW = new Date('2030-01-01T12:00:00Z');

describe('a keyed request', () => {
  let database: TestDatabase;
  let repos: Repositories;
  let boundary: PostgresTransactionBoundary;
  let store: PostgresIdempotencyStore;
  let statements: number;

  /** The boundary of another service process, writing the same account. */
  const elsewhere = () => new PostgresTransactionBoundary(database, new KeyedRequests(database.sql));

  beforeAll(async () => {
    database = await provisionTestDatabase();
    repos = plainRepositories(database);
  });
  afterAll(() => database.close());

  beforeEach(async () => {
    await database.prisma.$executeRawUnsafe('TRUNCATE accounts, idempotency_keys CASCADE');
    await givenAccounts(repos, 'acc_1');
    await repos.travellers.add(aPausedTraveller('acc_1', '1969-07-20T20:17:40Z', NOW));
    statements = 0;
    const sql: SqlRunner = {
      query: (text, values, options) => {
        statements += 1;
        return database.sql.query(text, values, options);
      },
    };
    const keyed = new KeyedRequests(sql);
    boundary = new PostgresTransactionBoundary({ prisma: database.prisma, sql }, keyed);
    store = new PostgresIdempotencyStore(database.prisma, sql, keyed, { now: () => NOW });
  });

  const answer = (body: unknown): StoredResponse => ({
    status: 201,
    body,
    headers: { 'content-type': 'application/json' },
  });
  const addTimeline = (id: string, on = boundary) =>
    on.exclusive('acc_1', (inside) => inside.timelines.add(aTimeline().withId(id).build()));
  const timelines = async () =>
    (await repos.timelines.listForAccount('acc_1', { limit: 100, after: null })).map((timeline) => timeline.id).sort();
  const kept = (key: string) =>
    database.prisma.idempotencyKey.findUniqueOrThrow({ where: { accountId_key: { accountId: 'acc_1', key } } });
  const reserve = async (key: string): Promise<KeyClaim> => {
    const reservation = await store.reserve('acc_1', key, 'digest');
    if (reservation.outcome !== 'reserved') throw new Error(`the key ${key} was not reserved: ${reservation.outcome}`);
    return reservation.claim;
  };

  it('commits its writes with the kept answer in one statement', async () => {
    const claim = await reserve('k1');
    const before = statements;
    const response = await store.answerOnce(claim, async () => {
      await addTimeline('tml_a');
      return answer({ id: 'tml_a' });
    });

    expect(response).toEqual(answer({ id: 'tml_a' }));
    expect(await timelines()).toEqual(['tml_a']);
    expect(await kept('k1')).toMatchObject({ responseStatus: 201, responseBody: { id: 'tml_a' } });
    // The traveller's read, then the writes with the answer.
    expect(statements - before).toBe(2);
  });

  it('keeps the answer of a request that wrote nothing in one statement', async () => {
    const claim = await reserve('k2');
    const before = statements;
    await store.answerOnce(claim, async () => ({
      status: 400,
      body: { code: 'validation_failed' },
      headers: {},
    }));

    expect(await kept('k2')).toMatchObject({ responseStatus: 400, responseBody: { code: 'validation_failed' } });
    expect(statements - before).toBe(1);
  });

  it('is produced again when another process wrote first: writes once, the second answer kept', async () => {
    const claim = await reserve('k3');
    let runs = 0;
    const response = await store.answerOnce(claim, async () => {
      runs += 1;
      await addTimeline(`tml_run${runs}`);
      // Another process writes for the account between this unit and the keeping of its answer.
      if (runs === 1) await addTimeline('tml_other', elsewhere());
      return answer({ run: runs });
    });

    expect(response).toEqual(answer({ run: 2 }));
    expect(await timelines()).toEqual(['tml_other', 'tml_run2']);
    expect(await kept('k3')).toMatchObject({ responseBody: { run: 2 } });
  });

  it('refuses a second unit of work or a read after its waiting writes, and writes nothing', async () => {
    const claim = await reserve('k4');
    await expect(
      store.answerOnce(claim, async () => {
        await addTimeline('tml_4a');
        await addTimeline('tml_4b');
        return answer({});
      }),
    ).rejects.toBeInstanceOf(UnitOfWorkMisuse);
    await expect(
      store.answerOnce(claim, async () => {
        await addTimeline('tml_4c');
        await boundary.read((inside) => inside.timelines.findForAccount('acc_1', 'tml_4c'));
        return answer({});
      }),
    ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

    expect(await timelines()).toEqual([]);
    // The account's queue was let go: the next unit runs.
    await addTimeline('tml_after');
    expect(await timelines()).toEqual(['tml_after']);
  });

  it('keeps a refused unit out of it: a later unit writes with the answer', async () => {
    const claim = await reserve('k5');
    const response = await store.answerOnce(claim, async () => {
      await boundary.exclusive('acc_1', () => Promise.reject(new Error('refused'))).catch(() => undefined);
      await addTimeline('tml_5');
      return answer({ refused: true });
    });

    expect(response).toEqual(answer({ refused: true }));
    expect(await timelines()).toEqual(['tml_5']);
  });

  it('writes nothing when the claim was lost before its answer was kept', async () => {
    const claim = await reserve('k6');
    await expect(
      store.answerOnce(claim, async () => {
        await addTimeline('tml_lost');
        // Swept, or taken over and answered by another request, while this one acted.
        await database.prisma.idempotencyKey.update({
          where: { accountId_key: { accountId: 'acc_1', key: 'k6' } },
          data: { responseStatus: 200 },
        });
        return answer({ id: 'tml_lost' });
      }),
    ).rejects.toBeInstanceOf(IdempotencyClaimLost);

    expect(await timelines()).toEqual([]);
    expect(await kept('k6')).toMatchObject({ responseStatus: 200, responseBody: null });
  });

  it('writes nothing, and releases nothing, when the claim was taken over meanwhile', async () => {
    const claim = await reserve('k7');
    // A retry that found the claim abandoned claims the key anew, while this request still acts.
    const takeOver = () =>
      database.prisma.idempotencyKey.update({
        where: { accountId_key: { accountId: 'acc_1', key: 'k7' } },
        data: { createdAt: new Date(NOW.getTime() + 1) },
      });
    await expect(
      store.answerOnce(claim, async () => {
        await addTimeline('tml_taken');
        await takeOver();
        return answer({ id: 'tml_taken' });
      }),
    ).rejects.toBeInstanceOf(IdempotencyClaimLost);
    await store.release(claim);

    expect(await timelines()).toEqual([]);
    expect(await kept('k7')).toMatchObject({ responseStatus: null, createdAt: new Date(NOW.getTime() + 1) });
  });
});
