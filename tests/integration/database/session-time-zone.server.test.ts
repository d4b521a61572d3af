// Instants are stored exactly on a PostgreSQL server whose default time zone is not UTC: the driver
// sends a Date without its offset, so every session of the service must run in UTC. Needs a server
// (DATABASE_URL): the zone is the database's default, which an in-memory PGlite does not take.
import { Client } from 'pg';
import { plainRepositories } from '../../support/plain-repositories';
import { PostgresTransactionBoundary } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { anEvent } from '../../support/builders/event-builder';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { givenAccounts } from '../../support/contracts/subject';
import { connectToTestDatabase, provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

const INSTANT = new Date('2030-01-01T12:00:00.123Z');
const ZONE = 'Asia/Kathmandu';

describe('a database whose default time zone is not UTC', () => {
  let owner: TestDatabase;
  let service: TestDatabase;
  let plain: Client;

  beforeAll(async () => {
    owner = await provisionTestDatabase();
    const name = new URL(owner.connectionString).pathname.slice(1);
    await owner.prisma.$executeRawUnsafe(`ALTER DATABASE "${name}" SET timezone TO '${ZONE}'`);
    service = connectToTestDatabase(owner);
    plain = new Client({ connectionString: owner.connectionString });
    await plain.connect();
  });
  afterAll(async () => {
    await plain?.end();
    await service?.close();
    await owner?.close();
  });

  /** Seconds since the epoch as PostgreSQL holds them, whatever a session's zone shows. */
  const storedEpoch = async (sql: string) =>
    Number((await plain.query<{ epoch: string }>(`SELECT extract(epoch FROM (${sql}))::text AS epoch`)).rows[0]?.epoch);

  it('is what other sessions see (so the test would fail without the fix)', async () => {
    expect((await plain.query<{ zone: string }>("SELECT current_setting('TimeZone') AS zone")).rows[0]?.zone).toBe(
      ZONE,
    );
  });

  it('stores the instants that Prisma writes and the unit of work writes exactly', async () => {
    const repos = plainRepositories(service);
    await givenAccounts(repos, 'acc_1');
    await repos.travellers.add(aPausedTraveller('acc_1', INSTANT, INSTANT));
    const boundary = new PostgresTransactionBoundary(service, new KeyedRequests(service.sql));
    await boundary.exclusive('acc_1', (inside) => inside.events.add(anEvent({ id: 'evt_1', time: INSTANT })));
    await service.prisma.serviceSecret.create({ data: { name: 'probe', value: 'x', createdAt: INSTANT } });

    expect(await storedEpoch("SELECT clock_reading FROM travellers WHERE account_id = 'acc_1'")).toBe(
      INSTANT.getTime() / 1000,
    );
    expect(await storedEpoch("SELECT time FROM events WHERE id = 'evt_1'")).toBe(INSTANT.getTime() / 1000);
    expect(await storedEpoch("SELECT created_at FROM service_secrets WHERE name = 'probe'")).toBe(
      INSTANT.getTime() / 1000,
    );
    expect((await repos.events.findForAccount('acc_1', 'evt_1'))?.time).toEqual(INSTANT);
  });
});
