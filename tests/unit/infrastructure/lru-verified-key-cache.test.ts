import type { VerifiedKey } from '../../../src/core/ports/verified-key-cache';
import { LruVerifiedKeyCache } from '../../../src/infrastructure/api-key-cache/lru-verified-key-cache';

function aKey(n: number): VerifiedKey {
  return {
    id: `key_${n}`,
    accountId: 'acc_1',
    digest: `digest-${n}`,
    revokedAt: null,
    expiresAt: null,
    lastUsedAt: null,
    permissions: null,
  };
}

function remember(cache: LruVerifiedKeyCache, ...keys: VerifiedKey[]): void {
  for (const key of keys) cache.remember(key, cache.mark());
}

describe('LruVerifiedKeyCache', () => {
  it('finds a remembered key by its digest', () => {
    const cache = new LruVerifiedKeyCache({ maxEntries: 10 });
    remember(cache, aKey(1));
    expect(cache.find('digest-1')).toEqual(aKey(1));
    expect(cache.find('digest-2')).toBeNull();
    expect(cache.stats()).toEqual({ entries: 1, hits: 1, misses: 1, suspended: false });
  });

  it('keeps at most maxEntries keys, dropping the least recently used (a hit counts as use)', () => {
    const cache = new LruVerifiedKeyCache({ maxEntries: 3 });
    remember(cache, aKey(1), aKey(2), aKey(3));
    cache.find('digest-1');
    remember(cache, aKey(4));
    expect(cache.stats().entries).toBe(3);
    expect(cache.find('digest-2')).toBeNull();
    expect([1, 3, 4].map((n) => cache.find(`digest-${n}`)?.id)).toEqual(['key_1', 'key_3', 'key_4']);
  });

  it('stays within its bound however many keys pass through it', () => {
    const cache = new LruVerifiedKeyCache({ maxEntries: 100 });
    for (let n = 0; n < 10_000; n++) remember(cache, aKey(n));
    expect(cache.stats().entries).toBe(100);
    expect(cache.find('digest-9999')).not.toBeNull();
    expect(cache.find('digest-9899')).toBeNull();
  });

  it('keeps one digest per key id, so forgetting the id drops a digest changed in place (by SQL)', () => {
    const cache = new LruVerifiedKeyCache({ maxEntries: 10 });
    remember(cache, aKey(1), { ...aKey(1), digest: 'digest-1-changed' });
    expect(cache.find('digest-1')).toBeNull();
    cache.forget('key_1');
    expect(cache.find('digest-1-changed')).toBeNull();
    expect(cache.stats().entries).toBe(0);
  });

  it('remembering a key again replaces it without growing', () => {
    const cache = new LruVerifiedKeyCache({ maxEntries: 3 });
    remember(cache, aKey(1), { ...aKey(1), lastUsedAt: new Date('2030-01-01T12:01:00Z') });
    expect(cache.stats().entries).toBe(1);
    expect(cache.find('digest-1')?.lastUsedAt).toEqual(new Date('2030-01-01T12:01:00Z'));
  });

  it('forgets a key by its id, and forgets everything on request', () => {
    const cache = new LruVerifiedKeyCache({ maxEntries: 10 });
    remember(cache, aKey(1), aKey(2), aKey(3));
    cache.forget('key_2');
    cache.forget('key_unknown');
    expect(cache.find('digest-2')).toBeNull();
    expect(cache.stats().entries).toBe(2);
    cache.forgetAll();
    expect(cache.stats().entries).toBe(0);
  });

  it('does not remember a read whose mark predates a forgetting, of that key or any other', () => {
    const cache = new LruVerifiedKeyCache({ maxEntries: 10 });
    const beforeForget = cache.mark();
    cache.forget('key_1');
    cache.remember(aKey(1), beforeForget);
    const beforeForgetAll = cache.mark();
    cache.forgetAll();
    cache.remember(aKey(2), beforeForgetAll);
    expect(cache.stats().entries).toBe(0);
    cache.remember(aKey(3), cache.mark());
    expect(cache.stats().entries).toBe(1);
  });

  it('suspended, finds nothing and remembers nothing, and forgets what it held; resumed, starts empty', () => {
    const cache = new LruVerifiedKeyCache({ maxEntries: 10 });
    remember(cache, aKey(1));
    const beforeSuspend = cache.mark();
    cache.suspend();
    expect(cache.find('digest-1')).toBeNull();
    remember(cache, aKey(2));
    expect(cache.stats()).toMatchObject({ entries: 0, suspended: true });

    const whileSuspended = cache.mark();
    cache.resume();
    cache.remember(aKey(3), whileSuspended); // read while changes went unheard
    cache.remember(aKey(4), beforeSuspend);
    expect(cache.stats()).toMatchObject({ entries: 0, suspended: false });
    remember(cache, aKey(5));
    expect(cache.find('digest-5')).not.toBeNull();
  });

  it('can start suspended', () => {
    const cache = new LruVerifiedKeyCache({ maxEntries: 10, suspended: true });
    remember(cache, aKey(1));
    expect(cache.find('digest-1')).toBeNull();
  });

  it('with maxEntries 0 keeps nothing; refuses a bound that is not a whole number from 0', () => {
    const cache = new LruVerifiedKeyCache({ maxEntries: 0 });
    remember(cache, aKey(1));
    expect(cache.find('digest-1')).toBeNull();
    expect(() => new LruVerifiedKeyCache({ maxEntries: -1 })).toThrow(RangeError);
    expect(() => new LruVerifiedKeyCache({ maxEntries: 1.5 })).toThrow(RangeError);
  });
});
