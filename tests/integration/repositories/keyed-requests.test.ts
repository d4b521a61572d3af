// A keyed request (Idempotency-Key): its unit of work's statement waits for the request's answer and
// claims the key with it, so the writes and the kept answer commit together or not at all. On a real
// PostgreSQL (or PGlite without DATABASE_URL).
import {
  type KeepingRule,
  type KeyedAnswer,
  MAX_KEPT_ANSWER_BYTES,
  type KeptResponse,
  type StoredResponse,
} from '../../../src/core/ports/idempotency-store';
import type { Repositories } from '../../../src/core/ports/repositories';
import { PostgresIdempotencyStore } from '../../../src/infrastructure/persistence/postgres/idempotency-store';
import { plainRepositories } from '../../support/plain-repositories';
import { PostgresTransactionBoundary } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import type { RunOptions, SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { UnitOfWorkMisuse } from '../../../src/core/ports/transaction-boundary';
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
  /** Runs after each statement of the keyed requests' process, given what it answered. */
  let afterStatement: (rows: readonly unknown[]) => Promise<void>;

  /** The boundary and the key store of another service process, writing the same account. */
  const elsewhere = () => {
    const keyed = new KeyedRequests(database.sql);
    return {
      boundary: new PostgresTransactionBoundary(database, keyed),
      store: new PostgresIdempotencyStore(database.prisma, database.sql, keyed, { now: () => NOW }),
    };
  };

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
    afterStatement = () => Promise.resolve();
    const sql: SqlRunner = {
      query: async <R>(text: string, values: readonly unknown[], options?: RunOptions) => {
        statements += 1;
        const rows = await database.sql.query<R>(text, values, options);
        await afterStatement(rows);
        return rows;
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
  /** The same answer as the store hands it back: its body written as JSON once. */
  const sent = (body: unknown): KeptResponse => ({
    status: 201,
    json: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const addTimeline = (id: string, on = boundary) =>
    on.exclusive('acc_1', (inside) => inside.timelines.add(aTimeline().withId(id).build()));
  const timelines = async () =>
    (await repos.timelines.listForAccount('acc_1', { limit: 100, after: null })).map((timeline) => timeline.id).sort();
  const kept = (key: string) =>
    database.prisma.idempotencyKey.findUniqueOrThrow({ where: { accountId_key: { accountId: 'acc_1', key } } });
  const keepEvery = () => Promise.resolve(null);
  const answerOnce = (
    key: string,
    produce: () => Promise<StoredResponse>,
    on = store,
    digest = 'digest',
    keeping: KeepingRule = keepEvery,
  ) => on.answerOnce('acc_1', key, digest, produce, keeping);
  /** Produces a timeline's answer, adding the timeline through `on`. */
  const creating =
    (id: string, on = boundary) =>
    async () => {
      await addTimeline(id, on);
      return answer({ id });
    };

  it('commits its writes with the kept answer and the claim in one statement', async () => {
    const before = statements;
    const keyed = await answerOnce('k1', creating('tml_a'));

    expect(keyed).toEqual({ outcome: 'answered', response: sent({ id: 'tml_a' }) });
    expect(await timelines()).toEqual(['tml_a']);
    expect(await kept('k1')).toMatchObject({
      requestDigest: 'digest',
      responseStatus: 201,
      responseBody: { id: 'tml_a' },
    });
    // The traveller's read, then the writes with the claim and the answer.
    expect(statements - before).toBe(2);
  });

  it('keeps the answer of a request that wrote nothing in one statement', async () => {
    const before = statements;
    await answerOnce('k2', async () => ({ status: 400, body: { code: 'validation_failed' }, headers: {} }));

    expect(await kept('k2')).toMatchObject({ responseStatus: 400, responseBody: { code: 'validation_failed' } });
    expect(statements - before).toBe(1);
  });

  it('replays the kept answer to a retry, and nothing the retry wrote stays', async () => {
    await answerOnce('k3', creating('tml_first'));
    const before = statements;
    const retry = await answerOnce('k3', creating('tml_retry'));

    expect(retry).toEqual({ outcome: 'replay', response: sent({ id: 'tml_first' }) });
    expect(await timelines()).toEqual(['tml_first']);
    // The retry's statement, which found the key kept, then the key's read.
    expect(statements - before).toBe(2);
    // The account's queue was let go: the next unit runs.
    await addTimeline('tml_after');
    expect(await timelines()).toEqual(['tml_after', 'tml_first']);
  });

  it('commits the writes with the status alone when the answer is not to be kept, and tells a retry why', async () => {
    const judged: number[] = [];
    const overQuota: KeepingRule = async (bytes) => {
      judged.push(bytes);
      return 'quota_reached';
    };
    const first = await answerOnce('k3q', creating('tml_unkept'), store, 'digest', overQuota);
    const retry = await answerOnce('k3q', creating('tml_retry'));

    // The first request's answer is its own, sent whole; judged by its body's length as JSON text.
    expect(first).toEqual({ outcome: 'answered', response: sent({ id: 'tml_unkept' }) });
    expect(judged).toEqual([Buffer.byteLength(JSON.stringify({ id: 'tml_unkept' }))]);
    expect(retry).toEqual({ outcome: 'not-kept', status: 201, reason: 'quota_reached' });
    expect(await timelines()).toEqual(['tml_unkept']);
    expect(await kept('k3q')).toMatchObject({ responseStatus: 201, responseBody: null });
  });

  it('reads a key an earlier release claimed without its answer (too long) as not kept for that reason', async () => {
    await database.prisma.idempotencyKey.create({
      data: {
        accountId: 'acc_1',
        key: 'k3old',
        requestDigest: 'digest',
        responseStatus: 200,
        responseHeaders: { 'x-tns-answer-not-kept': 'true' },
        createdAt: NOW,
      },
    });
    expect(await answerOnce('k3old', creating('tml_never'))).toEqual({
      outcome: 'not-kept',
      status: 200,
      reason: 'too_long',
    });
  });

  it('refuses the key with another request, writing nothing', async () => {
    await answerOnce('k4', creating('tml_first'));
    const other = await answerOnce('k4', creating('tml_other'), store, 'another digest');

    expect(other).toEqual({ outcome: 'reused' });
    expect(await timelines()).toEqual(['tml_first']);
    expect(await kept('k4')).toMatchObject({ requestDigest: 'digest', responseBody: { id: 'tml_first' } });
  });

  it.each([
    ['writes', true],
    ['wrote nothing', false],
  ])('acts once for duplicates in two processes at once that %s: the later replays the first', async (_, writes) => {
    const other = elsewhere();
    // Both answers are produced before either is kept, so both statements race for the key.
    let produced = 0;
    let bothProduced: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (bothProduced = resolve));
    const duplicate = (on: PostgresTransactionBoundary) => async () => {
      if (writes) await addTimeline(`tml_${produced}`, on);
      produced += 1;
      if (produced === 2) bothProduced();
      await together;
      return answer({ run: produced });
    };

    const answers = await Promise.all([
      answerOnce('k5', duplicate(boundary)),
      answerOnce('k5', duplicate(other.boundary), other.store),
    ]);

    const outcomes = answers.map((keyed: KeyedAnswer) => keyed.outcome).sort();
    expect(outcomes).toEqual(['answered', 'replay']);
    const [first, second] = answers.map((keyed) => ('response' in keyed ? keyed.response : null));
    expect(first).toEqual(second);
    expect(await timelines()).toHaveLength(writes ? 1 : 0);
  });

  it('keeps no answer without its writes when two processes write with two keys at once', async () => {
    const other = elsewhere();
    // Both produced on the same state: one statement applies, the other finds the traveller moved.
    let produced = 0;
    let bothProduced: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (bothProduced = resolve));
    const write = (on: PostgresTransactionBoundary) => async () => {
      const id = `tml_${(produced += 1)}`;
      await addTimeline(id, on);
      if (produced === 2) bothProduced();
      await together;
      return answer({ id });
    };

    const answers = await Promise.all([
      answerOnce('k6a', write(boundary)),
      answerOnce('k6b', write(other.boundary), other.store),
    ]);

    expect(answers.map((keyed) => keyed.outcome)).toEqual(['answered', 'answered']);
    // The one produced again wrote its third timeline; each key keeps the answer of what was written.
    const ids = [(await kept('k6a')).responseBody, (await kept('k6b')).responseBody].map((body) =>
      String((body as { id: string }).id),
    );
    expect(await timelines()).toEqual(ids.sort());
    expect(produced).toBe(3);
  });

  /** A rule that keeps every answer, recording the lengths it was asked to judge. */
  const keepingEvery = () => {
    const judged: number[] = [];
    const keeping: KeepingRule = async (bytes) => {
      judged.push(bytes);
      return null;
    };
    return { judged, keeping };
  };

  /**
   * Writes timeline `<prefix><run>` and answers `answerOf(run)`; in its first run another process
   * writes timeline `other` for the account between this unit and the keeping of its answer, so it
   * is produced again.
   */
  const producedAgain = (prefix: string, other: string, answerOf: (run: number) => object) => {
    let runs = 0;
    return async () => {
      runs += 1;
      await addTimeline(`${prefix}${runs}`);
      if (runs === 1) await addTimeline(other, elsewhere().boundary);
      return answer(answerOf(runs));
    };
  };

  it('is produced again when another process wrote first: writes once, the second answer kept', async () => {
    const { judged, keeping } = keepingEvery();
    const produce = producedAgain('tml_run', 'tml_other', (run) => ({ run }));
    const keyed = await answerOnce('k6', produce, store, 'digest', keeping);

    expect(keyed).toEqual({ outcome: 'answered', response: sent({ run: 2 }) });
    // The answer is judged (its bytes charged to the account's quota) once, not once per run.
    expect(judged).toHaveLength(1);
    expect(await timelines()).toEqual(['tml_other', 'tml_run2']);
    expect(await kept('k6')).toMatchObject({ responseBody: { run: 2 } });
  });

  it('charges only an answer short enough to keep: a run too long to keep leaves the next its chance', async () => {
    const { judged, keeping } = keepingEvery();
    const produce = producedAgain('tml_long', 'tml_other_long', (run) =>
      run === 1 ? { padding: 'x'.repeat(MAX_KEPT_ANSWER_BYTES) } : { run },
    );
    const keyed = await answerOnce('k6long', produce, store, 'digest', keeping);

    expect(keyed).toEqual({ outcome: 'answered', response: sent({ run: 2 }) });
    expect(judged).toEqual([Buffer.byteLength(JSON.stringify({ run: 2 }))]);
    expect(await kept('k6long')).toMatchObject({ responseBody: { run: 2 } });
  });

  it('claims nothing and writes nothing when producing the answer fails', async () => {
    await expect(
      answerOnce('k7', async () => {
        await addTimeline('tml_7');
        throw new Error('the service failed');
      }),
    ).rejects.toThrow('the service failed');

    expect(await timelines()).toEqual([]);
    expect(await database.prisma.idempotencyKey.count()).toBe(0);
  });

  it('claims the key anew when the key it found kept is gone before it is read', async () => {
    await answerOnce('k10', creating('tml_first'));
    // The retry's statement finds the key kept; the key is then deleted (swept) before its read.
    afterStatement = async (rows) => {
      if ((rows[0] as { taken?: boolean } | undefined)?.taken !== true) return;
      afterStatement = () => Promise.resolve();
      await database.prisma.idempotencyKey.delete({ where: { accountId_key: { accountId: 'acc_1', key: 'k10' } } });
    };
    const retry = await answerOnce('k10', creating('tml_second'));

    expect(retry).toEqual({ outcome: 'answered', response: sent({ id: 'tml_second' }) });
    expect(await timelines()).toEqual(['tml_first', 'tml_second']);
    expect(await kept('k10')).toMatchObject({ responseBody: { id: 'tml_second' } });
  });

  it('refuses two units of work run at once, writes nothing, and lets the account go', async () => {
    await expect(
      answerOnce('k11', async () => {
        await Promise.all([addTimeline('tml_11a'), addTimeline('tml_11b')]);
        return answer({});
      }),
    ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

    // The first unit may still be running: the next one waits for it, then runs.
    await addTimeline('tml_after');
    expect(await timelines()).toEqual(['tml_after']);
    expect(await database.prisma.idempotencyKey.count()).toBe(0);
  });

  it('refuses a second unit of work or a read after its waiting writes, and writes nothing', async () => {
    await expect(
      answerOnce('k8', async () => {
        await addTimeline('tml_8a');
        await addTimeline('tml_8b');
        return answer({});
      }),
    ).rejects.toBeInstanceOf(UnitOfWorkMisuse);
    await expect(
      answerOnce('k8', async () => {
        await addTimeline('tml_8c');
        await boundary.read((inside) => inside.timelines.findForAccount('acc_1', 'tml_8c'));
        return answer({});
      }),
    ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

    expect(await timelines()).toEqual([]);
    expect(await database.prisma.idempotencyKey.count()).toBe(0);
    // The account's queue was let go: the next unit runs.
    await addTimeline('tml_after');
    expect(await timelines()).toEqual(['tml_after']);
  });

  it('keeps a refused unit out of it: a later unit writes with the answer', async () => {
    const keyed = await answerOnce('k9', async () => {
      await boundary.exclusive('acc_1', () => Promise.reject(new Error('refused'))).catch(() => undefined);
      await addTimeline('tml_9');
      return answer({ refused: true });
    });

    expect(keyed).toEqual({ outcome: 'answered', response: sent({ refused: true }) });
    expect(await timelines()).toEqual(['tml_9']);
  });
});
