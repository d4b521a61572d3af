// The statements compiled once (src/infrastructure/persistence/postgres/statements): each run fills
// the compiled text's `$n` from named inputs, in the order Kysely numbered them (every occurrence its
// own). Checked without a database: each `$n` is written back as the input that fills it, and the
// text is read where each input goes.
import { MOVED_OUT_SIFTED } from '../../../src/core/domain/paradox';
import type { Statement } from '../../../src/infrastructure/persistence/postgres/kysely';
import { IN_RANGE, LISTINGS } from '../../../src/infrastructure/persistence/postgres/statements/event-listing';
import { READ_KEY } from '../../../src/infrastructure/persistence/postgres/statements/idempotency-keys';
import { RECORD_ATTEMPT } from '../../../src/infrastructure/persistence/postgres/statements/login-throttles';
import { HIT } from '../../../src/infrastructure/persistence/postgres/statements/rate-limit';
import { FIND_TIMELINE } from '../../../src/infrastructure/persistence/postgres/statements/timelines';
import {
  READ_TRAVELLER,
  TRAVELLER_VERSION,
} from '../../../src/infrastructure/persistence/postgres/statements/travellers';
import { SAVE_TRAVELLER } from '../../support/plain-repositories';

interface Case {
  readonly name: string;
  readonly statement: Statement<never, unknown>;
  readonly inputs: readonly string[];
  /** Where the inputs go, written `:input`. */
  readonly reads: readonly string[];
}

const LISTING = ['accountId', 'placeKey', 'start', 'end', 'upTo', 'limit'];
const CURSOR = ['afterTime', 'afterId'];
const LISTING_READS = [
  'from "travellers" where "account_id" = :accountId',
  '"account_id" = :accountId and "timeline_id" = (select "timeline_id" from "here") and "location_key" = :placeKey',
  '("description_key" = :placeKey and "location_key" <> :placeKey) and "time" >= :start and "time" <= :end',
  '"time" <= :end and "account_version" <= :upTo',
  'limit :limit',
];
const NAMED_READS = [
  'from "timelines" where "account_id" = :accountId and "id" = :timelineId',
  ...LISTING_READS.slice(1),
];
const AFTER = '("time", "id") > (:afterTime, :afterId)';
const RANGE = ['accountId', 'timelineId', 'start', 'end', 'limit'];
const RANGE_READS = [
  '"account_id" = :accountId and "timeline_id" = :timelineId and "time" >= :start and "time" <= :end',
  `"original_time" >= :start and "original_time" <= :end order by "original_time", "id" limit ${MOVED_OUT_SIFTED}`,
  'where ("time" < :start or "time" > :end)',
  '"events"."account_id" = :accountId and "events"."id" = "page"."id" limit 1',
  'limit :limit',
];

const CASES: Case[] = [
  { name: 'LISTINGS.onTraveller', statement: LISTINGS.onTraveller, inputs: LISTING, reads: LISTING_READS },
  {
    name: 'LISTINGS.onTravellerAfter',
    statement: LISTINGS.onTravellerAfter,
    inputs: [...LISTING, ...CURSOR],
    reads: [...LISTING_READS, AFTER],
  },
  { name: 'LISTINGS.onNamed', statement: LISTINGS.onNamed, inputs: [...LISTING, 'timelineId'], reads: NAMED_READS },
  {
    name: 'LISTINGS.onNamedAfter',
    statement: LISTINGS.onNamedAfter,
    inputs: [...LISTING, ...CURSOR, 'timelineId'],
    reads: [...NAMED_READS, AFTER],
  },
  { name: 'IN_RANGE.first', statement: IN_RANGE.first, inputs: RANGE, reads: RANGE_READS },
  {
    name: 'IN_RANGE.pagedOn',
    statement: IN_RANGE.pagedOn,
    inputs: [...RANGE, ...CURSOR],
    reads: [...RANGE_READS, `"time" <= :end and ${AFTER} order by`, `("time" < :start or "time" > :end) and ${AFTER}`],
  },
  {
    name: 'IN_RANGE.fromBefore',
    statement: IN_RANGE.fromBefore,
    inputs: [...RANGE, ...CURSOR],
    // The cursor before the range pages on only among the events moved out of it.
    reads: [...RANGE_READS, '"time" <= :end order by', `("time" < :start or "time" > :end) and ${AFTER}`],
  },
  {
    name: 'FIND_TIMELINE',
    statement: FIND_TIMELINE,
    inputs: ['accountId', 'timelineId'],
    reads: ['where "account_id" = :accountId and "id" = :timelineId'],
  },
  {
    name: 'READ_TRAVELLER',
    statement: READ_TRAVELLER,
    inputs: ['accountId'],
    reads: ['where "account_id" = :accountId'],
  },
  {
    name: 'TRAVELLER_VERSION',
    statement: TRAVELLER_VERSION,
    inputs: ['accountId'],
    reads: ['select "version" from "travellers" where "account_id" = :accountId'],
  },
  {
    name: 'SAVE_TRAVELLER',
    statement: SAVE_TRAVELLER,
    inputs: [
      'account_id',
      'clock_reading',
      'clock_read_at',
      'clock_paused',
      'timeline_id',
      'location',
      'journey_travel_id',
    ],
    reads: [
      '"clock_reading" = :clock_reading, "clock_read_at" = :clock_read_at',
      '"version" = version + 1 where "account_id" = :account_id',
    ],
  },
  {
    name: 'HIT',
    statement: HIT,
    inputs: ['key', 'windowStart', 'windowEnd', 'amount'],
    reads: ['("key", "window_start", "window_end", "count") values (:key, :windowStart, :windowEnd, :amount)'],
  },
  {
    name: 'RECORD_ATTEMPT',
    statement: RECORD_ATTEMPT,
    inputs: ['key', 'now', 'windowStartsAfter', 'threshold', 'lockUntil'],
    reads: [
      'values (:key, 1, :now, case when 1 > :threshold then :lockUntil::timestamptz end)',
      'when "login_throttles"."locked_until" > :now then "login_throttles"."failures" ' +
        'when "login_throttles"."window_started_at" <= :windowStartsAfter then 1',
      'when "login_throttles"."window_started_at" <= :windowStartsAfter then :now',
      '"login_throttles"."window_started_at" > :windowStartsAfter and "login_throttles"."failures" + 1 > :threshold) ' +
        'then :lockUntil',
    ],
  },
  {
    name: 'READ_KEY',
    statement: READ_KEY,
    inputs: ['accountId', 'key'],
    reads: ['where "account_id" = :accountId and "key" = :key'],
  },
];

describe('statements compiled once', () => {
  it.each(CASES)('$name: numbers its parameters $1 to $n, n the values it sends', ({ statement, inputs }) => {
    const values = statement.values(named(inputs));
    const numbers = [...statement.text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1]));

    expect(values.length).toBeGreaterThan(0);
    expect(Math.max(...numbers)).toBe(values.length);
    expect(new Set(numbers)).toEqual(new Set(values.map((_, at) => at + 1)));
  });

  it.each(CASES)(
    '$name: fills each parameter from one of its inputs, and takes every input',
    ({ statement, inputs }) => {
      const values = statement.values(named(inputs));

      for (const value of values) expect(inputs.map((input) => `:${input}`)).toContain(value);
      expect(new Set(values)).toEqual(new Set(inputs.map((input) => `:${input}`)));
    },
  );

  it.each(CASES)('$name: fills each parameter with the input the text reads there', ({ statement, inputs, reads }) => {
    const values = statement.values(named(inputs));
    const text = statement.text.replace(/\$(\d+)/g, (_, at: string) => String(values[Number(at) - 1]));

    for (const read of reads) expect(text).toContain(read);
  });
});

/** An input whose every value is its name: `{ accountId: ':accountId' }`. */
function named(inputs: readonly string[]): never {
  return Object.fromEntries(inputs.map((input) => [input, `:${input}`])) as never;
}
