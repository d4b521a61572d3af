// The primary gathers its workers' metrics at each scrape: those that answer in time, never failing
// the scrape for one that does not (dying or starting), and keeping nothing of an unanswered ask.
import { EventEmitter } from 'node:events';
import { Counter, Gauge, Registry } from 'prom-client';
import { answerPrimary, clusterMetrics } from '../../../src/infrastructure/metrics/cluster-metrics';
import { samplesOf } from '../../support/metrics/exposition';

/** A worker's registry with one counter at `count`, labelled with its slot. */
function workerRegistry(slot: string, count: number): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ worker: slot });
  new Counter({ name: 'served_total', help: 'served', registers: [registry] }).inc(count);
  return registry;
}

/**
 * Both ends of one worker's IPC channel, in this process: what the primary sends the worker hears,
 * and what the worker sends the primary hears; `answering` false makes a worker that never answers.
 */
function aWorker(registry: Registry, { answering = true, connected = true } = {}) {
  const primarySide = new EventEmitter();
  const workerSide = Object.assign(new EventEmitter(), {
    connected: true,
    send: (message: unknown, _handle: unknown, _options: unknown, done: (error: Error | null) => void) => {
      primarySide.emit('message', message);
      done(null);
      return true;
    },
  });
  if (answering) answerPrimary(registry, workerSide);
  return Object.assign(primarySide, {
    isConnected: () => connected,
    send: (message: unknown, _handle: unknown, done: () => void) => {
      setImmediate(() => workerSide.emit('message', message));
      done();
      return true;
    },
  });
}

it("gathers every worker's series, apart by slot", async () => {
  const workers = [aWorker(workerRegistry('0', 3)), aWorker(workerRegistry('1', 4))];
  const text = await clusterMetrics(() => workers, workerRegistry('primary', 1)).metrics();
  expect(samplesOf(text, 'served_total', { worker: '0' })).toEqual([3]);
  expect(samplesOf(text, 'served_total', { worker: '1' })).toEqual([4]);
  // And the primary's own.
  expect(samplesOf(text, 'served_total', { worker: 'primary' })).toEqual([1]);
});

it('answers with the workers that answered when one does not, and skips one whose channel is closed', async () => {
  const workers = [
    aWorker(workerRegistry('0', 3)),
    aWorker(workerRegistry('1', 4), { answering: false }),
    aWorker(workerRegistry('2', 5), { connected: false }),
  ];
  const text = await clusterMetrics(() => workers, workerRegistry('primary', 1)).metrics();
  expect(samplesOf(text, 'served_total', { worker: '0' })).toEqual([3]);
  expect(samplesOf(text, 'served_total', { worker: '1' })).toEqual([]);
  expect(samplesOf(text, 'served_total', { worker: '2' })).toEqual([]);
  // Nothing is left listening for the ask that went unanswered.
  expect(workers.map((worker) => worker.listenerCount('message'))).toEqual([0, 0, 0]);
});

/** A registry whose one metric cannot be collected, as a collect() that throws. */
function failingRegistry(slot: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ worker: slot });
  new Gauge({
    name: 'broken',
    help: 'broken',
    registers: [registry],
    collect() {
      throw new Error('collect failed');
    },
  });
  return registry;
}

it('leaves out at once a worker that could not collect its metrics, and says so', async () => {
  const failures: Error[] = [];
  const workers = [aWorker(workerRegistry('0', 3)), aWorker(failingRegistry('1'))];
  const started = performance.now();
  const text = await clusterMetrics(
    () => workers,
    workerRegistry('primary', 1),
    (error) => failures.push(error),
  ).metrics();
  // Not after the 2 s a silent worker is waited for.
  expect(performance.now() - started).toBeLessThan(1_000);
  expect(samplesOf(text, 'served_total', { worker: '0' })).toEqual([3]);
  expect(failures.map((error) => error.message)).toEqual(['A worker could not collect its metrics: collect failed']);
});

it("fails the scrape at once on the primary's own failure, not once the workers answered", async () => {
  // Its failure is handled when it comes: left pending until a silent worker's 2 s were over, it
  // was an unhandled rejection meanwhile, which ends the process.
  const silent = aWorker(workerRegistry('0', 3), { answering: false });
  const started = performance.now();
  await expect(clusterMetrics(() => [silent], failingRegistry('primary')).metrics()).rejects.toThrow('collect failed');
  expect(performance.now() - started).toBeLessThan(1_000);
});
