import type { Response } from 'supertest';

/** The start of a whole minute ahead: frozen there, a test's requests all fall in one window. */
export function aWindowStart(minutesAhead: number): Date {
  return new Date((Math.floor(Date.now() / 60_000) + minutesAhead) * 60_000);
}

/** A 429 of the rate limit `policy`, the only one the answer lists, with `retryAfter` seconds to wait. */
export function expectRateLimited(response: Response, policy: string, retryAfter: string): void {
  expectRefusalOf(response, retryAfter);
  expect(response.headers['ratelimit']).toBe(`"${policy}";r=0;t=${retryAfter}`);
}

/** A 429 `rate_limited` problem, with `retryAfter` seconds to wait. */
export function expectRefusalOf(response: Response, retryAfter: string): void {
  expect(response.status).toBe(429);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.headers['retry-after']).toBe(retryAfter);
  expect(response.body).toEqual(
    expect.objectContaining({
      type: '/problems/rate_limited',
      title: 'Too Many Requests',
      status: 429,
      code: 'rate_limited',
    }),
  );
}
