// The in-memory count of failed attempts: a client waits once it has failed `failures` times in a
// window, only until the window ends, and a limit of 0 counts nothing. The window runs on Jest's
// clock (rate-limiter-flexible reads Date.now() and expires entries with setTimeout).
import { MemoryFailedAttempts } from '../../../src/infrastructure/throttling/memory-failed-attempts';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

it('makes a client wait once it failed the limit, until its window ends', async () => {
  const attempts = new MemoryFailedAttempts({ failures: 3, windowSeconds: 1 });
  for (let failure = 0; failure < 3; failure += 1) {
    expect(await attempts.waitBeforeNext('192.0.2.1')).toBe(0);
    await attempts.failed('192.0.2.1');
  }
  jest.advanceTimersByTime(400);
  expect(await attempts.waitBeforeNext('192.0.2.1')).toBe(600);
  expect(await attempts.waitBeforeNext('192.0.2.2')).toBe(0);

  jest.advanceTimersByTime(599);
  expect(await attempts.waitBeforeNext('192.0.2.1')).toBe(1);
  jest.advanceTimersByTime(1);
  expect(await attempts.waitBeforeNext('192.0.2.1')).toBe(0);
  // A new window: three failures again before it waits.
  await attempts.failed('192.0.2.1');
  expect(await attempts.waitBeforeNext('192.0.2.1')).toBe(0);
});

it('counts nothing with a limit of 0', async () => {
  const attempts = new MemoryFailedAttempts({ failures: 0, windowSeconds: 60 });
  for (let failure = 0; failure < 100; failure += 1) await attempts.failed('192.0.2.1');
  expect(await attempts.waitBeforeNext('192.0.2.1')).toBe(0);
});
