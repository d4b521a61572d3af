import { Duration } from '../../../src/core/domain/duration';
import { InvalidDuration } from '../../../src/core/domain/errors';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('Duration.parse', () => {
  it.each([
    ['1m', MINUTE],
    ['90m', 90 * MINUTE],
    ['1h', HOUR],
    ['36h', 36 * HOUR],
    ['1d', DAY],
    ['365d', 365 * DAY],
    ['9999999d', 9_999_999 * DAY],
  ])('reads %s', (text, milliseconds) => {
    const duration = Duration.parse(text);
    expect(duration.milliseconds).toBe(milliseconds);
    expect(duration.text).toBe(text);
  });

  it.each([
    ['zero', '0m'],
    ['zero with leading zeros', '000h'],
    ['a leading zero', '05m'],
    ['a negative amount', '-5m'],
    ['an explicit plus sign', '+5m'],
    ['a decimal amount', '1.5h'],
    ['a decimal comma', '1,5h'],
    ['seconds', '30s'],
    ['weeks', '2w'],
    ['months', '1M'],
    ['an upper-case unit', '5H'],
    ['a spelt-out unit', '5 minutes'],
    ['no unit', '15'],
    ['no amount', 'm'],
    ['two units', '1h30m'],
    ['leading white space', ' 5m'],
    ['trailing white space', '5m '],
    ['white space inside', '5 m'],
    ['a trailing newline', '5m\n'],
    ['more than seven digits', '10000000m'],
    ['a number beyond any calendar', `${'9'.repeat(400)}d`],
    ['exponent notation', '1e3m'],
    ['ISO 8601 duration', 'PT5M'],
    ['empty text', ''],
  ])('refuses %s with InvalidDuration', (_label, text) => {
    expect(() => Duration.parse(text)).toThrow(InvalidDuration);
  });

  it('names the accepted forms in the refusal', () => {
    expect(() => Duration.parse('1.5h')).toThrow(
      expect.objectContaining({ code: 'invalid_duration', details: { accepted_forms: ['<n>m', '<n>h', '<n>d'] } }),
    );
  });
});
