import { sqlParameter } from '../../../src/infrastructure/database/driver/sql-runner';

describe('sqlParameter', () => {
  it('writes an instant as ISO 8601 text in UTC, alone or at any depth of arrays', () => {
    const instant = new Date('1969-07-20T20:17:40.123Z');
    expect(sqlParameter(instant)).toBe('1969-07-20T20:17:40.123Z');
    expect(sqlParameter([instant, null])).toEqual(['1969-07-20T20:17:40.123Z', null]);
    expect(sqlParameter([['a'], [instant]])).toEqual([['a'], ['1969-07-20T20:17:40.123Z']]);
  });

  it('sends an array holding no instant as it is, and leaves the array it was given unchanged', () => {
    const names = ['anchor', 'home', null];
    expect(sqlParameter(names)).toBe(names);
    const instants = [new Date(0)];
    sqlParameter(instants);
    expect(instants[0]).toBeInstanceOf(Date);
  });

  it('sends anything else as it is', () => {
    expect(sqlParameter('text')).toBe('text');
    expect(sqlParameter(42)).toBe(42);
    expect(sqlParameter(null)).toBeNull();
  });
});
