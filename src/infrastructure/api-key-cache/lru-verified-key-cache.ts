import type { VerifiedKey, VerifiedKeyCache, VerifiedKeyCacheMark } from '../../core/ports/verified-key-cache';

export interface LruVerifiedKeyCacheOptions {
  /** At most this many keys are kept; the least recently used goes first. 0 keeps none. */
  readonly maxEntries: number;
  /** Start suspended: nothing is found or kept until `resume()` (the process is not yet listening for changes). */
  readonly suspended?: boolean;
}

export interface LruVerifiedKeyCacheStats {
  readonly entries: number;
  readonly hits: number;
  readonly misses: number;
  readonly suspended: boolean;
}

/**
 * The verified keys of this process, in memory, bounded by count. A Map keeps insertion order, so
 * moving a key to the end on each hit makes its first key the least recently used one: the whole
 * LRU is a few lines, not worth a dependency (docs/dependencies.md).
 */
export class LruVerifiedKeyCache implements VerifiedKeyCache {
  private readonly byDigest = new Map<string, VerifiedKey>();
  /** Changes are announced by key id; the cache is looked up by digest. */
  private readonly digestById = new Map<string, string>();
  /** Counts forgettings: a mark taken before one no longer matches after it. */
  private generation = 0;
  private suspended: boolean;
  private hits = 0;
  private misses = 0;

  constructor(private readonly options: LruVerifiedKeyCacheOptions) {
    if (!Number.isSafeInteger(options.maxEntries) || options.maxEntries < 0) {
      throw new RangeError(`maxEntries must be a whole number from 0, not ${options.maxEntries}`);
    }
    this.suspended = options.suspended ?? false;
  }

  find(digest: string): VerifiedKey | null {
    const key = this.suspended ? undefined : this.byDigest.get(digest);
    if (key === undefined) {
      this.misses += 1;
      return null;
    }
    this.hits += 1;
    this.byDigest.delete(digest);
    this.byDigest.set(digest, key);
    return key;
  }

  mark(): VerifiedKeyCacheMark {
    return this.generation;
  }

  remember(key: VerifiedKey, since: VerifiedKeyCacheMark): void {
    if (this.suspended || since !== this.generation || this.options.maxEntries === 0) return;
    // A key id names one digest: one changed in place (by SQL) must not leave the old one behind,
    // where a notification for the id could no longer find it.
    const previous = this.digestById.get(key.id);
    if (previous !== undefined && previous !== key.digest) this.byDigest.delete(previous);
    this.byDigest.delete(key.digest);
    this.byDigest.set(key.digest, key);
    this.digestById.set(key.id, key.digest);
    for (const [digest, oldest] of this.byDigest) {
      if (this.byDigest.size <= this.options.maxEntries) break;
      this.byDigest.delete(digest);
      if (this.digestById.get(oldest.id) === digest) this.digestById.delete(oldest.id);
    }
  }

  forget(keyId: string): void {
    this.generation += 1;
    const digest = this.digestById.get(keyId);
    if (digest === undefined) return;
    this.digestById.delete(keyId);
    this.byDigest.delete(digest);
  }

  /** Drops every key: changes may have been missed (the listening connection was lost, or a table was emptied). */
  forgetAll(): void {
    this.generation += 1;
    this.byDigest.clear();
    this.digestById.clear();
  }

  /** Until `resume()`, every request reads the database: this process may not hear of changes. */
  suspend(): void {
    this.suspended = true;
    this.forgetAll();
  }

  /** Listening again: anything remembered before may have changed unheard, so start empty. */
  resume(): void {
    this.forgetAll();
    this.suspended = false;
  }

  stats(): LruVerifiedKeyCacheStats {
    return { entries: this.byDigest.size, hits: this.hits, misses: this.misses, suspended: this.suspended };
  }
}
