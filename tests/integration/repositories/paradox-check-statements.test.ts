// A paradox check on PostgreSQL (or PGlite without DATABASE_URL): what its verdict rests on is one
// statement, which agrees with itself, so a check needs no version of the account read around its
// reads; the timeline is read beside it, at once (docs/paradoxes.md#one-statement).
import type { ProposedChange } from '../../../src/core/domain/paradox';
import { CheckParadox } from '../../../src/core/use-cases/paradoxes/check-paradox';
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';
import { PARADOX_FACTS } from '../../../src/infrastructure/persistence/postgres/statements/paradox-tallies';
import { PostgresTransactionBoundary } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { anEvent } from '../../support/builders/event-builder';
import { aTimeline } from '../../support/builders/timeline-builder';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { givenAccounts } from '../../support/contracts/subject';
import { plainRepositories } from '../../support/plain-repositories';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

/** 100 names proposed, each at a time of its own: a crowd's check (scripts/bench/crowd.ts). */
const HUNDRED_NAMES: ProposedChange[] = Array.from({ length: 100 }, (_, n) => ({
  kind: 'event',
  event: `Sighting ${n}`,
  time: new Date(Date.UTC(1900, 0, 1) + n * 3_600_000),
}));

let database: TestDatabase;
/** What the check sent, in order: each statement as it went, and when its answer came. */
let log: string[];

beforeAll(async () => {
  database = await provisionTestDatabase();
  const repos = plainRepositories(database);
  await givenAccounts(repos, 'acc_1');
  await repos.travellers.add(aPausedTraveller());
  await repos.timelines.add(aTimeline().withId('tml_1').build());
  await repos.events.add(anEvent({ id: 'evt_1', description: 'Sighting 7' }));
});
afterAll(() => database.close());

function aCheck(): CheckParadox {
  const sql: SqlRunner = {
    query: async <T>(text: string, values: readonly unknown[], options?: object) => {
      const name =
        text === PARADOX_FACTS.withNames.ofTimeline.text || text === PARADOX_FACTS.withoutNames.ofTimeline.text
          ? 'facts'
          : 'other';
      log.push(`sent ${name}`);
      const rows = await database.sql.query<T>(text, values, options);
      log.push(`answered ${name}`);
      return rows;
    },
  };
  log = [];
  return new CheckParadox(new PostgresTransactionBoundary({ prisma: database.prisma, sql }, new KeyedRequests(sql)));
}

it('reads a 100-name check in two statements sent at once, the timeline and the facts', async () => {
  const report = await aCheck().execute({ accountId: 'acc_1', timelineId: 'tml_1', proposedChanges: HUNDRED_NAMES });
  // Sighting 7 is recorded at another time than proposed: the facts were read.
  expect(report.reasons.map((reason) => reason.event)).toEqual(['Sighting 7']);
  expect(log).toHaveLength(4);
  expect(log.slice(0, 2).sort()).toEqual(['sent facts', 'sent other']);
});

it("reads a significant event in a snapshot: the account's version before and after", async () => {
  const report = await aCheck().execute({ accountId: 'acc_1', timelineId: 'tml_1', significantEvent: 'sighting 7' });
  expect(report.significantEvent?.id).toBe('evt_1');
  // The version, then the timeline, the facts (and the event by id, through Prisma's client) at
  // once, then the version again.
  expect(log.filter((line) => line.startsWith('sent'))).toHaveLength(4);
  expect(log.slice(2, 4).sort()).toEqual(['sent facts', 'sent other']);
  expect(log.slice(0, 2)).toEqual(['sent other', 'answered other']);
  expect(log.slice(-2)).toEqual(['sent other', 'answered other']);
});
