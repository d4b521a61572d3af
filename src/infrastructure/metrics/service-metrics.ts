import { Counter, Gauge, type Registry } from 'prom-client';
import { MAX_KEYS_PER_WINDOW } from '../../core/use-cases/rate-limiting/count-in-process';
import type { RerunReason } from '../persistence/postgres/transaction-boundary';

/** What the service's own metrics read when scraped: each source keeps its own counts. */
export interface ServiceMetricSources {
  readonly database: {
    readonly available: boolean;
    readonly outages: number;
    readonly diskFullRefusals: number;
    readonly readOnlyRefusals: number;
    /** Requests whose statement the database gave up on at its bound, by reason (statement_timeout, lock_timeout). */
    readonly timeouts: ReadonlyMap<string, number>;
  };
  readonly keyCache: { stats(): { readonly entries: number; readonly hits: number; readonly misses: number } };
  readonly eventStreams: {
    readonly size: number;
    readonly limit: number;
    readonly delivered: ReadonlyMap<string, number>;
    readonly catchUpWaits: number;
  };
  /** Tables of the embedded database analysed by the service, by table (none on a PostgreSQL server). */
  readonly tableAnalyses?: ReadonlyMap<string, number>;
  /**
   * API requests that waited for their turn, and how long, by `<reason>/<cost class>`: behind their
   * account's running ones (`in_flight`), for its pace (`pace`), or for the instance's work (`busy`);
   * and those shed (503 server_busy) by cost class.
   */
  readonly turnWaits: {
    readonly waited: ReadonlyMap<string, { readonly requests: number; readonly seconds: number }>;
    readonly shed: ReadonlyMap<string, number>;
  };
  /** The per-address counts kept in this process's memory (CountInProcess). */
  readonly countsInProcess: { readonly uncounted: number };
  /** The instance's work at once, where this process holds it (alone; a cluster's primary holds it otherwise). */
  readonly instanceWork?: InstanceWorkSource;
}

/** The instance's fair share of work: its load now and its limits. */
export interface InstanceWorkSource {
  load(): { readonly runningWeight: number; readonly queued: number };
  readonly limits: { readonly running: number; readonly heavyRunning?: number; readonly queued: number };
}

/**
 * What this service alone can tell (docs/operations.md, "Metrics"), under the `tns_` prefix. Most
 * are read from their sources at each scrape, so the paths that count them pay nothing.
 */
export class ServiceMetrics {
  /** An exclusive write ran again: another writer of the account came first. */
  readonly reruns: Counter<'reason'>;

  constructor(registry: Registry, sources: ServiceMetricSources) {
    const registers = [registry];
    // The sources themselves, read at each scrape: whatever each holds then is what is counted.
    databaseCounters(registers, sources);
    keyCacheMetrics(registers, sources);
    eventStreamMetrics(registers, sources);
    turnWaitCounters(registers, sources.turnWaits);
    countedAt(
      registers,
      'tns_rate_limit_uncounted_total',
      'Requests without a key served uncounted: their address was first seen when the minute had already ' +
        `counted ${MAX_KEYS_PER_WINDOW} addresses (the per-address counts in memory are bounded).`,
      () => sources.countsInProcess.uncounted,
    );
    const tableAnalyses = sources.tableAnalyses;
    if (tableAnalyses)
      countedByLabel(
        registers,
        'tns_embedded_db_analyses_total',
        'Tables of the embedded database the service analysed (ANALYZE) after they changed by a tenth, by table.',
        'db_collection_name',
        () => tableAnalyses,
      );
    if (sources.instanceWork) instanceWorkGauges(registry, sources.instanceWork);
    this.reruns = new Counter({
      name: 'tns_exclusive_write_reruns_total',
      help: "Exclusive writes of an account run again, by reason: 'conflict' or 'state-moved'.",
      labelNames: ['reason'],
      registers,
    });
  }

  rerun(reason: RerunReason): void {
    this.reruns.inc({ reason });
  }
}

/** Whether the database answers, its outages and the requests it refused or stopped. */
function databaseCounters(registers: Registry[], sources: Pick<ServiceMetricSources, 'database'>): void {
  new Gauge({
    name: 'tns_db_available',
    help: '1 while the database answers the requests of this process, 0 during an outage.',
    registers,
    collect() {
      this.set(sources.database.available ? 1 : 0);
    },
  });
  countedAt(
    registers,
    'tns_db_outages_total',
    'Times the database stopped answering this process (each outage once).',
    () => sources.database.outages,
  );
  countedAt(
    registers,
    'tns_db_disk_full_refusals_total',
    'Requests answered 503 because the database could not grow a file for their write (53100).',
    () => sources.database.diskFullRefusals,
  );
  countedAt(
    registers,
    'tns_db_read_only_refusals_total',
    'Requests answered 503 because the server reached accepts no writes: a standby, in recovery (25006).',
    () => sources.database.readOnlyRefusals,
  );
  countedByLabel(
    registers,
    'tns_db_timeouts_total',
    'Requests answered 503 operation_timed_out, the database having stopped their statement, by reason: ' +
      "'statement_timeout' (DATABASE_TIMEOUT_MS) or 'lock_timeout'. Not an outage.",
    'reason',
    () => sources.database.timeouts,
  );
}

/** The verified-key cache's lookups by result, and its size. */
function keyCacheMetrics(registers: Registry[], sources: Pick<ServiceMetricSources, 'keyCache'>): void {
  const seen = { hits: 0, misses: 0 };
  new Counter({
    name: 'tns_api_key_cache_lookups_total',
    help: 'API keys looked up in the verified-key cache, by result: hit (no database read) or miss.',
    labelNames: ['result'],
    registers,
    collect() {
      const { hits, misses } = sources.keyCache.stats();
      this.inc({ result: 'hit' }, hits - seen.hits);
      this.inc({ result: 'miss' }, misses - seen.misses);
      Object.assign(seen, { hits, misses });
    },
  });
  new Gauge({
    name: 'tns_api_key_cache_entries',
    help: 'API keys held in the verified-key cache.',
    registers,
    collect() {
      this.set(sources.keyCache.stats().entries);
    },
  });
}

/** The event streams open and their bound, the messages written, the catch-ups that waited. */
function eventStreamMetrics(registers: Registry[], sources: Pick<ServiceMetricSources, 'eventStreams'>): void {
  new Gauge({
    name: 'tns_event_streams_open',
    help: 'Event streams open in this process (EVENT_STREAMS_PER_PROCESS bounds them).',
    registers,
    collect() {
      this.set(sources.eventStreams.size);
    },
  });
  new Gauge({
    name: 'tns_event_streams_max',
    help: 'The most event streams this process holds at once (EVENT_STREAMS_PER_PROCESS).',
    registers,
    collect() {
      this.set(sources.eventStreams.limit);
    },
  });
  countedByLabel(
    registers,
    'tns_event_stream_messages_total',
    "Messages written on event streams, by event: 'recorded', 'updated', 'caught-up'.",
    'event',
    () => sources.eventStreams.delivered,
  );
  countedAt(
    registers,
    'tns_event_stream_catch_up_waits_total',
    "Times an event stream's catch-up waited for its account's rate limit (a request's worth per 100 events).",
    () => sources.eventStreams.catchUpWaits,
  );
}

const TURN_WAIT_HELP =
  "by reason: 'in_flight' (behind their account's requests running, ACCOUNT_REQUESTS_RUNNING), 'pace' " +
  "(their account's starts spread over the second), 'busy' (the instance's work at once, served by " +
  "account in turn) or 'loop' (room on the process's event loop, HEAVY_WORK_LOOP_PERCENT; medium and " +
  "heavy requests only), and cost class: 'light' (weight 1), 'medium' (2 to 4) or 'heavy' (5 or more).";

/** Requests' waits for their turn by reason and cost class, and those shed by cost class. */
function turnWaitCounters(registers: Registry[], waits: ServiceMetricSources['turnWaits']): void {
  for (const [measure, name, help] of [
    ['requests', 'tns_account_turn_waits_total', 'API requests'],
    ['seconds', 'tns_account_turn_wait_seconds_total', 'Seconds API requests'],
  ] as const) {
    const seen = new Map<string, number>();
    new Counter({
      name,
      help: `${help} waited for their turn, ${TURN_WAIT_HELP}`,
      labelNames: ['reason', 'cost_class'],
      registers,
      collect() {
        for (const [key, tally] of waits.waited) {
          const [reason, costClass] = key.split('/');
          this.inc({ reason, cost_class: costClass }, tally[measure] - (seen.get(key) ?? 0));
          seen.set(key, tally[measure]);
        }
      },
    });
  }
  const shedSeen = new Map<string, number>();
  new Counter({
    name: 'tns_requests_shed_total',
    help: 'API requests refused 503 server_busy (too many waiting for the instance), by cost class.',
    labelNames: ['cost_class'],
    registers,
    collect() {
      for (const [costClass, count] of waits.shed) {
        this.inc({ cost_class: costClass }, count - (shedSeen.get(costClass) ?? 0));
        shedSeen.set(costClass, count);
      }
    },
  });
}

/**
 * The instance's work at once and its queue, read at each scrape from whoever holds them: the
 * process alone, or a cluster's primary (on its own registry).
 */
export function instanceWorkGauges(registry: Registry, source: InstanceWorkSource): void {
  const registers = [registry];
  for (const [name, help, read] of [
    [
      'tns_instance_work_running',
      'Weight of the API requests running now over the instance (INSTANCE_WORK_RUNNING bounds it).',
      () => source.load().runningWeight,
    ],
    ['tns_instance_work_running_max', 'INSTANCE_WORK_RUNNING.', () => source.limits.running],
    [
      'tns_instance_heavy_work_running_max',
      'INSTANCE_HEAVY_WORK_RUNNING: the weight running within which a request of weight 2 or more may start.',
      () => source.limits.heavyRunning ?? source.limits.running,
    ],
    [
      'tns_instance_requests_waiting',
      "API requests waiting for the instance's work, every account (INSTANCE_REQUESTS_QUEUED bounds it).",
      () => source.load().queued,
    ],
    ['tns_instance_requests_waiting_max', 'INSTANCE_REQUESTS_QUEUED.', () => source.limits.queued],
  ] as const)
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
}

/** A counter that follows a total its source keeps: each scrape adds what the total grew by since. */
function countedAt(registers: Registry[], name: string, help: string, total: () => number): void {
  let seen = 0;
  new Counter({
    name,
    help,
    registers,
    collect() {
      const now = total();
      this.inc(now - seen);
      seen = now;
    },
  });
}

/** A counter by one label that follows the totals its source keeps per value of the label. */
function countedByLabel(
  registers: Registry[],
  name: string,
  help: string,
  label: string,
  totals: () => ReadonlyMap<string, number>,
): void {
  const seen = new Map<string, number>();
  new Counter({
    name,
    help,
    labelNames: [label],
    registers,
    collect() {
      for (const [value, total] of totals()) {
        this.inc({ [label]: value }, total - (seen.get(value) ?? 0));
        seen.set(value, total);
      }
    },
  });
}
