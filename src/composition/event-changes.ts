import type { ClientBase } from 'pg';
import type { NotificationListenerOptions } from '../infrastructure/database/driver/notification-listener';
import { EventChangeSignals, eventChangeListener } from '../infrastructure/event-changes/event-change-signals';
import type { NotificationListener } from '../infrastructure/database/driver/notification-listener';

export interface EventChanges {
  /** For buildContainer: what the event streams subscribe to. */
  readonly signals: EventChangeSignals;
  /** For the database pool: every connection listens for event changes. */
  readonly onConnect: (client: ClientBase) => Promise<void>;
  /** Its events say when streams can open, and when they were ended by a lost connection (logs and tests). */
  readonly listener: NotificationListener;
  /** Once the database is open: decides how changes made by others are heard. */
  start(database: { readonly mode: 'external' | 'embedded'; readonly directConnectionString: string }): void;
  /** Ends every stream (the service is stopping) and closes the listening connection. */
  close(): Promise<void>;
}

/**
 * How a process's event streams hear of changes, chosen by where the database is, as for the
 * verified keys (verified-key-cache.ts): a PostgreSQL server may be shared by other processes, so
 * one dedicated connection LISTENs for their changes and streams open only while it does; the
 * embedded PGlite belongs to this process alone, and the pool's own LISTEN hears every change.
 */
export function prepareEventChanges(options: NotificationListenerOptions = {}): EventChanges {
  const signals = new EventChangeSignals({ suspended: true });
  const listener = eventChangeListener(signals, options);
  return {
    signals,
    onConnect: listener.prepareConnection,
    listener,
    start(database) {
      if (database.mode === 'external') listener.start(database.directConnectionString);
      else signals.resume();
    },
    async close() {
      signals.close();
      await listener.close();
    },
  };
}

/** One pool hook running each of `hooks` in turn (undefined ones skipped). */
export function onConnectAll(
  ...hooks: ReadonlyArray<((client: ClientBase) => Promise<void>) | undefined>
): (client: ClientBase) => Promise<void> {
  return async (client) => {
    for (const hook of hooks) if (hook) await hook(client);
  };
}
