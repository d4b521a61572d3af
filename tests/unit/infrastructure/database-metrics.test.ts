// The database client metrics, by OpenTelemetry's names: statements by summary, the waits for a
// connection, and the pool read at each scrape.
import { DatabaseMetrics } from '../../../src/infrastructure/metrics/database-metrics';
import { createMetricsRegistry } from '../../../src/infrastructure/metrics/metrics-registry';
import { samplesOf } from '../../support/metrics/exposition';

it('times statements by summary and failure, and waits for a connection', async () => {
  const registry = createMetricsRegistry();
  const metrics = new DatabaseMetrics(registry);
  metrics.statement('SELECT events', 0.002, '');
  metrics.statement('SELECT events', 0.004, '');
  metrics.statement('INSERT events', 0.5, '23505');
  metrics.connectionWaited(0.0001);
  metrics.connectionWaited(2);

  const text = await registry.metrics();
  const select = { db_query_summary: 'SELECT events', db_system_name: 'postgresql', error_type: '' };
  expect(samplesOf(text, 'db_client_operation_duration_seconds_count', select)).toEqual([2]);
  expect(samplesOf(text, 'db_client_operation_duration_seconds_sum', select)).toEqual([0.006]);
  expect(samplesOf(text, 'db_client_operation_duration_seconds_bucket', { ...select, le: '0.001' })).toEqual([0]);
  expect(samplesOf(text, 'db_client_operation_duration_seconds_bucket', { ...select, le: '0.005' })).toEqual([2]);
  const failed = { db_query_summary: 'INSERT events', error_type: '23505' };
  expect(samplesOf(text, 'db_client_operation_duration_seconds_count', failed)).toEqual([1]);
  const pool = { db_client_connection_pool_name: 'main' };
  expect(samplesOf(text, 'db_client_connection_wait_time_seconds_count', pool)).toEqual([2]);
  expect(samplesOf(text, 'db_client_connection_wait_time_seconds_bucket', { ...pool, le: '1' })).toEqual([1]);
});

it("reads the pool's connections when scraped", async () => {
  const registry = createMetricsRegistry();
  const pool = { totalCount: 7, idleCount: 3, waitingCount: 2, options: { max: 10 } };
  new DatabaseMetrics(registry).watchPool(pool);

  let text = await registry.metrics();
  const main = { db_client_connection_pool_name: 'main' };
  expect(samplesOf(text, 'db_client_connection_count', { ...main, db_client_connection_state: 'used' })).toEqual([4]);
  expect(samplesOf(text, 'db_client_connection_count', { ...main, db_client_connection_state: 'idle' })).toEqual([3]);
  expect(samplesOf(text, 'db_client_connection_max', main)).toEqual([10]);
  expect(samplesOf(text, 'db_client_connection_pending_requests', main)).toEqual([2]);
  pool.waitingCount = 0;
  text = await registry.metrics();
  expect(samplesOf(text, 'db_client_connection_pending_requests', main)).toEqual([0]);
});
