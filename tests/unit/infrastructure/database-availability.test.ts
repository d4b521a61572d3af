// One line per change of the database's state, and a full disk's and a standby's own lines, each
// written again only while its refusals go on.
import pino from 'pino';
import {
  DatabaseAvailability,
  REFUSALS_LINE_EVERY_MS,
} from '../../../src/infrastructure/database/health/database-availability';

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

const WARN = 40;
const INFO = 30;

function logged(): { lines: Line[]; logger: pino.Logger } {
  const lines: Line[] = [];
  return {
    lines,
    logger: pino({ base: null, timestamp: false }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
  };
}

/** node-postgres' error for a write that could not grow its file. */
const diskFull = Object.assign(new Error('could not extend file "base/5/16488": No space left on device'), {
  code: '53100',
});

/** node-postgres' error for a write on a standby. */
const readOnly = Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' });

beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-27T10:00:00Z') }));
afterEach(() => jest.useRealTimers());

it('logs an outage once when it starts and once when the database answers again', () => {
  const { lines, logger } = logged();
  const availability = new DatabaseAvailability(logger);
  availability.lost(
    'connect ECONNREFUSED 127.0.0.1:5432',
    Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
  );
  availability.lost('connect ECONNREFUSED 127.0.0.1:5432');
  expect(availability.available).toBe(false);
  jest.advanceTimersByTime(1500);
  availability.answered();
  availability.answered();

  expect(availability.available).toBe(true);
  expect(availability.outages).toBe(1);
  expect(lines).toEqual([
    {
      level: WARN,
      reason: 'connect ECONNREFUSED 127.0.0.1:5432',
      msg: 'database unavailable: requests that need it are answered 503 until it answers again',
    },
    { level: INFO, unavailable_ms: 1500, msg: 'database available again' },
  ]);
});

it('gives a full disk one line, not an outage that ends at every read, and repeats it while refusals go on', () => {
  const { lines, logger } = logged();
  const availability = new DatabaseAvailability(logger);
  for (let i = 0; i < 5; i += 1) {
    availability.lost('could not extend file', diskFull);
    // Reads still answer between the refused writes.
    availability.answered();
    jest.advanceTimersByTime(1000);
  }

  expect(availability.available).toBe(true);
  expect(availability.outages).toBe(0);
  expect(availability.diskFullRefusals).toBe(5);
  expect(lines).toEqual([
    {
      level: WARN,
      reason: 'could not extend file',
      refused_since_last_line: 0,
      msg: 'database disk full: writes that need room are answered 503 until there is room; reads still answer',
    },
  ]);

  jest.advanceTimersByTime(REFUSALS_LINE_EVERY_MS);
  availability.lost('could not extend file', diskFull);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatchObject({ reason: 'could not extend file', refused_since_last_line: 4 });
  expect(availability.diskFullRefusals).toBe(6);
});

it('gives a standby one line of its own, not an outage per write, and repeats it while refusals go on', () => {
  const { lines, logger } = logged();
  const availability = new DatabaseAvailability(logger);
  for (let i = 0; i < 3; i += 1) {
    availability.lost('cannot execute INSERT in a read-only transaction', readOnly);
    availability.answered();
    jest.advanceTimersByTime(1000);
  }

  expect([availability.available, availability.outages, availability.diskFullRefusals]).toEqual([true, 0, 0]);
  expect(availability.readOnlyRefusals).toBe(3);
  expect(lines).toEqual([
    {
      level: WARN,
      reason: 'cannot execute INSERT in a read-only transaction',
      refused_since_last_line: 0,
      msg:
        'database read-only (a standby, in recovery): writes are answered 503 until DATABASE_URL leads to ' +
        'the primary',
    },
  ]);

  jest.advanceTimersByTime(REFUSALS_LINE_EVERY_MS);
  availability.lost('cannot execute UPDATE in a read-only transaction', readOnly);
  expect(lines[1]).toMatchObject({
    reason: 'cannot execute UPDATE in a read-only transaction',
    refused_since_last_line: 2,
  });
});

it('counts statements stopped at their bound by reason, with no line and no outage', () => {
  const { lines, logger } = logged();
  const availability = new DatabaseAvailability(logger);
  availability.timedOut('statement_timeout');
  availability.timedOut('statement_timeout');
  availability.timedOut('lock_timeout');

  expect(Object.fromEntries(availability.timeouts)).toEqual({ statement_timeout: 2, lock_timeout: 1 });
  expect([availability.available, availability.outages, lines]).toEqual([true, 0, []]);
});
