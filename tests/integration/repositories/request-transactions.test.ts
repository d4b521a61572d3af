// Request scopes on a real PostgreSQL (or PGlite without DATABASE_URL): what a request writes
// through the TransactionBoundary commits with its sealing write, or nothing of it does.
import type { Repositories } from '../../../src/core/ports/repositories';
import type { Db } from '../../../src/infrastructure/persistence/prisma/db';
import { prismaRepositories } from '../../../src/infrastructure/persistence/prisma/prisma-repositories';
import { PrismaTransactionBoundary } from '../../../src/infrastructure/persistence/prisma/prisma-transaction-boundary';
import { RequestTransactions } from '../../../src/infrastructure/persistence/prisma/request-transactions';
import { aTimeline } from '../../support/builders/timeline-builder';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { givenAccounts } from '../../support/contracts/subject';
import { serverOnly } from '../../support/server-only';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { signal } from '../../support/wait-for';

jest.setTimeout(30_000);

describe('RequestTransactions with PrismaTransactionBoundary', () => {
  let database: TestDatabase;
  let requests: RequestTransactions;
  let boundary: PrismaTransactionBoundary;
  let repos: Repositories;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    requests = new RequestTransactions(database.prisma);
    boundary = new PrismaTransactionBoundary(database.prisma, requests);
    repos = prismaRepositories(database.prisma);
  });
  afterAll(() => database.close());

  beforeEach(async () => {
    await database.prisma.$executeRawUnsafe('TRUNCATE accounts, login_throttles CASCADE');
    await givenAccounts(repos, 'acc_1');
    await repos.travellers.add(aPausedTraveller('acc_1', '1969-07-20T20:17:40Z', '2030-01-01T12:00:00Z'));
  });

  const addTimeline = (id: string) =>
    boundary.exclusive('acc_1', (inside) => inside.timelines.add(aTimeline().withId(id).build()));
  const stored = async () =>
    (await repos.timelines.listForAccount('acc_1', { limit: 100, after: null })).map((timeline) => timeline.id).sort();
  /** The sealing write: a timeline of its own, so the test sees whether it committed. */
  const sealWith = (id: string) => (db: Db) => prismaRepositories(db).timelines.add(aTimeline().withId(id).build());

  it('commits every unit of work of the request together with the sealing write', async () => {
    const answer = await requests.run(async () => {
      await addTimeline('tml_a');
      await addTimeline('tml_b');
      return 'answered';
    }, sealWith('tml_sealed'));
    expect(answer).toBe('answered');
    expect(await stored()).toEqual(['tml_a', 'tml_b', 'tml_sealed']);
  });

  it('keeps nothing when the request fails after writing', async () => {
    const failing = requests.run(async () => {
      await addTimeline('tml_a');
      throw new Error('the request failed');
    }, sealWith('tml_sealed'));
    await expect(failing).rejects.toThrow('the request failed');
    expect(await stored()).toEqual([]);
  });

  it('keeps nothing when the sealing write fails', async () => {
    const failing = requests.run(
      () => addTimeline('tml_a'),
      async () => {
        throw new Error('could not keep the answer');
      },
    );
    await expect(failing).rejects.toThrow('could not keep the answer');
    expect(await stored()).toEqual([]);
  });

  it('undoes a failed unit of work alone: the units before and after it commit', async () => {
    await requests.run(async () => {
      await addTimeline('tml_a');
      // A duplicate id: the statement fails inside the transaction, which must stay usable.
      await expect(addTimeline('tml_a')).rejects.toThrow();
      await addTimeline('tml_b');
    }, sealWith('tml_sealed'));
    expect(await stored()).toEqual(['tml_a', 'tml_b', 'tml_sealed']);
  });

  it('shows its own writes to its reads and snapshots before they commit', async () => {
    await requests.run(async () => {
      await addTimeline('tml_a');
      const read = await boundary.read((inside) => inside.timelines.findForAccount('acc_1', 'tml_a'));
      const snapshot = await boundary.snapshot((inside) => inside.timelines.findForAccount('acc_1', 'tml_a'));
      expect([read?.id, snapshot?.id]).toEqual(['tml_a', 'tml_a']);
    }, sealWith('tml_sealed'));
    expect(await stored()).toEqual(['tml_a', 'tml_sealed']);
  });

  // Another connection at the same time needs a PostgreSQL server: the embedded one has one session.
  serverOnly(() => {
    it('hides its writes from everyone else until it commits', async () => {
      let outside: string[] = ['not read'];
      await requests.run(async () => {
        await addTimeline('tml_a');
        outside = await stored();
      }, sealWith('tml_sealed'));
      expect(outside).toEqual([]);
      expect(await stored()).toEqual(['tml_a', 'tml_sealed']);
    });
  });

  it('refuses units of work that overlap: they would share one savepoint', async () => {
    const overlapping = requests.run(async () => {
      await addTimeline('tml_a');
      await Promise.all([addTimeline('tml_b'), addTimeline('tml_c')]);
    }, sealWith('tml_sealed'));
    await expect(overlapping).rejects.toThrow('units of work of one request overlap');
    expect(await stored()).toEqual([]);
  });

  it('lets no unit of work open a transaction once the request has ended', async () => {
    let late: Promise<void> | undefined;
    const ended = signal();
    await requests.run(async () => {
      // Work left running beside the request: it reaches the database only after the request ended.
      late = ended.promise.then(() => addTimeline('tml_late'));
    }, sealWith('tml_sealed'));
    ended.resolve();
    await expect(late).rejects.toThrow('the request ended');
    expect(await stored()).toEqual(['tml_sealed']);
  });

  it('runs the sealing write alone when the request wrote nothing', async () => {
    await requests.run(
      () => boundary.read((inside) => inside.timelines.findForAccount('acc_1', 'primary')),
      sealWith('tml_sealed'),
    );
    expect(await stored()).toEqual(['tml_sealed']);
  });
});
