import type { ClientBase } from 'pg';
import { EVERY_KEY, keyChangeListener } from '../infrastructure/api-key-cache/key-change-listener';
import type {
  NotificationListener,
  NotificationListenerOptions,
} from '../infrastructure/database/driver/notification-listener';
import { LruVerifiedKeyCache } from '../infrastructure/api-key-cache/lru-verified-key-cache';
import type { EventStreams } from '../interfaces/http/event-stream/event-streams';

export interface VerifiedKeyCaching {
  /** For buildContainer. */
  readonly cache: LruVerifiedKeyCache;
  /** For the database pool: every connection listens for key changes. */
  readonly onConnect: (client: ClientBase) => Promise<void>;
  /**
   * Its events say when the cache is trusted, lost, and which key changed (logs, the event streams
   * of a changed key, tests).
   */
  readonly listener: NotificationListener;
  /** Once the database is open: decides how changes made by others are heard. */
  start(database: { readonly mode: 'external' | 'embedded'; readonly directConnectionString: string }): void;
  /** Closes the listening connection; call before closing the database. */
  close(): Promise<void>;
}

/**
 * The verified-key cache and how it hears of key changes, chosen by where the database is:
 * - a PostgreSQL server may be shared by other processes, so one dedicated connection LISTENs for
 *   their changes and the cache is trusted only while it does;
 * - the embedded PGlite belongs to this process alone, and its one session cannot notify a second
 *   connection: the pool's own LISTEN hears every change the service makes, in-process.
 * `maxEntries` 0 turns caching off (every request reads its key from the database); changes are
 * still heard, for the event streams of a changed key (endStreamsOfChangedKeys).
 */
export function prepareVerifiedKeyCaching(
  options: { readonly maxEntries: number } & NotificationListenerOptions,
): VerifiedKeyCaching {
  // Suspended until it is known how changes will be heard: nothing is trusted before that.
  const cache = new LruVerifiedKeyCache({ maxEntries: options.maxEntries, suspended: true });
  const listener = keyChangeListener(cache, options);
  return {
    cache,
    onConnect: listener.prepareConnection,
    listener,
    start(database) {
      if (database.mode === 'external') listener.start(database.directConnectionString);
      else cache.resume();
    },
    close: () => listener.close(),
  };
}

/**
 * Ends within moments, in this process, the event streams of a key that was revoked, rolled, signed
 * out or deleted in any process: each change heard has its key's streams checked again (as their
 * leases' renewal checks them); after the listening connection was lost, every stream is, since
 * a change may have gone unheard.
 */
export function endStreamsOfChangedKeys(listener: NotificationListener, streams: EventStreams): void {
  listener.on('heard', (keyId) =>
    keyId === EVERY_KEY || keyId === '' ? streams.recheckKeys() : streams.keyChanged(keyId),
  );
  listener.on('subscribed', () => streams.recheckKeys());
}
