import type { ApiKey } from '../domain/account';

/**
 * What authentication keeps of a key it verified: enough to check it, and what it may do, again
 * without the database.
 */
export type VerifiedKey = Pick<
  ApiKey,
  'id' | 'accountId' | 'digest' | 'revokedAt' | 'expiresAt' | 'lastUsedAt' | 'permissions'
>;

/** Taken before a database read, so that a result older than a change is not remembered after it. */
export type VerifiedKeyCacheMark = number;

/**
 * Keys this process verified lately, by digest, so that most requests authenticate without a
 * database round trip. The adapters keep it true to the database: a change of a key's revocation,
 * expiry or permissions (or its removal) is forgotten in every process when it commits, and while a process
 * cannot be sure to hear of such changes its cache finds nothing and remembers nothing.
 */
export interface VerifiedKeyCache {
  /** The key remembered under this digest, or null (not remembered, or the cache cannot be trusted now). */
  find(digest: string): VerifiedKey | null;
  mark(): VerifiedKeyCacheMark;
  /**
   * Remembers a key read from the database, unless something was forgotten since `mark` was taken
   * before that read: the read may predate the change, and keeping it would undo the forgetting.
   */
  remember(key: VerifiedKey, since: VerifiedKeyCacheMark): void;
  /** Drops the key with this id: it changed in the database. */
  forget(keyId: string): void;
}
