// `node --import tsx job-queue-process.ts <connection string>`: the service's job queue in a process
// of its own, whose delivery handler takes one job and never finishes it: for a test to kill -9 in
// the middle of a job. Prints `ready` once it works, and `working <message id>` when it takes a job.
import { pino } from 'pino';
import { JobQueue } from '../../src/infrastructure/job-queue/job-queue';
import { workDeliveries } from '../../src/infrastructure/job-queue/workers';

async function main(): Promise<void> {
  const queue = await JobQueue.start({
    connectionString: process.argv[2] ?? '',
    poolSize: 1,
    log: pino({ level: 'silent' }),
    superviseSeconds: 1,
    graceMs: 0,
  });
  await workDeliveries(
    queue,
    (job) => {
      console.log(`working ${job.messageId}`);
      return new Promise(() => undefined);
    },
    { workers: 1, batchSize: 1, pollingSeconds: 0.5 },
  );
  console.log('ready');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
