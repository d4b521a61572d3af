// The event listing (monitor-events, scan-events, GET /events) walks two indexes in order and merges
// them: no scan of the account's events, no de-duplication, no sort of the page; so does the
// listing of a range at every place (monitor-paradox), by time and manipulation. Issue #6's p50
// target on a million events rests on that plan (docs/performance.md), so it is read here off
// PostgreSQL's own EXPLAIN, for each form of the statement, planned for the values given (as a
// statement's first runs are) and generically (as the service's prepared statement may be after
// five). Needs a server (DATABASE_URL): the seed writes through a connection of its own, which the
// in-memory PGlite (one connection) cannot take beside the test's.
import type { Statement } from '../../../src/infrastructure/persistence/postgres/kysely';
import {
  EVERY_VERSION,
  IN_RANGE,
  LISTINGS,
} from '../../../src/infrastructure/persistence/postgres/statements/event-listing';
import { textDigest } from '../../../src/infrastructure/persistence/postgres/text-digest';
import { flatten, planOf as planned, seededForPlans } from '../../support/query-plan';

jest.setTimeout(60_000);

const ACCOUNT = 'acc_1';
/** Twenty events at each of the seed's thousand places: enough for the planner to prefer an index. */
const EVENTS = 20_000;

/** Account, the place's digest, a range holding the place's events, the page size. */
const LISTING = {
  accountId: ACCOUNT,
  placeKey: textDigest('Observatory 417'),
  start: new Date('1900-01-01T00:00:00Z'),
  end: new Date('1910-01-01T00:00:00Z'),
  limit: 101,
  upTo: EVERY_VERSION,
};
const CURSOR = { afterTime: new Date('1900-06-01T00:00:00Z'), afterId: 'evt_' };

interface Form {
  readonly name: string;
  readonly text: string;
  /** Each parameter's type and value, in the order of the text's `$n`. */
  readonly types: string[];
  readonly values: string[];
}

/** A form of a statement with an input it takes; the parameters typed as the values they are given. */
function form<I>(name: string, statement: Statement<I, unknown>, input: NoInfer<I>): Form {
  const values = statement.values(input);
  return {
    name,
    text: statement.text,
    types: values.map((value) =>
      value instanceof Date
        ? 'timestamptz'
        : typeof value === 'number'
          ? 'int'
          : value === EVERY_VERSION
            ? 'bigint'
            : 'text',
    ),
    values: values.map((value) => (value instanceof Date ? value.toISOString() : String(value))),
  };
}

const FORMS = [
  form("on the traveller's timeline", LISTINGS.onTraveller, LISTING),
  form("on the traveller's timeline, paged on", LISTINGS.onTravellerAfter, { ...LISTING, ...CURSOR }),
  form('on a timeline named', LISTINGS.onNamed, { ...LISTING, timelineId: 'primary' }),
  form('on a timeline named, paged on', LISTINGS.onNamedAfter, { ...LISTING, ...CURSOR, timelineId: 'primary' }),
];

describe('the event listing plan', () => {
  let seeded: Awaited<ReturnType<typeof seededForPlans>>;

  beforeAll(async () => {
    seeded = await seededForPlans(ACCOUNT, EVENTS);
  });
  afterAll(() => seeded?.close());

  describe.each(['force_custom_plan', 'force_generic_plan'])('planned with %s', (mode) => {
    it.each(FORMS)(
      '$name: an ordered walk of the two search indexes, merged, nothing sorted but the one row naming the timeline',
      async (listing) => {
        const nodes = flatten(await planOf(mode, listing));
        const eventReads = nodes.filter((node) => node['Relation Name'] === 'events');

        expect(eventReads.map((node) => [node['Node Type'], node['Index Name']])).toEqual([
          ['Index Scan', 'events_account_id_timeline_id_location_key_time_id_idx'],
          ['Index Scan', 'events_account_id_timeline_id_description_key_time_id_idx'],
        ]);
        expect(nodes.map((node) => node['Node Type'])).toContain('Merge Append');
        expect(nodes.filter((node) => ['Aggregate', 'Unique', 'Hash', 'SetOp'].includes(node['Node Type']))).toEqual(
          [],
        );
        for (const sort of nodes.filter((node) => node['Node Type'] === 'Sort')) {
          expect(flatten(sort).filter((node) => node['Relation Name'] === 'events')).toEqual([]);
        }
      },
    );
  });

  const RANGE = {
    accountId: ACCOUNT,
    timelineId: 'primary',
    start: new Date('1900-01-01T00:00:00Z'),
    end: new Date('1910-01-01T00:00:00Z'),
    limit: 101,
  };
  const RANGE_FORMS = [
    form('the first page', IN_RANGE.first, RANGE),
    form('paged on', IN_RANGE.pagedOn, { ...RANGE, afterTime: new Date('1905-06-01T00:00:00Z'), afterId: 'evt_' }),
    form('paged on from before the range', IN_RANGE.fromBefore, {
      ...RANGE,
      afterTime: new Date('1800-06-01T00:00:00Z'),
      afterId: 'evt_',
    }),
  ];

  describe.each(['force_custom_plan', 'force_generic_plan'])('a range at every place, planned with %s', (mode) => {
    it.each(RANGE_FORMS)(
      '$name: an ordered walk of the index by time, merged with the moved-out events, nothing else sorted',
      async (listing) => {
        const nodes = flatten(await planOf(mode, listing));

        expect(nodes.filter((node) => node['Relation Name'] === 'events').map((node) => node['Index Name'])).toEqual([
          'events_account_id_timeline_id_time_id_idx',
          'events_manipulated_by_original_time',
          'events_pkey',
        ]);
        expect(nodes.map((node) => node['Node Type'])).toContain('Merge Append');
        for (const sort of nodes.filter((node) => node['Node Type'] === 'Sort')) {
          expect(flatten(sort).map((node) => node['Index Name'])).not.toContain(
            'events_account_id_timeline_id_time_id_idx',
          );
        }
      },
    );
  });

  function planOf(mode: string, { text, types, values }: Form) {
    return planned(seeded.client, { text, values, types, mode });
  }
});
