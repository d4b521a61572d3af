// Tells a process's event streams when their account's events change, by whichever process. The
// database announces it with NOTIFY when the change commits (triggers of migration
// 20261125171836_event_stream_slots: payload "<account id> <highest version written>"), heard
// by a NotificationListener on the pool's connections and on one of its own. A stream is only told
// to read again; what changed it reads from the database, so a notification heard twice, late or
// merged with another costs a read at most, and none is needed for correctness but the last.
import { type ChangeSubscription, FeedInterrupted } from '../../core/ports/event-feed';
import {
  type ChannelTarget,
  NotificationListener,
  type NotificationListenerOptions,
} from '../database/driver/notification-listener';

export const EVENT_CHANGE_CHANNEL = 'event_changes';

/**
 * Every stream is woken this often anyway. The database announces an account's changes only while
 * a slot of it is live: a stream whose process stalled past its lease's renewals heard nothing of
 * the writes made meanwhile; this bounds how late it hears of them.
 */
const SWEEP_MS = 10_000;

interface Watched {
  /** The highest version heard of. */
  heard: bigint;
  /** Which signal of this process the account's streams were given last (`signalled` then). */
  generation: number;
  readonly subscriptions: Set<Subscription>;
}

export class EventChangeSignals implements ChannelTarget {
  private readonly byAccount = new Map<string, Watched>();
  /** Signals given so far, to any account: each signal's generation, never reused. */
  private signalled = 0;
  private interruption: FeedInterrupted | null;
  private sweep: NodeJS.Timeout | undefined;
  private readonly sweepMs: number;

  constructor(options: { readonly suspended: boolean; readonly sweepMs?: number }) {
    this.interruption = options.suspended ? new FeedInterrupted('database_unavailable') : null;
    this.sweepMs = options.sweepMs ?? SWEEP_MS;
  }

  subscribe(accountId: string): ChangeSubscription {
    if (this.interruption) throw this.interruption;
    let account = this.byAccount.get(accountId);
    if (!account) {
      account = { heard: -1n, generation: 0, subscriptions: new Set() };
      this.byAccount.set(accountId, account);
    }
    const subscriptions = account.subscriptions;
    const subscription = new Subscription(() => {
      subscriptions.delete(subscription);
      if (subscriptions.size === 0 && this.byAccount.get(accountId)?.subscriptions === subscriptions)
        this.byAccount.delete(accountId);
      if (this.byAccount.size === 0) clearInterval(this.sweep);
    });
    subscriptions.add(subscription);
    if (this.byAccount.size === 1 && subscriptions.size === 1) this.startSweep();
    return subscription;
  }

  heard(payload: string): void {
    const [accountId = '', version = ''] = payload.split(' ');
    const account = this.byAccount.get(accountId);
    if (!account || !/^\d+$/.test(version)) return;
    // The pool's connection and the dedicated one both hear this process's own changes: once is enough.
    const written = BigInt(version);
    if (written <= account.heard) return;
    account.heard = written;
    account.generation = ++this.signalled;
    for (const subscription of account.subscriptions) subscription.signal();
  }

  /**
   * The account's last signal: a read started after it sees every change signalled so far, and a
   * stream woken by it may share such a read, not one started before (postgres/event-feed.ts).
   */
  generationOf(accountId: string): number {
    return this.byAccount.get(accountId)?.generation ?? 0;
  }

  /** Changes may go unheard from now on: every stream ends (its client resumes), and none opens. */
  suspend(): void {
    if (this.interruption?.reason !== 'shutting_down') this.interrupt(new FeedInterrupted('database_unavailable'));
  }

  resume(): void {
    if (this.interruption?.reason !== 'shutting_down') this.interruption = null;
  }

  /** The service stops: every stream ends, and none opens. */
  close(): void {
    this.interrupt(new FeedInterrupted('shutting_down'));
  }

  private startSweep(): void {
    clearInterval(this.sweep);
    this.sweep = setInterval(() => {
      for (const account of this.byAccount.values()) {
        account.generation = ++this.signalled;
        for (const subscription of account.subscriptions) subscription.signal();
      }
    }, this.sweepMs);
    this.sweep.unref();
  }

  private interrupt(reason: FeedInterrupted): void {
    clearInterval(this.sweep);
    this.interruption = reason;
    const accounts = [...this.byAccount.values()];
    this.byAccount.clear();
    for (const { subscriptions } of accounts) for (const subscription of subscriptions) subscription.fail(reason);
  }
}

/** The listener that signals `signals`'s streams. */
export function eventChangeListener(
  signals: EventChangeSignals,
  options?: NotificationListenerOptions,
): NotificationListener {
  return new NotificationListener({ name: EVENT_CHANGE_CHANNEL, purpose: 'event changes' }, signals, options);
}

class Subscription implements ChangeSubscription {
  private changedSince = false;
  private waiting: { resolve(): void; reject(error: Error): void } | null = null;
  private failure: FeedInterrupted | null = null;

  constructor(private readonly leave: () => void) {}

  changed(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.changedSince) {
      this.changedSince = false;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  signal(): void {
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting) waiting.resolve();
    else this.changedSince = true;
  }

  fail(reason: FeedInterrupted): void {
    if (this.failure) return;
    this.failure = reason;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(reason);
  }

  close(): void {
    this.leave();
    this.fail(new FeedInterrupted('closed'));
  }
}
