// PostgresTransactionBoundary on a real PostgreSQL (or PGlite without DATABASE_URL): an account's
// exclusive work applies its writes in one statement guarded by the traveller's version, and runs
// again when a writer in another process came first. The contract (transaction-boundary.contract.ts)
// holds; these tests show how, and that nothing is lost or doubled.
import { context, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { startInMemoryTracing } from '../../support/telemetry/in-memory-tracing';
import { TimelineNotFound } from '../../../src/core/domain/errors';
import { ADDRESS_THROTTLE, attemptToRecord } from '../../../src/core/domain/login-throttle';
import type { Repositories } from '../../../src/core/ports/repositories';
import { plainRepositories } from '../../support/plain-repositories';
import { PostgresTransactionBoundary } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';
import type { RerunReason } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
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

describe("an account's exclusive work", () => {
  let database: TestDatabase;
  let repos: Repositories;
  let reruns: RerunReason[];
  let boundary: PostgresTransactionBoundary;

  /** A boundary as a service process has one: its own queue and its own travellers known. */
  const aProcess = (sql: SqlRunner = database.sql) =>
    new PostgresTransactionBoundary({ prisma: database.prisma, sql }, new KeyedRequests(sql), (_account, reason) =>
      reruns.push(reason),
    );

  beforeAll(async () => {
    database = await provisionTestDatabase();
    repos = plainRepositories(database);
  });
  afterAll(() => database.close());

  beforeEach(async () => {
    await database.prisma.$executeRawUnsafe('TRUNCATE accounts, login_throttles CASCADE');
    await givenAccounts(repos, 'acc_1');
    await repos.travellers.add(aPausedTraveller());
    await repos.timelines.add(aTimeline().withId('tml_1').build());
    await repos.items.add(anItem({ id: 'itm_1' }));
    await repos.events.add(anEvent({ id: 'evt_1' }));
    reruns = [];
    boundary = aProcess();
  });

  const version = async () =>
    (await database.prisma.traveller.findUniqueOrThrow({ where: { accountId: 'acc_1' } })).version;
  const shift = (on: PostgresTransactionBoundary) =>
    on.exclusive('acc_1', async (inside) =>
      inside.travellers.save((await inside.travellers.getForAccount('acc_1')).shiftBy(MINUTE, NOW)),
    );
  const reading = async () => (await repos.travellers.getForAccount('acc_1')).clock.reading;
  const failuresOf = async (key: string) =>
    (await database.prisma.loginThrottle.findUnique({ where: { key } }))?.failures ?? 0;

  it('applies every kind of write in one statement, each value as written', async () => {
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
    expect(reruns).toEqual([]);
    expect(await version()).toBe(before + 1n);
    expect(await reading()).toEqual(at('1969-07-20T20:18:40.123Z'));
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
    expect(await repos.events.manipulationsOf('acc_1', 'evt_1', 10)).toEqual([manipulation]);
    expect(await repos.anchors.findForAccount('acc_1', 'anc_1')).toEqual(anAnchor({ id: 'anc_1' }));
    expect(
      await database.prisma.travel.findUnique({ where: { accountId_id: { accountId: 'acc_1', id: 'trv_1' } } }),
    ).toEqual(travel);
  });

  it('writes a row written twice once, in its last state, and a row added and removed not at all', async () => {
    await boundary.exclusive('acc_1', async (inside) => {
      const traveller = await inside.travellers.getForAccount('acc_1');
      await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
      await inside.travellers.save((await inside.travellers.getForAccount('acc_1')).shiftBy(MINUTE, NOW));
      await inside.timelines.add(aTimeline().withId('tml_2').build());
      await inside.timelines.save(aTimeline().withId('tml_2').withStatus('completed').build());
      await inside.items.save(anItem({ id: 'itm_1', carriedHomeBy: 'trv_1' }));
      await inside.items.save(anItem({ id: 'itm_1', carriedHomeBy: 'trv_2' }));
      await inside.sessions.add({
        id: 'ses_1',
        accountId: 'acc_1',
        tokenDigest: 'digest',
        consoleKeyId: null,
        createdAt: NOW,
        lastSeenAt: NOW,
        expiresAt: NOW,
      });
      await inside.sessions.remove('ses_1');
    });

    expect(reruns).toEqual([]);
    expect(await reading()).toEqual(at('1969-07-20T20:19:40.123Z'));
    expect((await repos.timelines.findForAccount('acc_1', 'tml_2'))?.status).toBe('completed');
    expect((await repos.items.findManyForAccount('acc_1', ['itm_1']))[0]?.carriedHomeBy).toBe('trv_2');
    expect(await database.prisma.session.count()).toBe(0);
  });

  it('runs again when a writer in another process came first, and applies once', async () => {
    let runs = 0;
    const read = signal();
    const otherWrote = signal();
    // As a use case's span (use-case-spans.ts): the second run is an event on it.
    const tracing = startInMemoryTracing();
    let span: ReadableSpan | undefined;
    try {
      const useCase = tracing.tracer.startSpan('ShiftTime');
      const slow = context.with(trace.setSpan(context.active(), useCase), () =>
        boundary.exclusive('acc_1', async (inside) => {
          runs += 1;
          const traveller = await inside.travellers.getForAccount('acc_1');
          if (runs === 1) {
            read.resolve();
            // Nothing is locked while the work runs: the other process writes meanwhile.
            await within(otherWrote.promise, { what: 'the other writer to write' });
          }
          await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
          await inside.anchors.add(anAnchor({ id: `anc_${runs}` }));
        }),
      );
      await read.promise;
      await shift(aProcess());
      otherWrote.resolve();
      await slow;
      useCase.end();
      [span] = tracing.named('ShiftTime');
    } finally {
      // Also when the work failed: the global context manager must not outlive the test.
      await tracing.close();
    }

    expect(reruns).toEqual(['conflict']);
    expect(span?.events.map((event) => [event.name, event.attributes])).toEqual([
      ['exclusive write ran again', { reason: 'conflict' }],
    ]);
    expect(runs).toBe(2);
    expect(await reading()).toEqual(at('1969-07-20T20:19:40.123Z'));
    expect(await database.prisma.anchor.findMany({ select: { id: true } })).toEqual([{ id: 'anc_2' }]);
  });

  it("queues one process's units of one account, so they never collide", async () => {
    await Promise.all(Array.from({ length: 10 }, () => shift(boundary)));

    expect(reruns).toEqual([]);
    expect(await reading()).toEqual(at('1969-07-20T20:27:40.123Z'));
  });

  it('counts each sign-in attempt in one statement: concurrent ones from two processes all count', async () => {
    const attempt = attemptToRecord('address:192.0.2.1', ADDRESS_THROTTLE, NOW);
    const other = aProcess();
    const counted = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        (n % 2 === 0 ? boundary : other).count((counters) => counters.signInAttempts.record(attempt)),
      ),
    );

    // Each saw its own count: none read a count another was changing.
    expect(counted.map((counter) => counter.failures).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, n) => n + 1),
    );
    expect(await failuresOf(attempt.key)).toBe(12);
  });

  it('holds no counter in a unit: a count made while one runs applies at once, and outlives its refusal', async () => {
    const attempt = attemptToRecord('address:192.0.2.1', ADDRESS_THROTTLE, NOW);
    const written = signal();
    const counted = signal();
    let offered: unknown;
    const refused = boundary.exclusive('acc_1', async (inside) => {
      // @ts-expect-error: the unit's repositories have no counters, so a unit cannot call one.
      offered = inside.signInAttempts ?? inside.keyUses;
      await inside.anchors.add(anAnchor({ id: 'anc_1' }));
      written.resolve();
      await within(counted.promise, { what: 'the count made meanwhile' });
      throw new TimelineNotFound('tml_9');
    });
    await written.promise;
    await boundary.count((counters) => counters.signInAttempts.record(attempt));
    expect(await failuresOf(attempt.key)).toBe(1);
    counted.resolve();

    await expect(refused).rejects.toThrow(TimelineNotFound);
    expect(typeof offered).toBe('undefined');
    expect(await failuresOf(attempt.key)).toBe(1);
    expect(await database.prisma.anchor.count()).toBe(0);
  });

  it('lets a refusal stand when nothing moved, keeping nothing of the refused work', async () => {
    const before = await version();
    await expect(
      boundary.exclusive('acc_1', async (inside) => {
        await inside.anchors.add(anAnchor({ id: 'anc_1' }));
        throw new TimelineNotFound('tml_9');
      }),
    ).rejects.toThrow(TimelineNotFound);

    expect(reruns).toEqual([]);
    expect(await database.prisma.anchor.count()).toBe(0);
    expect(await version()).toBe(before);
  });

  it('runs a refusal again when what it read moved meanwhile, and the second run decides', async () => {
    let runs = 0;
    const found = await boundary.exclusive('acc_1', async (inside) => {
      runs += 1;
      const timeline = await inside.timelines.findForAccount('acc_1', 'tml_2');
      if (runs === 1)
        await aProcess().exclusive('acc_1', (other) => other.timelines.add(aTimeline().withId('tml_2').build()));
      if (!timeline) throw new TimelineNotFound('tml_2');
      return timeline.id;
    });

    expect(found).toBe('tml_2');
    expect(reruns).toEqual(['state-moved']);
  });

  it('reports a statement PostgreSQL refuses (a key taken), changes nothing, and does not run it again', async () => {
    const before = await version();
    let runs = 0;
    await expect(
      boundary.exclusive('acc_1', (inside) => {
        runs += 1;
        return inside.events.add(anEvent({ id: 'evt_1' }));
      }),
    ).rejects.toMatchObject({ code: '23505' });

    expect(runs).toBe(1);
    expect(await version()).toBe(before);
  });

  it('answers work that only read, when its version held, without moving it', async () => {
    const before = await version();
    const status = await boundary.exclusive(
      'acc_1',
      async (inside) => (await inside.timelines.findForAccount('acc_1', 'tml_1'))?.status,
    );

    expect(status).toBe('open');
    expect(reruns).toEqual([]);
    expect(await version()).toBe(before);
  });

  describe('a traveller this process wrote last', () => {
    /** The statements sent, the guarded write and the traveller's reads among them. */
    function counting(sql: SqlRunner): { sql: SqlRunner; statements: () => number } {
      let statements = 0;
      const counted: SqlRunner = {
        query: (text, values, options) => {
          statements += 1;
          return sql.query(text, values, options);
        },
      };
      return { sql: counted, statements: () => statements };
    }

    it('is written without reading it again: one statement', async () => {
      const { sql, statements } = counting(database.sql);
      const counted = aProcess(sql);

      await shift(counted);
      expect(statements()).toBe(2);
      await shift(counted);
      expect(statements()).toBe(3);

      expect(reruns).toEqual([]);
      expect(await reading()).toEqual(at('1969-07-20T20:19:40.123Z'));
    });

    it('changed by another process meanwhile costs a fresh read and a second run', async () => {
      await shift(boundary);
      await shift(aProcess());
      await shift(boundary);

      expect(reruns).toEqual(['conflict']);
      expect(await reading()).toEqual(at('1969-07-20T20:20:40.123Z'));
    });

    it('is checked before work that only read it answers', async () => {
      await shift(boundary);
      await shift(aProcess());

      const seen = await boundary.exclusive(
        'acc_1',
        async (inside) => (await inside.travellers.getForAccount('acc_1')).clock.reading,
      );

      expect(seen).toEqual(at('1969-07-20T20:19:40.123Z'));
      expect(reruns).toEqual(['state-moved']);
    });
  });

  describe('consistent reads (snapshot)', () => {
    it('reads again when a write of the account applied between its reads, so they agree', async () => {
      let runs = 0;
      const seen = await boundary.snapshot('acc_1', async (inside) => {
        runs += 1;
        const first = await inside.timelines.findForAccount('acc_1', 'tml_2');
        if (runs === 1)
          await aProcess().exclusive('acc_1', (other) => other.timelines.add(aTimeline().withId('tml_2').build()));
        const anchorTimeline = await inside.timelines.findForAccount('acc_1', 'tml_2');
        return [first?.id ?? null, anchorTimeline?.id ?? null];
      });

      expect(runs).toBe(2);
      expect(seen).toEqual(['tml_2', 'tml_2']);
      expect(reruns).toEqual(['state-moved']);
    });
  });
});
