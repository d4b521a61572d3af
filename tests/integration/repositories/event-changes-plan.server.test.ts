// A stream's read of the changes after its position (statements/event-changes.ts) starts from that
// position in the index of events by account, version and id, and reads on from there: never the
// place's whole history, however many events the place holds. Read off PostgreSQL's EXPLAIN, planned
// for the values given: the feed sends the statement unprepared, since a generic plan, which cannot
// know that the position is recent, walks the place's events instead (postgres/event-feed.ts).
// Needs a server (DATABASE_URL): the seed writes through a connection of its own.
import { Client } from 'pg';
import { EVENT_CHANGES } from '../../../src/infrastructure/persistence/postgres/statements/event-changes';
import { plainRepositories } from '../../../src/infrastructure/persistence/postgres/repositories';
import { textDigest } from '../../../src/infrastructure/persistence/postgres/text-digest';
import { seedEvents } from '../../../scripts/bench/seed';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { thePrimaryTimeline } from '../../support/builders/timeline-builder';
import { givenAccounts } from '../../support/contracts/subject';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(60_000);

const ACCOUNT = 'acc_1';
const EVENTS = 20_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

const INPUT = {
  accountId: ACCOUNT,
  timelineId: 'primary',
  placeKey: textDigest('Observatory 417'),
  start: new Date('1900-01-01T00:00:00Z'),
  end: new Date('2100-01-01T00:00:00Z'),
  limit: 100,
};
const FORMS = [
  { name: 'after a whole version', input: { ...INPUT, afterVersion: String(EVENTS - 10), afterId: null } },
  { name: 'within a version', input: { ...INPUT, afterVersion: String(EVENTS - 10), afterId: 'evt_' } },
];

describe('the plan of a stream reading changes', () => {
  let database: TestDatabase;
  let client: Client;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    const repos = plainRepositories(database);
    await givenAccounts(repos, ACCOUNT);
    await repos.travellers.add(aPausedTraveller(ACCOUNT, new Date('1969-07-20T20:17:40.000Z')));
    await repos.timelines.add(thePrimaryTimeline());
    await seedEvents(database.connectionString, ACCOUNT, { events: EVENTS, checkpoint: false });
    client = new Client({ connectionString: database.connectionString });
    await client.connect();
    // A history of one write per event, as a traveller recording one event per unit of work leaves.
    await client.query(
      `UPDATE events SET account_version = ('x' || right(id, 8))::bit(32)::bigint WHERE account_id = $1`,
      [ACCOUNT],
    );
    await client.query('VACUUM ANALYZE events');
  });
  afterAll(async () => {
    await client?.end();
    await database?.close();
  });

  describe('planned for its values', () => {
    it.each(FORMS)('$name: one index range from the position on, the rest a filter', async ({ input }) => {
      const nodes = flatten(await planOf(EVENT_CHANGES.text, EVENT_CHANGES.values(input)));
      const eventReads = nodes.filter((node) => node['Relation Name'] === 'events');
      expect(eventReads.map((node) => [node['Node Type'], node['Index Name']])).toEqual([
        ['Index Scan', 'events_account_id_account_version_id_idx'],
      ]);
      expect(eventReads[0]?.['Index Cond']).toContain('account_version >=');
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
    });
  });

  it('answers the changes after the position, in the order written', async () => {
    const { rows } = await client.query<{ version: string }>(
      EVENT_CHANGES.text,
      EVENT_CHANGES.values({ ...INPUT, afterVersion: '0', afterId: null, placeKey: textDigest('Observatory 417') }),
    );
    const versions = rows.map((row) => BigInt(row.version));
    expect(versions.length).toBeGreaterThan(0);
    expect(versions).toEqual([...versions].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  });

  async function planOf(text: string, values: unknown[]): Promise<PlanNode> {
    await client.query('SET plan_cache_mode = force_custom_plan');
    const statement = `changes_${Math.random().toString(36).slice(2)}`;
    // Parameter types as PostgreSQL infers them, as for the service's own prepared statements.
    await client.query(`PREPARE ${statement} AS ${text}`);
    const literals = values
      .map((value) =>
        value === null ? 'NULL' : client.escapeLiteral(value instanceof Date ? value.toISOString() : String(value)),
      )
      .join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) EXECUTE ${statement}(${literals})`,
    );
    await client.query(`DEALLOCATE ${statement}`);
    return rows[0]['QUERY PLAN'][0].Plan;
  }
});

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}
