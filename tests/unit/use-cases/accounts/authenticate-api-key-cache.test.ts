// AuthenticateApiKey with the service's in-memory cache of verified keys: the common request reads
// nothing, and every way a key stops being valid is honoured on the very next request.
import { permissionsOf } from '../../../../src/core/domain/api-key-permissions';
import { InvalidApiKey } from '../../../../src/core/domain/errors';
import { LruVerifiedKeyCache } from '../../../../src/infrastructure/api-key-cache/lru-verified-key-cache';
import { AuthenticateApiKey } from '../../../../src/core/use-cases/accounts/authenticate-api-key';
import { CLIENT, createTestCore, PRESENT, type TestCore } from '../../../support/builders/test-core';
import { InMemoryApiKeyRepository } from '../../../support/in-memory/repositories';

const PASSWORD = 's3cret-enough-for-now';

/** Counts the key reads authentication makes (the database round trips the cache saves). */
function countKeyReads(): { readonly count: () => number } {
  const spy = jest.spyOn(InMemoryApiKeyRepository.prototype, 'findByDigest');
  return { count: () => spy.mock.calls.length };
}

afterEach(() => jest.restoreAllMocks());

async function anAccount(core: TestCore, email = 'ada@example.com') {
  const { account, apiKey } = await core.createAccount.execute({ email, password: PASSWORD, clientAddress: CLIENT });
  const keyId = core.database.apiKeysOf(account.id)[0]?.id ?? '';
  return { accountId: account.id, apiKey, keyId };
}

async function aConsoleKey(core: TestCore) {
  await core.createAccount.execute({ email: 'ada@example.com', password: PASSWORD, clientAddress: CLIENT });
  const { token, session } = await core.logIn.execute({
    email: 'ada@example.com',
    password: PASSWORD,
    clientAddress: '192.0.2.1',
    deviceStamp: null,
  });
  return { token, session, consoleKey: core.hasher.deriveConsoleKey(token).key };
}

describe('AuthenticateApiKey with the verified-key cache', () => {
  it('reads a key once, then answers from memory within the minute', async () => {
    const core = createTestCore();
    const { accountId, apiKey, keyId } = await anAccount(core);
    const reads = countKeyReads();

    for (let request = 0; request < 5; request++) {
      expect(await core.authenticateApiKey.execute({ apiKey, client: CLIENT })).toEqual({
        accountId,
        apiKeyId: keyId,
        permissions: null,
      });
      core.clock.advanceBy(10_000);
    }
    expect(reads.count()).toBe(1);
    expect(core.keyCache.stats()).toMatchObject({ entries: 1, hits: 4 });
  });

  it("answers a restricted key's permissions from memory, and reads them again once they change", async () => {
    const core = createTestCore();
    const { accountId } = await anAccount(core);
    const issued = await core.createApiKey.execute({
      accountId,
      name: null,
      permissions: permissionsOf({ items: 'read' }),
    });
    const reads = countKeyReads();
    const permissionsNow = async () =>
      (await core.authenticateApiKey.execute({ apiKey: issued.secret, client: CLIENT })).permissions;

    for (let request = 0; request < 3; request++) expect(await permissionsNow()).toMatchObject({ items: 'read' });
    expect(reads.count()).toBe(1);

    await core.updateApiKey.execute({
      accountId,
      keyId: issued.key.id,
      permissions: permissionsOf({ items: 'write' }),
    });
    expect(await permissionsNow()).toMatchObject({ items: 'write' });
    expect(await permissionsNow()).toMatchObject({ items: 'write' });
    expect(reads.count()).toBe(2);
  });

  it('still records the last use once a minute: the request that is due reads the key again and writes', async () => {
    const core = createTestCore();
    const { apiKey, keyId } = await anAccount(core);
    const reads = countKeyReads();
    const lastUsed = () => core.database.apiKey(keyId)?.lastUsedAt;

    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    expect(lastUsed()).toEqual(new Date(PRESENT));
    core.clock.advanceBy(59_999);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    expect(lastUsed()).toEqual(new Date(PRESENT));
    expect(reads.count()).toBe(1);

    core.clock.advanceBy(1);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    expect(lastUsed()).toEqual(new Date(Date.parse(PRESENT) + 60_000));
    expect(reads.count()).toBe(2);
    core.clock.advanceBy(30_000);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    expect(reads.count()).toBe(2);
  });

  it("trusts a remembered key for a minute of this process's clock, even if another process's ran ahead", async () => {
    const core = createTestCore();
    const { apiKey } = await anAccount(core);
    // The last use as a process ten minutes ahead recorded it.
    const findByDigest = InMemoryApiKeyRepository.prototype.findByDigest;
    const reads = jest.spyOn(InMemoryApiKeyRepository.prototype, 'findByDigest').mockImplementation(async function (
      this: InMemoryApiKeyRepository,
      digest: string,
    ) {
      const key = await findByDigest.call(this, digest);
      return key && { ...key, lastUsedAt: new Date(core.clock.now().getTime() + 10 * 60_000) };
    });

    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    core.clock.advanceBy(61_000);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    expect(reads.mock.calls.length).toBe(2);
  });

  it('refuses a revoked key on the next request', async () => {
    const core = createTestCore();
    const { accountId, apiKey, keyId } = await anAccount(core);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });

    await core.revokeApiKey.execute({ accountId, keyId });
    await expect(core.authenticateApiKey.execute({ apiKey, client: CLIENT })).rejects.toBeInstanceOf(InvalidApiKey);
  });

  it('refuses a rolled key on the next request, and accepts its replacement', async () => {
    const core = createTestCore();
    const { accountId, apiKey, keyId } = await anAccount(core);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });

    const rolled = await core.rollApiKey.execute({ accountId, keyId });
    await expect(core.authenticateApiKey.execute({ apiKey, client: CLIENT })).rejects.toBeInstanceOf(InvalidApiKey);
    expect(await core.authenticateApiKey.execute({ apiKey: rolled.secret, client: CLIENT })).toEqual({
      accountId,
      apiKeyId: rolled.key.id,
      permissions: null,
    });
  });

  it('refuses the console key of a session that signed out', async () => {
    const core = createTestCore();
    const { token, consoleKey } = await aConsoleKey(core);
    await core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT });

    await core.logOut.execute({ sessionToken: token });
    await expect(core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT })).rejects.toBeInstanceOf(
      InvalidApiKey,
    );
  });

  it('refuses the console key of a session ended on sight, or cleared by the next sign-in', async () => {
    const core = createTestCore();
    const { token, consoleKey } = await aConsoleKey(core);
    core.clock.advanceMinutes(12 * 60 - 1);
    await core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT });
    core.clock.advanceMinutes(1);
    await expect(core.resolveSession.execute({ sessionToken: token })).rejects.toThrow();
    await expect(core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT })).rejects.toBeInstanceOf(
      InvalidApiKey,
    );

    const other = createTestCore();
    const second = await aConsoleKey(other);
    other.clock.advanceMinutes(12 * 60);
    await other.logIn.execute({
      email: 'ada@example.com',
      password: PASSWORD,
      clientAddress: '192.0.2.1',
      deviceStamp: null,
    });
    await expect(
      other.authenticateApiKey.execute({ apiKey: second.consoleKey, client: CLIENT }),
    ).rejects.toBeInstanceOf(InvalidApiKey);
  });

  it('refuses a remembered key once past its expiry, without reading it again', async () => {
    const core = createTestCore();
    const { consoleKey } = await aConsoleKey(core);
    core.clock.advanceMinutes(12 * 60 - 0.5); // 30 s before the session's idle limit
    await core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT });
    const reads = countKeyReads();

    core.clock.advanceBy(30_000);
    await expect(core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT })).rejects.toBeInstanceOf(
      InvalidApiKey,
    );
    expect(reads.count()).toBe(0);
  });

  it('accepts a console key whose expiry the session moved: the new expiry is read, not the cached one', async () => {
    const core = createTestCore();
    const { token, session, consoleKey } = await aConsoleKey(core);
    core.clock.advanceMinutes(12 * 60 - 0.5);
    await core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT });
    core.clock.advanceBy(10_000);
    await core.resolveSession.execute({ sessionToken: token }); // activity: the idle limit, and the key's expiry, move

    core.clock.advanceBy(30_000); // past the expiry that was remembered
    expect(await core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT })).toEqual({
      accountId: session.accountId,
      apiKeyId: session.consoleKeyId,
      permissions: null,
    });
  });

  it('does not remember a read that a revocation overtook', async () => {
    const core = createTestCore();
    const { accountId, apiKey, keyId } = await anAccount(core);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    core.clock.advanceMinutes(1); // the next request is due to read the key again
    // Hold that read until the revocation has committed and been forgotten.
    const read = jest.spyOn(InMemoryApiKeyRepository.prototype, 'findByDigest');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const original = read.getMockImplementation();
    read.mockImplementationOnce(async function (this: InMemoryApiKeyRepository, digest: string) {
      const before = await (original ?? InMemoryApiKeyRepository.prototype.findByDigest).call(this, digest);
      await held;
      return before;
    });

    const slow = core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    await core.revokeApiKey.execute({ accountId, keyId });
    release();
    await slow; // it read the key before the revocation: answering it is fair, remembering it is not
    await expect(core.authenticateApiKey.execute({ apiKey, client: CLIENT })).rejects.toBeInstanceOf(InvalidApiKey);
  });

  it('reads every key while the cache is suspended (changes may go unheard), and forgets what it held', async () => {
    const core = createTestCore();
    const { apiKey } = await anAccount(core);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    core.keyCache.suspend();
    const reads = countKeyReads();

    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    expect(reads.count()).toBe(2);
    expect(core.keyCache.stats()).toMatchObject({ entries: 0, suspended: true });

    core.keyCache.resume();
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    expect(reads.count()).toBe(3);
  });

  it('keeps at most its bound of keys: the least recently used one is read again', async () => {
    const core = createTestCore();
    const cache = new LruVerifiedKeyCache({ maxEntries: 2 });
    const authenticate = new AuthenticateApiKey(core.transactions, core.hasher, core.clock, cache, core.failedApiKeys);
    const [a, b, c] = [
      await anAccount(core, 'a@example.com'),
      await anAccount(core, 'b@example.com'),
      await anAccount(core, 'c@example.com'),
    ];
    for (const key of [a, b, a, c]) await authenticate.execute({ apiKey: key.apiKey, client: CLIENT });
    expect(cache.stats().entries).toBe(2);
    const reads = countKeyReads();

    await authenticate.execute({ apiKey: a.apiKey, client: CLIENT });
    await authenticate.execute({ apiKey: c.apiKey, client: CLIENT });
    expect(reads.count()).toBe(0);
    await authenticate.execute({ apiKey: b.apiKey, client: CLIENT });
    expect(reads.count()).toBe(1);
  });

  it('does not remember keys it refused, so unknown keys cannot crowd out known ones', async () => {
    const core = createTestCore();
    const { apiKey } = await anAccount(core);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    for (let guess = 0; guess < 5; guess++) {
      const unknown = `tns_${String(guess).repeat(43)}`;
      await expect(core.authenticateApiKey.execute({ apiKey: unknown, client: CLIENT })).rejects.toBeInstanceOf(
        InvalidApiKey,
      );
    }
    expect(core.keyCache.stats().entries).toBe(1);
  });
});
