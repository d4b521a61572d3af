import { SessionRequired } from '../../../../src/core/domain/errors';
import { CLIENT, createTestCore } from '../../../support/builders/test-core';

const PASSWORD = 's3cret-enough-for-now';

async function signedUp() {
  const core = createTestCore();
  const created = await core.signUp.execute({ email: 'ada@example.com', password: PASSWORD, clientAddress: CLIENT });
  return { core, created, token: created.session.token };
}

describe('SignUp', () => {
  it('opens the account as CreateAccount does, and a session', async () => {
    const { core, created } = await signedUp();
    expect(await core.authenticateApiKey.execute({ apiKey: created.apiKey, client: CLIENT })).toMatchObject({
      accountId: created.account.id,
    });
    expect(core.database.sessionsOf(created.account.id)).toHaveLength(1);
  });
});

describe('ResolveSession', () => {
  it('gives the signed-in account for a token, and refuses an unknown one', async () => {
    const { core, created, token } = await signedUp();
    const signedIn = await core.resolveSession.execute({ sessionToken: token });
    expect(signedIn).toMatchObject({ email: 'ada@example.com', session: { accountId: created.account.id } });
    await expect(core.resolveSession.execute({ sessionToken: 'not-a-session' })).rejects.toBeInstanceOf(
      SessionRequired,
    );
  });

  it('moves the idle limit with activity (recorded once a minute), and the console key expiry with it', async () => {
    const { core, created, token } = await signedUp();
    const consoleKeyId = core.database.sessionsOf(created.account.id)[0]?.consoleKeyId ?? '';
    core.clock.advanceBy(30_000);
    await core.resolveSession.execute({ sessionToken: token });
    expect(core.database.sessionsOf(created.account.id)[0]?.lastSeenAt).toEqual(new Date('2030-01-01T12:00:00Z'));

    core.clock.advanceMinutes(11 * 60);
    const signedIn = await core.resolveSession.execute({ sessionToken: token });
    expect(signedIn.session.lastSeenAt).toEqual(core.clock.now());
    expect(core.database.apiKey(consoleKeyId)?.expiresAt).toEqual(signedIn.deadline);
    core.clock.advanceMinutes(11 * 60);
    // 22 hours after it opened, alive: the activity 11 hours ago moved the idle limit.
    expect(await core.resolveSession.execute({ sessionToken: token })).toMatchObject({
      email: 'ada@example.com',
      session: { id: signedIn.session.id, accountId: created.account.id, lastSeenAt: core.clock.now() },
      deadline: new Date(core.clock.now().getTime() + 12 * 60 * 60_000),
    });
  });

  it('ends a session idle for 12 hours, removing it and revoking its console key', async () => {
    const { core, created, token } = await signedUp();
    const consoleKeyId = core.database.sessionsOf(created.account.id)[0]?.consoleKeyId ?? '';
    core.clock.advanceMinutes(12 * 60);
    await expect(core.resolveSession.execute({ sessionToken: token })).rejects.toBeInstanceOf(SessionRequired);
    expect(core.database.sessionsOf(created.account.id)).toEqual([]);
    expect(core.database.apiKey(consoleKeyId)?.revokedAt).toEqual(core.clock.now());
  });

  it('ends a session 7 days after it opened, however active', async () => {
    const { core, token } = await signedUp();
    for (let visit = 0; visit < 15; visit++) {
      core.clock.advanceMinutes(11 * 60);
      await core.resolveSession.execute({ sessionToken: token });
    }
    core.clock.advanceMinutes(3 * 60);
    await expect(core.resolveSession.execute({ sessionToken: token })).rejects.toBeInstanceOf(SessionRequired);
  });
});

describe('LogOut', () => {
  it('ends the session and revokes its console key; a second sign-out is harmless', async () => {
    const { core, token } = await signedUp();
    const consoleKey = core.hasher.deriveConsoleKey(token).key;
    await core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT });

    await core.logOut.execute({ sessionToken: token });
    await core.logOut.execute({ sessionToken: token });
    await expect(core.resolveSession.execute({ sessionToken: token })).rejects.toBeInstanceOf(SessionRequired);
    await expect(core.authenticateApiKey.execute({ apiKey: consoleKey, client: CLIENT })).rejects.toThrow(
      'unknown or revoked',
    );
  });
});

describe('OpenConsole', () => {
  it("gives the session's console key, the same on every visit, and null once it is revoked", async () => {
    const { core, created, token } = await signedUp();
    const first = await core.openConsole.execute({ sessionToken: token });
    expect(first.apiKey).toBe(core.hasher.deriveConsoleKey(token).key);
    expect((await core.openConsole.execute({ sessionToken: token })).apiKey).toBe(first.apiKey);

    const keyId = core.database.sessionsOf(created.account.id)[0]?.consoleKeyId ?? '';
    await core.revokeApiKey.execute({ accountId: created.account.id, keyId });
    expect((await core.openConsole.execute({ sessionToken: token })).apiKey).toBeNull();
  });
});
