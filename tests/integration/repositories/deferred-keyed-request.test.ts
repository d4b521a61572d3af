// A keyed request (Idempotency-Key) run as a deferred request: its one unit of work's writes commit
// with its kept answer in one transaction on the pool, or the request runs again in its Prisma
// request transaction. On a real PostgreSQL (or PGlite without DATABASE_URL).
import type { StoredResponse } from '../../../src/core/ports/idempotency-store';
import { IdempotencyClaimLost } from '../../../src/core/ports/idempotency-store';
import type { Repositories } from '../../../src/core/ports/repositories';
import { PrismaIdempotencyStore } from '../../../src/infrastructure/persistence/prisma/prisma-idempotency-store';
import { prismaRepositories } from '../../../src/infrastructure/persistence/prisma/prisma-repositories';
import { PrismaTransactionBoundary } from '../../../src/infrastructure/persistence/prisma/prisma-transaction-boundary';
import { RequestTransactions } from '../../../src/infrastructure/persistence/prisma/request-transactions';
import type { SqlRunner } from '../../../src/infrastructure/persistence/prisma/sql-runner';
import { aTimeline } from '../../support/builders/timeline-builder';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { givenAccounts } from '../../support/contracts/subject';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

const NOW = new Date('2030-01-01T12:00:00Z');

describe('a keyed request run as a deferred request', () => {
  let database: TestDatabase;
  let repos: Repositories;
  let requests: RequestTransactions;
  let boundary: PrismaTransactionBoundary;
  let store: PrismaIdempotencyStore;
  let transactions: number;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    repos = prismaRepositories(database.prisma);
  });
  afterAll(() => database.close());

  beforeEach(async () => {
    await database.prisma.$executeRawUnsafe('TRUNCATE accounts, idempotency_keys CASCADE');
    await givenAccounts(repos, 'acc_1');
    await repos.travellers.add(aPausedTraveller('acc_1', '1969-07-20T20:17:40Z', NOW));
    // Counts the transactions opened on the pool: the deferred path's own.
    transactions = 0;
    const sql: SqlRunner = {
      query: (text, values, options) => database.sql.query(text, values, options),
      transaction: (work) => {
        transactions += 1;
        return database.sql.transaction(work);
      },
    };
    requests = new RequestTransactions(database.prisma);
    boundary = new PrismaTransactionBoundary(database.prisma, requests, { sql });
    store = new PrismaIdempotencyStore(database.prisma, requests, { now: () => NOW }, sql);
  });

  const answer = (body: unknown): StoredResponse => ({
    status: 201,
    body,
    headers: { 'content-type': 'application/json' },
  });
  const addTimeline = (id: string) =>
    boundary.exclusive('acc_1', (inside) => inside.timelines.add(aTimeline().withId(id).build()));
  const timelines = async () =>
    (await repos.timelines.listForAccount('acc_1', { limit: 100, after: null })).map((timeline) => timeline.id).sort();
  const kept = (key: string) =>
    database.prisma.idempotencyKey.findUniqueOrThrow({ where: { accountId_key: { accountId: 'acc_1', key } } });
  const reserve = async (key: string) =>
    expect(await store.reserve('acc_1', key, 'digest')).toEqual({ outcome: 'reserved' });

  it('commits the unit’s writes with the kept answer in one transaction on the pool', async () => {
    await reserve('k1');
    const response = await store.answerOnce('acc_1', 'k1', async () => {
      await addTimeline('tml_a');
      return answer({ id: 'tml_a' });
    });
    expect(response).toEqual(answer({ id: 'tml_a' }));
    expect(await timelines()).toEqual(['tml_a']);
    expect(await kept('k1')).toMatchObject({ responseStatus: 201, responseBody: { id: 'tml_a' } });
    expect(transactions).toBe(1);
  });

  it('keeps the answer of a request that wrote nothing without a transaction', async () => {
    await reserve('k2');
    await store.answerOnce('acc_1', 'k2', async () => ({
      status: 400,
      body: { code: 'validation_failed' },
      headers: {},
    }));
    expect(await kept('k2')).toMatchObject({ responseStatus: 400, responseBody: { code: 'validation_failed' } });
    expect(transactions).toBe(0);
  });

  it('reruns in the request transaction when another writer came first: writes once, rerun’s answer kept', async () => {
    await reserve('k3');
    let runs = 0;
    const response = await store.answerOnce('acc_1', 'k3', async () => {
      runs += 1;
      await addTimeline(`tml_run${runs}`);
      // Another process writes for the account between this unit and the keeping of its answer.
      const elsewhere = new PrismaTransactionBoundary(database.prisma, new RequestTransactions(database.prisma), {
        sql: database.sql,
      });
      if (runs === 1)
        await elsewhere.exclusive('acc_1', (inside) => inside.timelines.add(aTimeline().withId('tml_other').build()));
      return answer({ run: runs });
    });
    expect(response).toEqual(answer({ run: 2 }));
    expect(await timelines()).toEqual(['tml_other', 'tml_run2']);
    expect(await kept('k3')).toMatchObject({ responseBody: { run: 2 } });
  });

  it('gives a request of two units of work to the request transaction, where both commit with the answer', async () => {
    await reserve('k4');
    let runs = 0;
    await store.answerOnce('acc_1', 'k4', async () => {
      runs += 1;
      await addTimeline(`tml_${runs}a`);
      await addTimeline(`tml_${runs}b`);
      return answer({ run: runs });
    });
    expect(runs).toBe(2);
    expect(await timelines()).toEqual(['tml_2a', 'tml_2b']);
    expect(await kept('k4')).toMatchObject({ responseBody: { run: 2 } });
  });

  it('gives a refusal to the request transaction, to be decided under the lock', async () => {
    await reserve('k5');
    const refusals: number[] = [];
    const response = await store.answerOnce('acc_1', 'k5', async () => {
      try {
        await boundary.exclusive('acc_1', () => Promise.reject(new Error('refused')));
      } catch {
        refusals.push(refusals.length + 1);
      }
      return answer({ refused: true });
    });
    expect(refusals).toEqual([1, 2]);
    expect(response).toEqual(answer({ refused: true }));
  });

  it('writes nothing when the claim was lost before its answer was kept', async () => {
    await reserve('k6');
    await expect(
      store.answerOnce('acc_1', 'k6', async () => {
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
});
