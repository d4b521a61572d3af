// Debian's Prometheus scrapes a service of two workers on its METRICS_PORT, as deployed, and a rate
// is read back through Prometheus's HTTP API: the exposition, the aggregation over the workers and
// the names are what a real Prometheus takes. scripts/ensure-prometheus.sh installs it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call } from '../support/process-client';
import { freeLoopbackPort } from '../support/free-port';
import { serverOnly } from '../support/server-only';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { provisionTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const PROMETHEUS = process.env.PROMETHEUS ?? 'prometheus';

/** One instant query through Prometheus's HTTP API: the value of each series of its answer. */
async function query(prometheusUrl: string, expression: string): Promise<number[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expression)}`);
  const answer = (await response.json()) as { data?: { result?: Array<{ value: [number, string] }> } };
  return (answer.data?.result ?? []).map((series) => Number(series.value[1]));
}

serverOnly(() =>
  describe('Prometheus scraping two workers', () => {
    let database: TestDatabase;
    let service: ServiceProcess | undefined;
    let prometheus: ChildProcess | undefined;
    let folder: string;

    beforeAll(async () => {
      database = await provisionTestDatabase();
      folder = await mkdtemp(path.join(tmpdir(), 'tns-prometheus-'));
    });

    afterAll(async () => {
      prometheus?.kill('SIGKILL');
      await service?.kill('SIGKILL');
      await database.close();
      await rm(folder, { recursive: true, force: true });
    });

    it('reads back the rate of requests answered by both workers', async () => {
      const metricsPort = await freeLoopbackPort();
      service = await startServiceProcess({
        DATABASE_URL: database.connectionString,
        WEB_CONCURRENCY: '2',
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'silent',
      });
      await service.printed('Metrics: ');
      const config = path.join(folder, 'prometheus.yml');
      await writeFile(
        config,
        [
          'global: { scrape_interval: 1s, evaluation_interval: 1s }',
          'scrape_configs:',
          '  - job_name: time-navigation',
          `    static_configs: [{ targets: ['127.0.0.1:${metricsPort}'] }]`,
          '',
        ].join('\n'),
      );
      const webPort = await freeLoopbackPort();
      prometheus = spawn(
        PROMETHEUS,
        [
          `--config.file=${config}`,
          `--storage.tsdb.path=${path.join(folder, 'data')}`,
          `--web.listen-address=127.0.0.1:${webPort}`,
        ],
        { stdio: 'ignore' },
      );
      const prometheusUrl = `http://127.0.0.1:${webPort}`;
      // Refused until Prometheus listens.
      const up = () => query(prometheusUrl, 'up{job="time-navigation"}').catch(() => []);
      await waitFor(async () => (await up())[0] === 1, {
        what: 'Prometheus to scrape the service',
        timeoutMs: 30_000,
      });

      // 40 requests over 4 s, each on a connection of its own: the workers take them in turn.
      const healthz =
        'http_server_request_duration_seconds_count{http_route="/healthz",http_response_status_code="200"}';
      const before = (await query(prometheusUrl, `sum(${healthz})`))[0] ?? 0;
      for (let n = 0; n < 40; n += 1) {
        expect((await call(service.url, 'GET', '/healthz')).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Every request counted once, whichever worker answered it.
      await waitFor(async () => (await query(prometheusUrl, `sum(${healthz})`))[0] === before + 40, {
        what: 'the 40 requests in a scrape',
        timeoutMs: 15_000,
      });
      const [rate] = await query(prometheusUrl, `sum(rate(${healthz}[10s]))`);
      expect(rate).toBeGreaterThan(0);
      // And the service's own: two workers' pools, each at DATABASE_POOL_SIZE's default.
      expect(await query(prometheusUrl, 'sum(db_client_connection_max)')).toEqual([20]);
      expect(await query(prometheusUrl, 'min(tns_db_available)')).toEqual([1]);
      expect(await service.stop()).toBe(0);
      service = undefined;
    }, 120_000);
  }),
);
