import { permissionsOf } from '../../../../src/core/domain/api-key-permissions';
import {
  ApiKeyNotFound,
  ApiKeyNotRestricted,
  ConsoleKeyNotRollable,
  InvalidApiKey,
  TooManyApiKeys,
} from '../../../../src/core/domain/errors';
import { CLIENT, createTestCore, PRESENT, type TestCore } from '../../../support/builders/test-core';

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
    const second = await core.createApiKey.execute({ accountId, name: 'ci', permissions: null });
    const third = await core.createApiKey.execute({ accountId, name: null, permissions: null });
    await core.revokeApiKey.execute({ accountId, keyId: second.key.id });

    const listed = await core.listApiKeys.execute({ accountId });
    expect(listed.map((key) => key.id)).toEqual(['key_1', third.key.id]);
  });

  it('creates a key that works, with its name and creation time, storing only its digest', async () => {
    const { core, accountId } = await anAccountWithKey();
    const issued = await core.createApiKey.execute({ accountId, name: 'deploy', permissions: null });
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
      permissions: null,
    });
    expect(JSON.stringify(core.database.contents())).not.toContain(`"${issued.secret}"`);
  });

  it('refuses a 26th key of the account', async () => {
    const { core, accountId } = await anAccountWithKey();
    for (let n = 1; n < 25; n++) await core.createApiKey.execute({ accountId, name: null, permissions: null });
    await expect(core.createApiKey.execute({ accountId, name: null, permissions: null })).rejects.toBeInstanceOf(
      TooManyApiKeys,
    );
  });

  it('rolls a key: the old one refused, the new one working under the same name, atomically', async () => {
    const { core, accountId } = await anAccountWithKey();
    const named = await core.createApiKey.execute({ accountId, name: 'ci', permissions: null });
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
      permissions: null,
    });
  });
});

describe('restricted API keys', () => {
  const ANCHORS_WRITE_EVENTS_READ = permissionsOf({ anchors: 'write', events: 'read' });
  const aWidgetKey = (core: TestCore, accountId: string) =>
    core.createApiKey.execute({ accountId, name: 'widget', permissions: ANCHORS_WRITE_EVENTS_READ });

  it('issues a tnr_ key whose authentication carries its permissions, every other resource none', async () => {
    const { core, accountId } = await anAccountWithKey();
    const issued = await aWidgetKey(core, accountId);

    expect(issued.secret.startsWith('tnr_')).toBe(true);
    expect(issued.key.prefix.startsWith('tnr_')).toBe(true);
    const principal = await core.authenticateApiKey.execute({ apiKey: issued.secret, client: CLIENT });
    expect(principal.permissions).toEqual({
      clock: 'none',
      travels: 'none',
      anchors: 'write',
      timelines: 'none',
      items: 'none',
      events: 'read',
      paradoxes: 'none',
      webhooks: 'none',
    });
  });

  it('counts restricted keys with full ones against the 25', async () => {
    const { core, accountId } = await anAccountWithKey();
    for (let n = 1; n < 25; n++) {
      await core.createApiKey.execute({ accountId, name: null, permissions: n % 2 ? ANCHORS_WRITE_EVENTS_READ : null });
    }
    await expect(
      core.createApiKey.execute({ accountId, name: null, permissions: ANCHORS_WRITE_EVENTS_READ }),
    ).rejects.toBeInstanceOf(TooManyApiKeys);
  });

  it("changes a restricted key's permissions and name: its next authentication has them", async () => {
    const { core, accountId } = await anAccountWithKey();
    const issued = await aWidgetKey(core, accountId);
    await core.authenticateApiKey.execute({ apiKey: issued.secret, client: CLIENT });

    const updated = await core.updateApiKey.execute({
      accountId,
      keyId: issued.key.id,
      name: 'read-only widget',
      permissions: permissionsOf({ events: 'read' }),
    });
    expect(updated).toMatchObject({ name: 'read-only widget', permissions: { anchors: 'none', events: 'read' } });
    const principal = await core.authenticateApiKey.execute({ apiKey: issued.secret, client: CLIENT });
    expect(principal.permissions).toMatchObject({ anchors: 'none', events: 'read' });
    expect(core.database.apiKeysOf(accountId).find((key) => key.id === issued.key.id)?.name).toBe('read-only widget');
  });

  it('gives no permissions to a full key, and changes no key revoked or of another account', async () => {
    const { core, accountId } = await anAccountWithKey();
    const other = await core.createAccount.execute({
      email: 'grace@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    const restricted = await core.createApiKey.execute({
      accountId,
      name: null,
      permissions: ANCHORS_WRITE_EVENTS_READ,
    });
    const none = permissionsOf({});

    await expect(core.updateApiKey.execute({ accountId, keyId: 'key_1', permissions: none })).rejects.toBeInstanceOf(
      ApiKeyNotRestricted,
    );
    await expect(
      core.updateApiKey.execute({ accountId: other.account.id, keyId: restricted.key.id, permissions: none }),
    ).rejects.toBeInstanceOf(ApiKeyNotFound);
    await core.revokeApiKey.execute({ accountId, keyId: restricted.key.id });
    await expect(
      core.updateApiKey.execute({ accountId, keyId: restricted.key.id, permissions: none }),
    ).rejects.toBeInstanceOf(ApiKeyNotFound);
    expect(core.database.apiKeysOf(accountId).map((key) => key.permissions)).toEqual([null, ANCHORS_WRITE_EVENTS_READ]);
  });

  it('rolls a restricted key into another with the same permissions', async () => {
    const { core, accountId } = await anAccountWithKey();
    const issued = await aWidgetKey(core, accountId);
    const rolled = await core.rollApiKey.execute({ accountId, keyId: issued.key.id });

    expect(rolled.secret.startsWith('tnr_')).toBe(true);
    expect(rolled.key.permissions).toEqual(ANCHORS_WRITE_EVENTS_READ);
  });

  it('lists keys a page at a time, oldest first, the last page with no next', async () => {
    const { core, accountId } = await anAccountWithKey();
    for (let n = 0; n < 4; n++) await core.createApiKey.execute({ accountId, name: `k${n}`, permissions: null });

    const first = await core.listApiKeys.page({ accountId, limit: 2, after: null });
    const second = await core.listApiKeys.page({ accountId, limit: 2, after: first.next });
    const third = await core.listApiKeys.page({ accountId, limit: 2, after: second.next });
    expect([first, second, third].map((page) => page.keys.map((key) => key.name))).toEqual([
      [null, 'k0'],
      ['k1', 'k2'],
      ['k3'],
    ]);
    expect(third.next).toBeNull();
  });
});
