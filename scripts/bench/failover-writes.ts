// `npm run bench:failover`: what the synchronous standby of deploy/ha costs the writes. On a cluster
// as the failover test starts it (tests/support/ha/patroni-cluster.ts: etcd, two Patroni nodes of
// Debian's PostgreSQL 15, HAProxy; needs root and scripts/ensure-ha.sh), one service worker through
// HAProxy; the write loads of `npm run bench` at 50 connections, with the standby synchronous and
// then asynchronous, in turn, BENCH_ROUNDS times (default 2). docs/operations.md "Failover".
import { measure, type Figures, type Load } from './measure';
import { createBenchDatabase } from './seed';
import { signUpMany, startService } from './service';
import { writeLoads } from './write-loads';
import { clusterUnavailable, PatroniCluster } from '../../tests/support/ha/patroni-cluster';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 50;

async function main(): Promise<void> {
  const unavailable = clusterUnavailable();
  if (unavailable) throw new Error(`bench:failover cannot run here: ${unavailable}`);
  const cluster = await PatroniCluster.start(2);
  try {
    const databaseUrl = await createBenchDatabase(cluster.url, 'time_navigation_bench_failover');
    const service = await startService(databaseUrl, 1);
    try {
      const rotate = (await signUpMany(service.url, 'failover-writer', 200)).map((account) => account.auth);
      const { anchors, keyedAnchors, fastForward } = writeLoads(rotate);
      const loads: Load[] = [anchors, keyedAnchors, fastForward];
      for (let round = 1; round <= ROUNDS; round++) {
        for (const synchronous of [true, false]) {
          await cluster.setSynchronous(synchronous);
          for (const load of loads) {
            const figures = await measure(service.url, load, CONNECTIONS, SECONDS);
            console.log(line(round, synchronous, load, figures));
          }
        }
      }
    } finally {
      await service.stop();
    }
  } finally {
    await cluster.stop();
  }
}

function line(round: number, synchronous: boolean, load: Load, figures: Figures): string {
  const standby = synchronous ? 'synchronous standby' : 'asynchronous standby';
  const failed = figures.failures ? `, ${figures.failures} failed` : '';
  return (
    `round ${round}, ${standby}, ${load.name}: ${figures.requestsPerSecond} req/s, ` +
    `p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms${failed}`
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
