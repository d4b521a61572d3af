// Keeps a process's verified-key cache true to the database. The database announces every change
// of a key's validity or permissions with NOTIFY when it commits (trigger of migrations
// 20261122050000_api_key_change_notifications and 20261129140110_restricted_api_keys), heard by a
// NotificationListener on every connection of the pool and on one of its own
// (database/driver/notification-listener.ts). While that connection is not subscribed (not yet, or
// lost), the cache is suspended: every request reads the database.
import { NotificationListener, type NotificationListenerOptions } from '../database/driver/notification-listener';

export const KEY_CHANGE_CHANNEL = 'api_key_changes';
/** The payload that stands for every key (the table was emptied). */
export const EVERY_KEY = '*';

/** What the notifications act on: the cache of verified keys. */
export interface KeyChangeTarget {
  forget(keyId: string): void;
  forgetAll(): void;
  suspend(): void;
  resume(): void;
}

/** The listener that keeps `cache` true: a change of a key forgets it, of every key all of them. */
export function keyChangeListener(cache: KeyChangeTarget, options?: NotificationListenerOptions): NotificationListener {
  const target = {
    heard: (keyId: string) => (keyId === EVERY_KEY || keyId === '' ? cache.forgetAll() : cache.forget(keyId)),
    suspend: () => cache.suspend(),
    resume: () => cache.resume(),
  };
  return new NotificationListener({ name: KEY_CHANGE_CHANNEL, purpose: 'api key changes' }, target, options);
}
