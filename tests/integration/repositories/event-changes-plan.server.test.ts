// A stream's read of the changes after its position (statements/event-changes.ts) starts from that
// position in the index of events by account, version and id, and reads on from there: never the
// place's whole history, however many events the place holds. Read off PostgreSQL's EXPLAIN, planned
// for the values given: the feed sends the statement unprepared, since a generic plan, which cannot
// know that the position is recent, walks the place's events instead (postgres/event-feed.ts).
// Needs a server (DATABASE_URL): the seed writes through a connection of its own.
import { EVENT_CHANGES } from '../../../src/infrastructure/persistence/postgres/statements/event-changes';
import { textDigest } from '../../../src/infrastructure/persistence/postgres/text-digest';
import { flatten, planOf, seededForPlans } from '../../support/query-plan';

jest.setTimeout(60_000);

const ACCOUNT = 'acc_1';
const EVENTS = 20_000;

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
  let seeded: Awaited<ReturnType<typeof seededForPlans>>;

  beforeAll(async () => {
    seeded = await seededForPlans(ACCOUNT, EVENTS);
    // A history of one write per event, as a traveller recording one event per unit of work leaves.
    await seeded.client.query(
      `UPDATE events SET account_version = ('x' || right(id, 8))::bit(32)::bigint WHERE account_id = $1`,
      [ACCOUNT],
    );
    await seeded.client.query('VACUUM ANALYZE events');
  });
  afterAll(() => seeded?.close());

  describe('planned for its values', () => {
    it.each(FORMS)('$name: one index range from the position on, the rest a filter', async ({ input }) => {
      const plan = await planOf(seeded.client, {
        text: EVENT_CHANGES.text,
        values: EVENT_CHANGES.values(input),
        mode: 'force_custom_plan',
      });
      const nodes = flatten(plan);
      const eventReads = nodes.filter((node) => node['Relation Name'] === 'events');
      expect(eventReads.map((node) => [node['Node Type'], node['Index Name']])).toEqual([
        ['Index Scan', 'events_account_id_account_version_id_idx'],
      ]);
      expect(eventReads[0]?.['Index Cond']).toContain('account_version >=');
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
    });
  });

  it('answers the changes after the position, in the order written', async () => {
    const { rows } = await seeded.client.query<{ version: string }>(
      EVENT_CHANGES.text,
      EVENT_CHANGES.values({ ...INPUT, afterVersion: '0', afterId: null, placeKey: textDigest('Observatory 417') }),
    );
    const versions = rows.map((row) => BigInt(row.version));
    expect(versions.length).toBeGreaterThan(0);
    expect(versions).toEqual([...versions].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
  });
});
