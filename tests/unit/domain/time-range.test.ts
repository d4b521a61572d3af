import { InvalidTimeRange } from '../../../src/core/domain/errors';
import { TimeRange } from '../../../src/core/domain/time-range';

describe('TimeRange.parse', () => {
  it('reads two UTC date-times separated by a slash', () => {
    const range = TimeRange.parse('1969-07-20T20:00:00Z/1969-07-21T03:00:00Z');
    expect(range.start).toEqual(new Date('1969-07-20T20:00:00Z'));
    expect(range.end).toEqual(new Date('1969-07-21T03:00:00Z'));
  });

  it('converts offsets to UTC', () => {
    const range = TimeRange.parse('2030-01-01T14:00:00+02:00/2030-01-01T13:00:00+00:00');
    expect([range.start, range.end]).toEqual([new Date('2030-01-01T12:00:00Z'), new Date('2030-01-01T13:00:00Z')]);
  });

  it('allows a range of one instant (start equal to end)', () => {
    const range = TimeRange.parse('2030-01-01T12:00:00Z/2030-01-01T12:00:00Z');
    expect(range.start).toEqual(range.end);
    expect(range.contains(new Date('2030-01-01T12:00:00Z'))).toBe(true);
  });

  it.each([
    ['start after end', '2030-01-02T00:00:00Z/2030-01-01T00:00:00Z'],
    ['start one second after end', '2030-01-01T00:00:01Z/2030-01-01T00:00:00Z'],
  ])('refuses %s with InvalidTimeRange', (_label, text) => {
    expect(() => TimeRange.parse(text)).toThrow(InvalidTimeRange);
    expect(() => TimeRange.parse(text)).toThrow(/start is after its end/);
  });

  it.each([
    ['a missing slash', '2030-01-01T00:00:00Z'],
    ['three parts', '2030-01-01T00:00:00Z/2030-01-02T00:00:00Z/2030-01-03T00:00:00Z'],
    ['a missing end', '2030-01-01T00:00:00Z/'],
    ['a missing start', '/2030-01-01T00:00:00Z'],
    ['an impossible date', '2030-02-30T00:00:00Z/2030-03-01T00:00:00Z'],
    ['a date without time', '2030-01-01/2030-01-02'],
    ['a date-time without zone', '2030-01-01T00:00:00/2030-01-02T00:00:00Z'],
    ['a start and a duration', '2030-01-01T00:00:00Z/PT1H'],
    ['words', 'yesterday/today'],
    ['empty text', ''],
  ])('refuses %s with InvalidTimeRange', (_label, text) => {
    expect(() => TimeRange.parse(text)).toThrow(InvalidTimeRange);
    expect(() => TimeRange.parse(text)).toThrow(/not two ISO 8601 date-times/);
  });

  it('refuses with the stable code invalid_time_range', () => {
    expect(() => TimeRange.parse('nonsense')).toThrow(expect.objectContaining({ code: 'invalid_time_range' }));
  });
});

describe('TimeRange.contains', () => {
  const range = TimeRange.parse('2030-01-01T12:00:00Z/2030-01-01T13:00:00Z');

  it.each([
    ['the start', '2030-01-01T12:00:00Z', true],
    ['the end', '2030-01-01T13:00:00Z', true],
    ['a moment inside', '2030-01-01T12:30:00Z', true],
    ['one millisecond before the start', '2030-01-01T11:59:59.999Z', false],
    ['one millisecond after the end', '2030-01-01T13:00:00.001Z', false],
  ])('includes %s: %s -> %s', (_label, instant, expected) => {
    expect(range.contains(new Date(instant))).toBe(expected);
  });
});
