import fc from 'fast-check';
import { types } from 'pg';
import { parseUtcTimestamp } from '../../../src/infrastructure/database/driver/pool-sql-runner';

const general = types.getTypeParser(1184, 'text') as (text: string) => Date;

/** An instant as a UTC session of PostgreSQL prints it: no trailing zeros in the fraction, none at all when whole. */
function printed(instant: Date, micros: number): string {
  const iso = instant.toISOString();
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
}

describe('parseUtcTimestamp', () => {
  it("reads every instant of years 0001-9999 as node-postgres' general parser does", () => {
    const instants = fc.date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59.999Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instants, fc.integer({ min: 0, max: 999 }), (instant, micros) => {
        const text = printed(instant, micros);
        expect(parseUtcTimestamp(text)).toEqual(general(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('hands what a UTC session prints otherwise to the general parser', () => {
    for (const text of [
      '10000-01-01 00:00:00+00',
      '0044-03-15 12:00:00+00 BC',
      'infinity',
      '-infinity',
      '2030-01-01 12:00:00+05:45',
    ]) {
      expect(parseUtcTimestamp(text)).toEqual(general(text));
    }
  });
});
