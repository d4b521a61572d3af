// PrismaTransactionBoundary.exclusive on a real PostgreSQL (or PGlite without DATABASE_URL): work
// runs optimistically first, its writes applied by one guarded statement, and under the account's
// lock only when that cannot decide. The contract (transaction-boundary.contract.ts) holds either
// way; these tests show which way each kind of work goes, and that nothing is lost or doubled.
import { TimelineNotFound } from '../../../src/core/domain/errors';
import type { Repositories } from '../../../src/core/ports/repositories';
import type { SqlRunner } from '../../../src/infrastructure/persistence/prisma/sql-runner';
import type { Fallback } from '../../../src/infrastructure/persistence/prisma/optimistic/run-optimistically';
import { prismaRepositories } from '../../../src/infrastructure/persistence/prisma/prisma-repositories';
import { PrismaTransactionBoundary } from '../../../src/infrastructure/persistence/prisma/prisma-transaction-boundary';
import { RequestTransactions } from '../../../src/infrastructure/persistence/prisma/request-transactions';
import { anAnchor } from '../../support/builders/anchor-builder';
import { anEvent } from '../../support/builders/event-builder';
import { anItem } from '../../support/builders/item-builder';
import { aTimeline } from '../../support/builders/timeline-builder';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { at, givenAccounts } from '../../support/contracts/subject';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { signal, within } from '../../support/wait-for';

jest.setTimeout(30_000);

const NOW = at('2030-01-01T12:00:00.000Z');
const MINUTE = 60_000;

describe('optimistic exclusive work', () => {
  let database: TestDatabase;
  let repos: Repositories;
  let fallbacks: Fallback[];
  let causes: unknown[];
  let boundary: PrismaTransactionBoundary;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    repos = prismaRepositories(database.prisma);
  });
  afterAll(() => database.close());

  beforeEach(async () => {
    await database.prisma.$executeRawUnsafe('TRUNCATE accounts, login_throttles CASCADE');
    await givenAccounts(repos, 'acc_1');
    await repos.travellers.add(aPausedTraveller());
    await repos.timelines.add(aTimeline().withId('tml_1').build());
    await repos.items.add(anItem({ id: 'itm_1' }));
    await repos.events.add(anEvent({ id: 'evt_1' }));
    fallbacks = [];
    causes = [];
    boundary = new PrismaTransactionBoundary(database.prisma, new RequestTransactions(database.prisma), {
      sql: database.sql,
      onFallback: (_account, fallback, cause) => {
        fallbacks.push(fallback);
        if (cause !== undefined) causes.push(cause);
      },
    });
  });

  const version = async () =>
    (await database.prisma.traveller.findUniqueOrThrow({ where: { accountId: 'acc_1' } })).version;

  it('applies every kind of write at once without the lock, each value as written', async () => {
    const manipulation = {
      accountId: 'acc_1',
      id: 'man_1',
      eventId: 'evt_1',
      action: 'Delay',
      fromTime: at('1969-07-20T21:00:00Z'),
      toTime: at('1969-07-20T22:00:00.456Z'),
      appliedAt: NOW,
      revision: 1,
    };
    const travel = {
      accountId: 'acc_1',
      id: 'trv_1',
      destination: 'tml_2',
      fromTimelineId: 'primary',
      toTimelineId: 'tml_2',
      departedAt: NOW,
      arrivalTime: at('0001-01-01T00:00:00Z'),
      itemsTransported: ['itm_1', 'itm_2'],
    };
    const before = await version();

    const result = await boundary.exclusive('acc_1', async (inside) => {
      const traveller = await inside.travellers.getForAccount('acc_1');
      await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
      await inside.timelines.save(aTimeline().withId('tml_1').withStatus('active').withWindowMinutes(90).build());
      await inside.timelines.add(aTimeline().withId('tml_2').leadingTo('9999-12-31T23:59:59.999Z').build());
      await inside.items.save(anItem({ id: 'itm_1', carriedHomeBy: 'trv_1' }));
      await inside.items.add(anItem({ id: 'itm_2', location: 'O\'Brien\'s "pub"' }));
      await inside.events.save(anEvent({ id: 'evt_1', time: at('1969-07-20T22:00:00.456Z'), revision: 1 }));
      await inside.events.addManipulation(manipulation);
      await inside.events.add(anEvent({ id: 'evt_2', kind: 'manipulation', subjectId: null }));
      await inside.anchors.add(anAnchor({ id: 'anc_1' }));
      await inside.travels.add(travel);
      return 'done';
    });

    expect(result).toBe('done');
    expect(fallbacks).toEqual([]);
    expect(await version()).toBe(before + 1n);
    expect((await repos.travellers.getForAccount('acc_1')).clock.reading).toEqual(at('1969-07-20T20:18:40.123Z'));
    expect(await repos.timelines.findForAccount('acc_1', 'tml_1')).toEqual(
      aTimeline().withId('tml_1').withStatus('active').withWindowMinutes(90).build(),
    );
    expect(await repos.timelines.findForAccount('acc_1', 'tml_2')).toEqual(
      aTimeline().withId('tml_2').leadingTo('9999-12-31T23:59:59.999Z').build(),
    );
    expect(await repos.items.findManyForAccount('acc_1', ['itm_1', 'itm_2'])).toEqual(
      expect.arrayContaining([
        anItem({ id: 'itm_1', carriedHomeBy: 'trv_1' }),
        anItem({ id: 'itm_2', location: 'O\'Brien\'s "pub"' }),
      ]),
    );
    expect(await repos.events.findForAccount('acc_1', 'evt_1')).toEqual(
      anEvent({ id: 'evt_1', time: at('1969-07-20T22:00:00.456Z'), revision: 1 }),
    );
    expect(await repos.events.findForAccount('acc_1', 'evt_2')).toEqual(
      anEvent({ id: 'evt_2', kind: 'manipulation', subjectId: null }),
    );
    expect(await repos.events.manipulationsOf('acc_1', 'evt_1')).toEqual([manipulation]);
    expect(await repos.anchors.findForAccount('acc_1', 'anc_1')).toEqual(anAnchor({ id: 'anc_1' }));
    expect(
      await database.prisma.travel.findUnique({ where: { accountId_id: { accountId: 'acc_1', id: 'trv_1' } } }),
    ).toEqual(travel);
  });

  it('writes a row written twice once, in its last state', async () => {
    await boundary.exclusive('acc_1', async (inside) => {
      const traveller = await inside.travellers.getForAccount('acc_1');
      await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
      await inside.travellers.save((await inside.travellers.getForAccount('acc_1')).shiftBy(MINUTE, NOW));
      await inside.timelines.add(aTimeline().withId('tml_2').build());
      await inside.timelines.save(aTimeline().withId('tml_2').withStatus('completed').build());
      await inside.items.save(anItem({ id: 'itm_1', carriedHomeBy: 'trv_1' }));
      await inside.items.save(anItem({ id: 'itm_1', carriedHomeBy: 'trv_2' }));
    });

    expect(fallbacks).toEqual([]);
    expect((await repos.travellers.getForAccount('acc_1')).clock.reading).toEqual(at('1969-07-20T20:19:40.123Z'));
    expect((await repos.timelines.findForAccount('acc_1', 'tml_2'))?.status).toBe('completed');
    expect((await repos.items.findManyForAccount('acc_1', ['itm_1']))[0]?.carriedHomeBy).toBe('trv_2');
  });

  it('runs the work again under the lock when another writer came first, and applies it once', async () => {
    let runs = 0;
    const read = signal();
    const otherWrote = signal();
    const slow = boundary.exclusive('acc_1', async (inside) => {
      runs += 1;
      const traveller = await inside.travellers.getForAccount('acc_1');
      if (runs === 1) {
        read.resolve();
        // The optimistic run holds no lock, so the other writer finishes meanwhile.
        await within(otherWrote.promise, { what: 'the other writer to write' });
      }
      await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
      await inside.anchors.add(anAnchor({ id: `anc_${runs}` }));
    });
    await read.promise;
    await boundary.exclusive('acc_1', async (inside) =>
      inside.travellers.save((await inside.travellers.getForAccount('acc_1')).shiftBy(MINUTE, NOW)),
    );
    otherWrote.resolve();
    await slow;

    expect(fallbacks).toEqual(['conflict']);
    expect(runs).toBe(2);
    expect((await repos.travellers.getForAccount('acc_1')).clock.reading).toEqual(at('1969-07-20T20:19:40.123Z'));
    expect(await database.prisma.anchor.findMany({ select: { id: true } })).toEqual([{ id: 'anc_2' }]);
  });

  it('runs work that reads after it wrote under the lock, where the read sees the write', async () => {
    const found = await boundary.exclusive('acc_1', async (inside) => {
      await inside.anchors.add(anAnchor({ id: 'anc_1' }));
      return inside.anchors.findForAccount('acc_1', 'anc_1');
    });

    expect(fallbacks).toEqual(['needs-lock']);
    expect(found).toEqual(anAnchor({ id: 'anc_1' }));
    expect(await database.prisma.anchor.count()).toBe(1);
  });

  it('decides a refusal under the lock, and keeps nothing of the refused work', async () => {
    await expect(
      boundary.exclusive('acc_1', async (inside) => {
        await inside.anchors.add(anAnchor({ id: 'anc_1' }));
        throw new TimelineNotFound('tml_9');
      }),
    ).rejects.toThrow(TimelineNotFound);

    expect(fallbacks).toEqual(['refused']);
    expect(await database.prisma.anchor.count()).toBe(0);
  });

  it('hands work on accounts, keys and sessions to the lock, since those writes answer values', async () => {
    await boundary.exclusive('acc_1', async (inside) => {
      await inside.sessions.remove('ses_none');
    });

    expect(fallbacks).toEqual(['needs-lock']);
  });

  it('leaves a failing statement (a key taken) to the locked run, which reports it; nothing changes', async () => {
    const before = await version();
    await expect(
      boundary.exclusive('acc_1', (inside) => inside.events.add(anEvent({ id: 'evt_1' }))),
    ).rejects.toThrow();

    expect(fallbacks).toEqual(['statement-failed']);
    expect(causes).toEqual([expect.objectContaining({ code: '23505' })]);
    expect(await version()).toBe(before);
  });

  it('checks work that only read more than its traveller, so its answer rests on one state', async () => {
    const before = await version();
    const status = await boundary.exclusive(
      'acc_1',
      async (inside) => (await inside.timelines.findForAccount('acc_1', 'tml_1'))?.status,
    );

    expect(status).toBe('open');
    expect(fallbacks).toEqual([]);
    expect(await version()).toBe(before + 1n);
  });

  describe('a traveller this process wrote last', () => {
    /** The statements sent outside transactions (the optimistic read and write among them). */
    function counting(sql: SqlRunner): { sql: SqlRunner; statements: () => number } {
      let statements = 0;
      const counted: SqlRunner = {
        query: (text, values) => {
          statements += 1;
          return sql.query(text, values);
        },
        transaction: (work) => sql.transaction(work),
      };
      return { sql: counted, statements: () => statements };
    }
    const shift = (on: PrismaTransactionBoundary) =>
      on.exclusive('acc_1', async (inside) =>
        inside.travellers.save((await inside.travellers.getForAccount('acc_1')).shiftBy(MINUTE, NOW)),
      );
    const reading = async () => (await repos.travellers.getForAccount('acc_1')).clock.reading;

    it('is written without reading it again: one statement', async () => {
      const { sql, statements } = counting(database.sql);
      const counted = new PrismaTransactionBoundary(database.prisma, new RequestTransactions(database.prisma), {
        sql,
        onFallback: (_account, fallback) => fallbacks.push(fallback),
      });

      await shift(counted);
      expect(statements()).toBe(2);
      await shift(counted);
      expect(statements()).toBe(3);

      expect(fallbacks).toEqual([]);
      expect(await reading()).toEqual(at('1969-07-20T20:19:40.123Z'));
    });

    it('changed by another process meanwhile costs a fresh read and a second try, not the lock', async () => {
      const otherProcess = new PrismaTransactionBoundary(database.prisma, new RequestTransactions(database.prisma), {
        sql: database.sql,
        onFallback: (_account, fallback) => fallbacks.push(fallback),
      });

      await shift(boundary);
      await shift(otherProcess);
      await shift(boundary);

      expect(fallbacks).toEqual([]);
      expect(await reading()).toEqual(at('1969-07-20T20:20:40.123Z'));
    });

    it('is checked before work that only read it answers', async () => {
      const otherProcess = new PrismaTransactionBoundary(database.prisma, new RequestTransactions(database.prisma), {
        sql: database.sql,
      });
      await shift(boundary);
      await shift(otherProcess);

      const seen = await boundary.exclusive(
        'acc_1',
        async (inside) => (await inside.travellers.getForAccount('acc_1')).clock.reading,
      );

      expect(seen).toEqual(at('1969-07-20T20:19:40.123Z'));
    });

    it('is forgotten when a locked run (a keyed request) moves it on, instead of tried and refused', async () => {
      const { sql, statements } = counting(database.sql);
      const requests = new RequestTransactions(database.prisma);
      const withScopes = new PrismaTransactionBoundary(database.prisma, requests, {
        sql,
        onFallback: (_account, fallback) => fallbacks.push(fallback),
      });
      await shift(withScopes);
      await requests.run(
        () => shift(withScopes),
        async () => undefined,
      );
      const before = statements();
      await shift(withScopes);

      expect(statements() - before).toBe(2);
      expect(fallbacks).toEqual([]);
      expect(await reading()).toEqual(at('1969-07-20T20:20:40.123Z'));
    });
  });
});
