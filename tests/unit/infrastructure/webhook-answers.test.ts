import { attemptError } from '../../../src/infrastructure/webhook-delivery/attempt-errors';
import { retryAfterSeconds } from '../../../src/infrastructure/webhook-delivery/retry-after';

const failure = (code: string) => Object.assign(new Error(code), { code });

describe("an answer's Retry-After", () => {
  const now = new Date('2030-03-01T12:00:00Z');

  it('reads whole seconds', () => {
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date as the seconds until it, rounded up, and one already past as 0', () => {
    expect(retryAfterSeconds('Fri, 01 Mar 2030 12:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Friday, 01-Mar-30 12:00:10 GMT', now)).toBe(10);
    expect(retryAfterSeconds('Fri, 01 Mar 2030 11:00:00 GMT', now)).toBe(0);
  });

  it('is null when absent or unreadable, so that the schedule alone decides', () => {
    for (const value of [undefined, '', '1.5', '-5', 'soon', '2030-03-01T12:01:00Z', 'Fri, 99 Zzz 2030 12:00:00 GMT'])
      expect(retryAfterSeconds(value, now)).toBeNull();
  });
});

describe("a failed connection's name in the deliveries listing", () => {
  it.each([
    ['ECONNREFUSED', 'refused'],
    ['ETIMEDOUT', 'timeout'],
    ['ENOTFOUND', 'dns'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['EPROTO', 'tls'],
    ['ECONNRESET', 'network'],
    ['EHOSTUNREACH', 'network'],
  ])('names %s %s', (code, named) => {
    expect(attemptError(failure(code))).toBe(named);
  });

  it('names every address of a host refused as refused, and anything without a code network', () => {
    expect(attemptError(new AggregateError([failure('ECONNREFUSED'), failure('ECONNREFUSED')]))).toBe('refused');
    expect(attemptError(new Error('socket hang up'))).toBe('network');
    expect(attemptError('odd')).toBe('network');
  });
});
