import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PasswordTaskKind } from '../passwords/password-tasks';
import type { PasswordPoolStats, PasswordWorkEvents, WaitReason } from '../passwords/password-pool';

/**
 * The password work's pool (docs/operations.md, "Metrics"): its waits by kind of work and why,
 * its runs, its refusals, the work dropped for clients gone, and at each scrape its threads,
 * running work and waiting work. Never who, nor from where: no address or account label.
 */
export class PasswordWorkMetrics implements PasswordWorkEvents {
  private readonly waits: Histogram<'kind' | 'reason'>;
  private readonly runs: Histogram<'kind'>;
  private readonly refusals: Counter<'kind'>;
  private readonly withdrawals: Counter<'kind'>;
  private pool: { stats(): PasswordPoolStats } | null = null;

  constructor(registry: Registry) {
    const registers = [registry];
    this.waits = new Histogram({
      name: 'tns_password_work_wait_seconds',
      help:
        'How long password work (kind: hash, verify, strength) waited for a thread of its pool, by reason: ' +
        'none (a thread was free), own_address, other_addresses, known_device (the lane of device-cookie holders).',
      labelNames: ['kind', 'reason'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.runs = new Histogram({
      name: 'tns_password_work_duration_seconds',
      help: 'How long password work ran on a thread of its pool, by kind (hash, verify, strength).',
      labelNames: ['kind'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2],
      registers,
    });
    this.refusals = new Counter({
      name: 'tns_password_work_refused_total',
      help: 'Password work refused because too much waited (503 password_checks_busy), by kind.',
      labelNames: ['kind'],
      registers,
    });
    this.withdrawals = new Counter({
      name: 'tns_password_work_withdrawn_total',
      help: 'Password work dropped while it waited because its client went away, by kind: it never ran.',
      labelNames: ['kind'],
      registers,
    });
    const stats = () => this.pool?.stats();
    const gauge = (name: string, help: string, read: (pool: PasswordPoolStats) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const now = stats();
          if (now) this.set(read(now));
        },
      });
    gauge('tns_password_work_threads', 'Threads of the password work pool (PASSWORD_CHECK_THREADS).', (s) => s.threads);
    gauge('tns_password_work_running', 'Password work running on the pool now.', (s) => s.running);
    gauge('tns_password_work_queued', 'Password work waiting for a thread now, both lanes.', (s) => s.queued);
  }

  /** Reads the pool's threads, running and waiting work at each scrape. */
  watch(pool: { stats(): PasswordPoolStats }): void {
    this.pool = pool;
  }

  waited(kind: PasswordTaskKind, reason: WaitReason, seconds: number): void {
    this.waits.observe({ kind, reason }, seconds);
  }

  ran(kind: PasswordTaskKind, seconds: number): void {
    this.runs.observe({ kind }, seconds);
  }

  refused(kind: PasswordTaskKind): void {
    this.refusals.inc({ kind });
  }

  withdrawn(kind: PasswordTaskKind): void {
    this.withdrawals.inc({ kind });
  }
}
