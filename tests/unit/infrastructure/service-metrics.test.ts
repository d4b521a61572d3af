// The service's own metrics, read from their sources at each scrape.
import { createMetricsRegistry } from '../../../src/infrastructure/metrics/metrics-registry';
import { ServiceMetrics } from '../../../src/infrastructure/metrics/service-metrics';
import { samplesOf } from '../../support/metrics/exposition';

function sources() {
  return {
    database: {
      available: true,
      outages: 0,
      diskFullRefusals: 0,
      readOnlyRefusals: 0,
      timeouts: new Map([['statement_timeout', 2]]),
    },
    keyCache: { stats: () => ({ entries: 4, hits: 90, misses: 10 }) },
    eventStreams: { size: 5, limit: 2000, delivered: new Map([['recorded', 7]]), catchUpWaits: 2 },
    turnWaits: {
      waited: new Map([
        ['in_flight/light', { requests: 3, seconds: 0.25 }],
        ['pace/light', { requests: 6, seconds: 1.5 }],
        ['busy/heavy', { requests: 2, seconds: 0.5 }],
      ]),
      shed: new Map([['heavy', 4]]),
    },
    instanceWork: {
      load: () => ({ runningWeight: 7, queued: 12 }),
      limits: { running: 30, heavyRunning: 10, queued: 200 },
    },
    countsInProcess: { uncounted: 8 },
    tableAnalyses: new Map([['events', 2]]),
  };
}

it("reads the database, the key cache, the streams and the requests' turns when scraped", async () => {
  const registry = createMetricsRegistry();
  const from = sources();
  const metrics = new ServiceMetrics(registry, from);
  metrics.rerun('conflict');
  metrics.rerun('conflict');
  metrics.rerun('state-moved');

  let text = await registry.metrics();
  expect(samplesOf(text, 'tns_db_available')).toEqual([1]);
  expect(samplesOf(text, 'tns_db_outages_total')).toEqual([0]);
  expect(samplesOf(text, 'tns_db_disk_full_refusals_total')).toEqual([0]);
  expect(samplesOf(text, 'tns_db_read_only_refusals_total')).toEqual([0]);
  expect(samplesOf(text, 'tns_db_timeouts_total', { reason: 'statement_timeout' })).toEqual([2]);
  expect(samplesOf(text, 'tns_api_key_cache_lookups_total', { result: 'hit' })).toEqual([90]);
  expect(samplesOf(text, 'tns_api_key_cache_lookups_total', { result: 'miss' })).toEqual([10]);
  expect(samplesOf(text, 'tns_api_key_cache_entries')).toEqual([4]);
  expect(samplesOf(text, 'tns_event_streams_open')).toEqual([5]);
  expect(samplesOf(text, 'tns_event_streams_max')).toEqual([2000]);
  expect(samplesOf(text, 'tns_event_stream_messages_total', { event: 'recorded' })).toEqual([7]);
  expect(samplesOf(text, 'tns_event_stream_catch_up_waits_total')).toEqual([2]);
  expect(samplesOf(text, 'tns_account_turn_waits_total', { reason: 'in_flight', cost_class: 'light' })).toEqual([3]);
  expect(samplesOf(text, 'tns_account_turn_waits_total', { reason: 'pace', cost_class: 'light' })).toEqual([6]);
  expect(samplesOf(text, 'tns_account_turn_waits_total', { reason: 'busy', cost_class: 'heavy' })).toEqual([2]);
  expect(samplesOf(text, 'tns_account_turn_wait_seconds_total', { reason: 'in_flight' })).toEqual([0.25]);
  expect(samplesOf(text, 'tns_account_turn_wait_seconds_total', { reason: 'pace' })).toEqual([1.5]);
  expect(samplesOf(text, 'tns_rate_limit_uncounted_total')).toEqual([8]);
  expect(samplesOf(text, 'tns_account_turn_wait_seconds_total', { reason: 'busy' })).toEqual([0.5]);
  expect(samplesOf(text, 'tns_requests_shed_total', { cost_class: 'heavy' })).toEqual([4]);
  expect(samplesOf(text, 'tns_instance_work_running')).toEqual([7]);
  expect(samplesOf(text, 'tns_instance_work_running_max')).toEqual([30]);
  expect(samplesOf(text, 'tns_instance_heavy_work_running_max')).toEqual([10]);
  expect(samplesOf(text, 'tns_instance_requests_waiting')).toEqual([12]);
  expect(samplesOf(text, 'tns_instance_requests_waiting_max')).toEqual([200]);
  expect(samplesOf(text, 'tns_exclusive_write_reruns_total', { reason: 'conflict' })).toEqual([2]);
  expect(samplesOf(text, 'tns_exclusive_write_reruns_total', { reason: 'state-moved' })).toEqual([1]);
  expect(samplesOf(text, 'tns_embedded_db_analyses_total', { db_collection_name: 'events' })).toEqual([2]);

  // An outage, and more lookups: the counters go on from where they were.
  from.database = {
    available: false,
    outages: 1,
    diskFullRefusals: 3,
    readOnlyRefusals: 2,
    timeouts: new Map([
      ['statement_timeout', 3],
      ['lock_timeout', 1],
    ]),
  };
  from.keyCache = { stats: () => ({ entries: 4, hits: 95, misses: 12 }) };
  from.eventStreams = { ...from.eventStreams, catchUpWaits: 5 };
  from.turnWaits.waited.set('pace/light', { requests: 8, seconds: 2 });
  from.turnWaits.shed.set('heavy', 5);
  text = await registry.metrics();
  expect(samplesOf(text, 'tns_db_available')).toEqual([0]);
  expect(samplesOf(text, 'tns_db_outages_total')).toEqual([1]);
  expect(samplesOf(text, 'tns_db_disk_full_refusals_total')).toEqual([3]);
  expect(samplesOf(text, 'tns_db_read_only_refusals_total')).toEqual([2]);
  expect(samplesOf(text, 'tns_db_timeouts_total', { reason: 'statement_timeout' })).toEqual([3]);
  expect(samplesOf(text, 'tns_db_timeouts_total', { reason: 'lock_timeout' })).toEqual([1]);
  expect(samplesOf(text, 'tns_api_key_cache_lookups_total', { result: 'hit' })).toEqual([95]);
  expect(samplesOf(text, 'tns_api_key_cache_lookups_total', { result: 'miss' })).toEqual([12]);
  expect(samplesOf(text, 'tns_event_stream_catch_up_waits_total')).toEqual([5]);
  expect(samplesOf(text, 'tns_account_turn_waits_total', { reason: 'pace' })).toEqual([8]);
  expect(samplesOf(text, 'tns_account_turn_wait_seconds_total', { reason: 'pace' })).toEqual([2]);
  expect(samplesOf(text, 'tns_account_turn_waits_total', { reason: 'in_flight' })).toEqual([3]);
  expect(samplesOf(text, 'tns_requests_shed_total', { cost_class: 'heavy' })).toEqual([5]);
});

it("counts the embedded database's analyses only where the service makes them", async () => {
  const registry = createMetricsRegistry();
  new ServiceMetrics(registry, { ...sources(), tableAnalyses: undefined });
  expect(await registry.metrics()).not.toContain('tns_embedded_db_analyses_total');
});
