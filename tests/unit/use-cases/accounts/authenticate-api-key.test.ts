import { InvalidApiKey } from '../../../../src/core/domain/errors';
import { CLIENT, createTestCore, PRESENT } from '../../../support/builders/test-core';

describe('AuthenticateApiKey', () => {
  it('turns a valid key into the account and key it acts for', async () => {
    const core = createTestCore();
    await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    const { account, apiKey } = await core.createAccount.execute({
      email: 'grace@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    const [storedKey] = core.database.apiKeysOf(account.id);

    expect(await core.authenticateApiKey.execute({ apiKey, client: CLIENT })).toEqual({
      accountId: account.id,
      apiKeyId: storedKey?.id,
      permissions: null,
    });
  });

  it.each([
    ['an unknown well-formed key', `tns_${'A'.repeat(43)}`],
    ['a malformed key', 'not-a-key'],
    ['an empty key', ''],
  ])('refuses %s with InvalidApiKey', async (_label, apiKey) => {
    const core = createTestCore();
    await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });

    await expect(core.authenticateApiKey.execute({ apiKey, client: CLIENT })).rejects.toBeInstanceOf(InvalidApiKey);
  });

  it('refuses a key that differs from a valid one in its last character only', async () => {
    const core = createTestCore();
    const { apiKey } = await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    const altered = `${apiKey.slice(0, -1)}${apiKey.endsWith('Z') ? 'Y' : 'Z'}`;

    await expect(core.authenticateApiKey.execute({ apiKey: altered, client: CLIENT })).rejects.toBeInstanceOf(
      InvalidApiKey,
    );
  });

  it('refuses a valid key with surrounding white space', async () => {
    const core = createTestCore();
    const { apiKey } = await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });

    await expect(core.authenticateApiKey.execute({ apiKey: ` ${apiKey}`, client: CLIENT })).rejects.toBeInstanceOf(
      InvalidApiKey,
    );
  });

  it('refuses a revoked key', async () => {
    const core = createTestCore();
    const secret = `tns_${'R'.repeat(43)}`;
    await core.transactions.exclusive('acc_1', (repos) =>
      repos.apiKeys.add({
        id: 'key_revoked',
        accountId: 'acc_1',
        prefix: secret.slice(0, 12),
        digest: core.hasher.digestApiKey(secret),
        name: null,
        createdAt: core.clock.now(),
        lastUsedAt: null,
        revokedAt: core.clock.now(),
        expiresAt: null,
        permissions: null,
      }),
    );

    await expect(core.authenticateApiKey.execute({ apiKey: secret, client: CLIENT })).rejects.toBeInstanceOf(
      InvalidApiKey,
    );
  });

  it('refuses a key past its expiry (a console key whose session ended)', async () => {
    const core = createTestCore();
    await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    const { token } = await core.logIn.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: '192.0.2.1',
      deviceStamp: null,
    });
    const consoleKey = core.hasher.deriveConsoleKey(token).key;
    await core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT });

    core.clock.advanceMinutes(12 * 60);
    await expect(core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT })).rejects.toBeInstanceOf(
      InvalidApiKey,
    );
  });

  it('records the last use at most once a minute', async () => {
    const core = createTestCore();
    const { account, apiKey } = await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    const lastUsed = () => core.database.apiKeysOf(account.id)[0]?.lastUsedAt;
    expect(lastUsed()).toBeNull();

    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    expect(lastUsed()).toEqual(new Date(PRESENT));

    core.clock.advanceBy(59_000);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    expect(lastUsed()).toEqual(new Date(PRESENT));

    core.clock.advanceBy(1_000);
    await core.authenticateApiKey.execute({ apiKey, client: CLIENT });
    expect(lastUsed()).toEqual(new Date(Date.parse(PRESENT) + 60_000));
  });
});
