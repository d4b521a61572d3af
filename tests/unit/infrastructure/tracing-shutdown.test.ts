// A stop with tracing on exits as it would without: the SDK's shutdown rejects when its last export
// fails (a collector that is down), and may wait long for one that does not answer.
import { shutdownWithin } from '../../../src/infrastructure/telemetry/tracing';

function aLogger() {
  const warnings: unknown[][] = [];
  return { warnings, logger: { warn: (...args: unknown[]) => void warnings.push(args) } };
}

it('turns a failed shutdown into a warning', async () => {
  const { warnings, logger } = aLogger();
  const refused = new Error('connect ECONNREFUSED 127.0.0.1:4318');
  await expect(shutdownWithin(() => Promise.reject(refused), logger, 1_000)).resolves.toBeUndefined();
  expect(warnings).toEqual([[{ err: refused }, 'OpenTelemetry: the last spans could not be exported at the stop']]);
});

it('waits no longer than its bound for a shutdown that hangs', async () => {
  const { warnings, logger } = aLogger();
  const started = performance.now();
  await shutdownWithin(() => new Promise<void>(() => undefined), logger, 50);
  expect(performance.now() - started).toBeLessThan(1_000);
  expect(warnings).toEqual([['OpenTelemetry: the last spans were not exported within 50 ms of the stop; left behind']]);
});

it('says nothing of a shutdown that succeeds', async () => {
  const { warnings, logger } = aLogger();
  let stopped = false;
  await shutdownWithin(
    async () => {
      stopped = true;
    },
    logger,
    1_000,
  );
  expect(stopped).toBe(true);
  expect(warnings).toEqual([]);
});
