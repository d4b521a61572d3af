import {
  ApiKeyNotFound,
  ConsoleKeyNotRollable,
  InvalidApiKey,
  TooManyApiKeys,
} from '../../../../src/core/domain/errors';
import { CLIENT, createTestCore, PRESENT } from '../../../support/builders/test-core';

async function anAccountWithKey() {
  const core = createTestCore();
  const { account, apiKey } = await core.createAccount.execute({
    email: 'ada@example.com',
    password: 's3cret-enough-for-now',
    clientAddress: CLIENT,
  });
  return { core, accountId: account.id, apiKey };
}

describe('API keys', () => {
  it('lists the active keys, oldest first, without revoked ones', async () => {
    const { core, accountId } = await anAccountWithKey();
    const second = await core.createApiKey.execute({ accountId, name: 'ci' });
    const third = await core.createApiKey.execute({ accountId, name: null });
    await core.revokeApiKey.execute({ accountId, keyId: second.key.id });

    const listed = await core.listApiKeys.execute({ accountId });
    expect(listed.map((key) => key.id)).toEqual(['key_1', third.key.id]);
  });

  it('creates a key that works, with its name and creation time, storing only its digest', async () => {
    const { core, accountId } = await anAccountWithKey();
    const issued = await core.createApiKey.execute({ accountId, name: 'deploy' });
    expect(issued.key).toMatchObject({
      accountId,
      name: 'deploy',
      createdAt: new Date(PRESENT),
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: null,
    });
    expect(await core.authenticateApiKey.execute({ apiKey: issued.secret, client: CLIENT })).toEqual({
      accountId,
      apiKeyId: issued.key.id,
    });
    expect(JSON.stringify(core.database.contents())).not.toContain(`"${issued.secret}"`);
  });

  it('refuses a 26th key of the account', async () => {
    const { core, accountId } = await anAccountWithKey();
    for (let n = 1; n < 25; n++) await core.createApiKey.execute({ accountId, name: null });
    await expect(core.createApiKey.execute({ accountId, name: null })).rejects.toBeInstanceOf(TooManyApiKeys);
  });

  it('rolls a key: the old one refused, the new one working under the same name, atomically', async () => {
    const { core, accountId } = await anAccountWithKey();
    const named = await core.createApiKey.execute({ accountId, name: 'ci' });
    const rolled = await core.rollApiKey.execute({ accountId, keyId: named.key.id });

    expect(rolled.key.name).toBe('ci');
    await expect(core.authenticateApiKey.execute({ apiKey: named.secret, client: CLIENT })).rejects.toBeInstanceOf(
      InvalidApiKey,
    );
    await expect(core.authenticateApiKey.execute({ apiKey: rolled.secret, client: CLIENT })).resolves.toMatchObject({
      apiKeyId: rolled.key.id,
    });
    await expect(core.rollApiKey.execute({ accountId, keyId: named.key.id })).rejects.toBeInstanceOf(ApiKeyNotFound);
  });

  it("does not roll a session's console key", async () => {
    const core = createTestCore();
    const created = await core.signUp.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    const keyId = created.session.session.consoleKeyId ?? '';
    await expect(core.rollApiKey.execute({ accountId: created.account.id, keyId })).rejects.toBeInstanceOf(
      ConsoleKeyNotRollable,
    );
  });

  it("revokes a key at once; revoking again, or another account's key, is ApiKeyNotFound", async () => {
    const { core, accountId, apiKey } = await anAccountWithKey();
    const other = await core.createAccount.execute({
      email: 'grace@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    const otherKeyId = core.database.apiKeysOf(other.account.id)[0]?.id ?? '';

    await core.revokeApiKey.execute({ accountId, keyId: 'key_1' });
    await expect(core.authenticateApiKey.execute({ apiKey, client: CLIENT })).rejects.toBeInstanceOf(InvalidApiKey);
    await expect(core.revokeApiKey.execute({ accountId, keyId: 'key_1' })).rejects.toBeInstanceOf(ApiKeyNotFound);
    await expect(core.revokeApiKey.execute({ accountId, keyId: otherKeyId })).rejects.toBeInstanceOf(ApiKeyNotFound);
    expect(await core.authenticateApiKey.execute({ apiKey: other.apiKey, client: CLIENT })).toEqual({
      accountId: other.account.id,
      apiKeyId: otherKeyId,
    });
  });
});
