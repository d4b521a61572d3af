// The OpenAPI document states each field's shape as a pattern (validation/patterns.ts); the service
// checks it with its own validator. A request the document accepts must not be refused as invalid,
// and the other way round, but for the rules a pattern cannot say, named here one by one.
import fc from 'fast-check';
import { parseDateTime } from '../../../src/core/domain/date-time';
import { TimeRange } from '../../../src/core/domain/time-range';
import { encodeCursor } from '../../../src/interfaces/http/cursor';
import { acceptedBy, parseWindow } from '../../../src/interfaces/http/validation/decorators';
import {
  CURSOR_PATTERN,
  DATE_TIME_PATTERN,
  TIME_RANGE_PATTERN,
  WINDOW_PATTERN,
} from '../../../src/interfaces/http/validation/patterns';

const RUNS = { numRuns: 2_000 };

/** Text near the pattern's: what it generates, cut, stretched or with a character changed. */
function nearby(pattern: string): fc.Arbitrary<string> {
  const matching = fc.stringMatching(new RegExp(pattern));
  return fc.oneof(
    matching,
    fc.tuple(matching, fc.nat(), fc.string({ maxLength: 3 })).map(([text, at, inserted]) => {
      const cut = at % (text.length + 1);
      return text.slice(0, cut) + inserted + text.slice(cut + 1);
    }),
    fc.string({ maxLength: 40 }),
  );
}

/**
 * What a date-time pattern cannot say, computed apart from parseDateTime: the day exists in its
 * month, and the instant, once its offset is applied, lies in years 0001 to 9999.
 */
function notAMomentOfTheSpan(text: string): boolean {
  const [, year, month, day, hour, minute, second, offset] =
    /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(.*)$/.exec(text.trim()) ?? [];
  const daysInMonth = new Date(Date.UTC(2000, Number(month), 0)).getUTCDate();
  const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = Number(month) === 2 ? (leap(Number(year)) ? 29 : 28) : daysInMonth;
  if (Number(day) > days) return true;
  const sign = offset?.startsWith('-') ? -1 : 1;
  const [offsetHours = 0, offsetMinutes = 0] = /^[Zz]$/.test(offset ?? '')
    ? []
    : (offset ?? '').slice(1).split(':').map(Number);
  const utc = new Date(0);
  utc.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  utc.setUTCHours(Number(hour), Number(minute) - sign * (offsetHours * 60 + offsetMinutes), Number(second));
  return utc.getUTCFullYear() < 1 || utc.getUTCFullYear() > 9999;
}

const matches = (pattern: string) => (text: string) => new RegExp(pattern).test(text);

describe('each field pattern of the OpenAPI document says what its validator accepts', () => {
  it('date-time: what the pattern takes is taken, but a day past its month or an instant outside 0001-9999', () => {
    const accepts = (text: string) => parseDateTime(text) !== null;
    fc.assert(
      fc.property(nearby(DATE_TIME_PATTERN), (text) => {
        if (accepts(text)) expect(matches(DATE_TIME_PATTERN)(text)).toBe(true);
        else if (matches(DATE_TIME_PATTERN)(text)) expect(notAMomentOfTheSpan(text)).toBe(true);
      }),
      RUNS,
    );
  });

  it('time range: two date-times as above, and the start not after the end', () => {
    const accepts = acceptedBy(TimeRange.parse);
    fc.assert(
      fc.property(nearby(TIME_RANGE_PATTERN), (text) => {
        if (accepts(text)) expect(matches(TIME_RANGE_PATTERN)(text)).toBe(true);
        else if (matches(TIME_RANGE_PATTERN)(text)) {
          const [start = '', end = ''] = text.split('/');
          const startsAfterEnd = () => Date.parse(start.trim()) > Date.parse(end.trim());
          expect(notAMomentOfTheSpan(start) || notAMomentOfTheSpan(end) || startsAfterEnd()).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('window: exactly', () => {
    fc.assert(
      fc.property(nearby(WINDOW_PATTERN), (text) => {
        expect(parseWindow(text) !== null).toBe(matches(WINDOW_PATTERN)(text));
      }),
      RUNS,
    );
  });

  it('cursor: what the service wrote is base64url text, which the pattern takes', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), fc.stringMatching(/^[a-z]{3}_[0-9a-f]{32}$/), (at, id) => {
        expect(matches(CURSOR_PATTERN)(encodeCursor(at, id))).toBe(true);
      }),
      RUNS,
    );
  });
});
