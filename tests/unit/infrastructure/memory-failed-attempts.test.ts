// The in-memory count of failed attempts: a client waits once it has failed `failures` times in a
// window, only until the window ends, and a limit of 0 counts nothing.
import { MemoryFailedAttempts } from '../../../src/infrastructure/throttling/memory-failed-attempts';

it('makes a client wait once it failed the limit, until its window ends', async () => {
  const attempts = new MemoryFailedAttempts({ failures: 3, windowSeconds: 1 });
  for (let failure = 0; failure < 3; failure += 1) {
    expect(await attempts.waitBeforeNext('192.0.2.1')).toBe(0);
    await attempts.failed('192.0.2.1');
  }
  const wait = await attempts.waitBeforeNext('192.0.2.1');
  expect(wait).toBeGreaterThan(0);
  expect(wait).toBeLessThanOrEqual(1_000);
  expect(await attempts.waitBeforeNext('192.0.2.2')).toBe(0);

  await new Promise((resolve) => setTimeout(resolve, wait + 50));
  expect(await attempts.waitBeforeNext('192.0.2.1')).toBe(0);
});

it('counts nothing with a limit of 0', async () => {
  const attempts = new MemoryFailedAttempts({ failures: 0, windowSeconds: 60 });
  for (let failure = 0; failure < 100; failure += 1) await attempts.failed('192.0.2.1');
  expect(await attempts.waitBeforeNext('192.0.2.1')).toBe(0);
});
