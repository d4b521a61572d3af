import fc from 'fast-check';
import { instantAt, parseDateTime } from '../../../src/core/domain/date-time';
import { formatDateTime } from '../../../src/core/domain/date-time-format';
import { TimeOutOfRange } from '../../../src/core/domain/errors';

describe('parseDateTime', () => {
  it.each([
    ['2030-01-01T12:00:00Z', '2030-01-01T12:00:00.000Z'],
    ['2030-01-01t12:00:00z', '2030-01-01T12:00:00.000Z'],
    ['1969-07-20T20:17:40Z', '1969-07-20T20:17:40.000Z'],
    ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
  ])('reads %s as the instant %s', (text, expected) => {
    expect(parseDateTime(text)?.toISOString()).toBe(expected);
  });

  it.each([
    ['2030-01-01T14:00:00+02:00', '2030-01-01T12:00:00.000Z'],
    ['2030-01-01T07:30:00-04:30', '2030-01-01T12:00:00.000Z'],
    ['2030-01-01T00:30:00+01:00', '2029-12-31T23:30:00.000Z'],
  ])('converts the offset of %s to UTC', (text, expected) => {
    expect(parseDateTime(text)?.toISOString()).toBe(expected);
  });

  it.each([
    ['2030-01-01T12:00:00.999Z', '2030-01-01T12:00:00.000Z'],
    ['2030-01-01T12:00:00.5Z', '2030-01-01T12:00:00.000Z'],
    ['2030-01-01T12:00:00.123456789+01:00', '2030-01-01T11:00:00.000Z'],
  ])('truncates the fraction of %s to whole seconds', (text, expected) => {
    expect(parseDateTime(text)?.toISOString()).toBe(expected);
  });

  it.each([
    ['Feb 30', '2030-02-30T00:00:00Z'],
    ['Feb 29 of a common year', '2031-02-29T00:00:00Z'],
    ['April 31', '2030-04-31T00:00:00Z'],
    ['month 13', '2030-13-01T00:00:00Z'],
    ['month 00', '2030-00-10T00:00:00Z'],
    ['day 00', '2030-01-00T00:00:00Z'],
    ['hour 24', '2030-01-01T24:00:00Z'],
    ['minute 60', '2030-01-01T12:60:00Z'],
    ['second 60', '2030-01-01T12:00:60Z'],
    ['year 0000', '0000-01-01T00:00:00Z'],
    ['year 10000', '10000-01-01T00:00:00Z'],
    ['year 0001 pushed before the range by an offset', '0001-01-01T00:30:00+01:00'],
    ['year 9999 pushed past the range by an offset', '9999-12-31T23:30:00-01:00'],
    ['offset hour 24', '2030-01-01T12:00:00+24:00'],
    ['no zone', '2030-01-01T12:00:00'],
    ['date only', '2030-01-01'],
    ['no seconds', '2030-01-01T12:00Z'],
    ['space for T', '2030-01-01 12:00:00Z'],
    ['empty fraction', '2030-01-01T12:00:00.Z'],
    ['ten fraction digits', '2030-01-01T12:00:00.1234567890Z'],
    ['compact offset', '2030-01-01T12:00:00+0200'],
    ['surrounding white space', ' 2030-01-01T12:00:00Z '],
    ['words', 'tomorrow'],
    ['empty text', ''],
  ])('refuses %s', (_label, text) => {
    expect(parseDateTime(text)).toBeNull();
  });
});

describe('formatDateTime', () => {
  it('writes the spec form without milliseconds', () => {
    expect(formatDateTime(new Date('2030-01-01T12:00:00.789Z'))).toBe('2030-01-01T12:00:00Z');
  });

  it('writes four-digit years at both ends of the range', () => {
    expect(formatDateTime(new Date('0001-01-01T00:00:00Z'))).toBe('0001-01-01T00:00:00Z');
    expect(formatDateTime(new Date('9999-12-31T23:59:59Z'))).toBe('9999-12-31T23:59:59Z');
  });

  it('writes every instant as toISOString does, cut to whole seconds', () => {
    const anyInstant = fc.date({
      min: new Date('-009999-01-01T00:00:00Z'),
      max: new Date('+019999-12-31T23:59:59.999Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(anyInstant, (instant) => {
        expect(formatDateTime(instant)).toBe(`${instant.toISOString().slice(0, -5)}Z`);
      }),
      { numRuns: 5_000 },
    );
  });

  it('round-trips through parseDateTime', () => {
    const text = '1969-07-20T20:17:40Z';
    const parsed = parseDateTime(text);
    expect(parsed && formatDateTime(parsed)).toBe(text);
  });
});

describe('instantAt', () => {
  it('builds an instant inside the range', () => {
    expect(instantAt(Date.UTC(2030, 0, 1)).toISOString()).toBe('2030-01-01T00:00:00.000Z');
  });

  it('accepts the last millisecond of year 9999', () => {
    expect(instantAt(Date.UTC(9999, 11, 31, 23, 59, 59, 999)).getUTCFullYear()).toBe(9999);
  });

  it.each([
    ['one millisecond after year 9999', Date.UTC(10000, 0, 1)],
    ['one millisecond before year 0001', new Date('0001-01-01T00:00:00Z').getTime() - 1],
    ['beyond any calendar', 8.64e15 + 1],
    ['not a number', Number.NaN],
  ])('refuses %s with TimeOutOfRange', (_label, ms) => {
    expect(() => instantAt(ms)).toThrow(TimeOutOfRange);
  });
});
