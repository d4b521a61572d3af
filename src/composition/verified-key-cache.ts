import type { ClientBase } from 'pg';
import { keyChangeListener } from '../infrastructure/api-key-cache/key-change-listener';
import type {
  NotificationListener,
  NotificationListenerOptions,
} from '../infrastructure/database/notification-listener';
import { LruVerifiedKeyCache } from '../infrastructure/api-key-cache/lru-verified-key-cache';

export interface VerifiedKeyCaching {
  /** For buildContainer. */
  readonly cache: LruVerifiedKeyCache;
  /** For the database pool: every connection listens for key changes. Undefined when caching is off. */
  readonly onConnect: ((client: ClientBase) => Promise<void>) | undefined;
  /** Its events say when the cache is trusted, lost, and what it forgot (logs and tests). Null when off. */
  readonly listener: NotificationListener | null;
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
 * `maxEntries` 0 turns caching off: every request reads its key from the database.
 */
export function prepareVerifiedKeyCaching(
  options: { readonly maxEntries: number } & NotificationListenerOptions,
): VerifiedKeyCaching {
  if (options.maxEntries === 0) {
    return {
      cache: new LruVerifiedKeyCache({ maxEntries: 0 }),
      onConnect: undefined,
      listener: null,
      start: () => undefined,
      close: async () => undefined,
    };
  }
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
