// A keyed request of this release meeting one of an earlier release, which claimed its key in a
// statement of its own before acting, then wrote with its answer in a statement gated on that claim:
// the claim's row locked first, the traveller second, the reverse of this release's order.
// Needs a server (DATABASE_URL): the earlier release's statement holds its locks in a session of its
// own while this release's statement runs.
import { Client } from 'pg';
import type { StoredResponse } from '../../../src/core/ports/idempotency-store';
import type { Repositories } from '../../../src/core/ports/repositories';
import { PostgresIdempotencyStore } from '../../../src/infrastructure/persistence/postgres/idempotency-store';
import { plainRepositories } from '../../support/plain-repositories';
import { PostgresTransactionBoundary } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { aTimeline } from '../../support/builders/timeline-builder';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { givenAccounts } from '../../support/contracts/subject';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { waitFor } from '../../support/wait-for';

/** Keeps every answer: the rule of which are kept is not what these tests are about. */
const keepEvery = () => Promise.resolve(null);

jest.setTimeout(30_000);

const NOW = new Date('2030-01-01T12:00:00Z');
const EARLIER_ANSWER: StoredResponse = { status: 201, body: { id: 'tml_earlier' }, headers: {} };

describe('a keyed request meeting the claim of an earlier release', () => {
  let database: TestDatabase;
  let repos: Repositories;
  let earlier: Client;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    repos = plainRepositories(database);
    await givenAccounts(repos, 'acc_1');
    await repos.travellers.add(aPausedTraveller('acc_1', '1969-07-20T20:17:40Z', NOW));
    earlier = new Client({ connectionString: database.connectionString });
    await earlier.connect();
  });
  afterAll(async () => {
    await earlier.end();
    await database.close();
  });

  const timelines = async () =>
    (await repos.timelines.listForAccount('acc_1', { limit: 100, after: null })).map((timeline) => timeline.id).sort();
  /** Statements of this database's other sessions waiting for a lock. */
  const waitingForLocks = async () => {
    const { rows } = await earlier.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
    );
    return rows[0]?.waiting ?? 0;
  };

  it('acts once when the two statements deadlock: this release runs again, then replays the answer', async () => {
    const keyed = new KeyedRequests(database.sql);
    const boundary = new PostgresTransactionBoundary(database, keyed);
    const store = new PostgresIdempotencyStore(database.prisma, database.sql, keyed, { now: () => NOW });
    // The earlier release's claim, made before it acted.
    await database.prisma.idempotencyKey.create({
      data: { accountId: 'acc_1', key: 'k1', requestDigest: 'digest', createdAt: new Date(NOW.getTime() - 1_000) },
    });
    // Its statement: the claim's row locked first. It looks for the deadlock only after this release
    // has, so that this release's statement is the one PostgreSQL ends.
    await earlier.query(`SET deadlock_timeout = '10s'`);
    await earlier.query('BEGIN');
    await earlier.query(
      `SELECT 1 FROM idempotency_keys WHERE account_id = 'acc_1' AND key = 'k1' AND response_status IS NULL FOR UPDATE`,
    );

    let runs = 0;
    const answering = store.answerOnce(
      'acc_1',
      'k1',
      'digest',
      async () => {
        runs += 1;
        await boundary.exclusive('acc_1', (inside) =>
          inside.timelines.add(aTimeline().withId(`tml_run${runs}`).build()),
        );
        return { status: 201, body: { id: `tml_run${runs}` }, headers: {} };
      },
      keepEvery,
    );
    // This release's statement has locked the traveller and waits for the claim's row.
    await waitFor(async () => (await waitingForLocks()) > 0, { what: 'the statement to wait for the claim' });

    // The earlier release's statement goes on: the traveller, its writes, its answer; then it commits.
    await earlier.query(`UPDATE travellers SET version = version + 1 WHERE account_id = 'acc_1'`);
    await earlier.query(
      `INSERT INTO timelines (account_id, id, name, created_at, status)
       VALUES ('acc_1', 'tml_earlier', 'Earlier', now(), 'active')`,
    );
    await earlier.query(
      `UPDATE idempotency_keys SET response_status = 201, response_body = $1, response_headers = '{}'
        WHERE account_id = 'acc_1' AND key = 'k1'`,
      [JSON.stringify(EARLIER_ANSWER.body)],
    );
    await earlier.query('COMMIT');

    expect(await answering).toEqual({
      outcome: 'replay',
      response: { status: 201, json: JSON.stringify(EARLIER_ANSWER.body), headers: {} },
    });
    expect(await timelines()).toEqual(['tml_earlier']);
    // Ended by the deadlock, then behind the earlier release's traveller, then finding its answer.
    expect(runs).toBeGreaterThanOrEqual(2);
  });
});
