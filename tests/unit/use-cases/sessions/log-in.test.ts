import { InvalidCredentials, PasswordChecksBusy } from '../../../../src/core/domain/errors';
import { MAX_SESSIONS_PER_ACCOUNT } from '../../../../src/core/domain/session';
import { createTestCore, type TestCore } from '../../../support/builders/test-core';
import { typedHash } from '../../../support/in-memory/fake-credential-hasher';
import { samplesOf } from '../../../support/metrics/exposition';
import { expectSignedIn } from '../../../support/signed-in';

const PASSWORD = 's3cret-enough-for-now';
const ADDRESS = '192.0.2.1';

async function withAccount(email = 'ada@example.com'): Promise<{ core: TestCore; accountId: string }> {
  const core = createTestCore();
  const { account } = await core.createAccount.execute({ email, password: PASSWORD, clientAddress: ADDRESS });
  return { core, accountId: account.id };
}

describe('LogIn', () => {
  it('opens a session with its console key, storing only digests', async () => {
    const { core, accountId } = await withAccount();
    const opened = await core.logIn.execute({
      email: ' ADA@example.com ',
      password: PASSWORD,
      clientAddress: ADDRESS,
      deviceStamp: null,
    });

    expect(opened.session.accountId).toBe(accountId);
    expect(core.database.sessionsOf(accountId)).toEqual([opened.session]);
    expect(opened.session.tokenDigest).toBe(core.hasher.digestSessionToken(opened.token));
    const consoleKey = core.database.apiKey(opened.session.consoleKeyId ?? '');
    expect(consoleKey).toMatchObject({
      name: 'console (session)',
      revokedAt: null,
      expiresAt: new Date(Date.parse('2030-01-02T00:00:00Z')),
    });
    expect(consoleKey?.digest).toBe(core.hasher.digestApiKey(core.hasher.deriveConsoleKey(opened.token).key));
    expect(JSON.stringify(core.database.contents())).not.toContain(opened.token);
  });

  it.each([
    ['a wrong password', 'ada@example.com', 'wrong password'],
    ['an unknown email', 'nobody@example.com', PASSWORD],
  ])('refuses %s with InvalidCredentials, after one password verification', async (_case, email, password) => {
    const { core } = await withAccount();
    const verify = jest.spyOn(core.hasher, 'verifyPassword');

    await expect(
      core.logIn.execute({ email, password, clientAddress: ADDRESS, deviceStamp: null }),
    ).rejects.toBeInstanceOf(InvalidCredentials);
    expect(verify).toHaveBeenCalledTimes(1);
    expect(core.database.contents().apiKeys).toHaveLength(1);
  });

  it('locks an email from one address after 5 failures in 15 minutes for 15 minutes, right or not', async () => {
    const { core, accountId } = await withAccount();
    const attempt = (password: string) =>
      core.logIn.execute({ email: 'ada@example.com', password, clientAddress: ADDRESS, deviceStamp: null });
    for (let failure = 0; failure < 5; failure++)
      await expect(attempt('wrong')).rejects.toBeInstanceOf(InvalidCredentials);

    await expect(attempt(PASSWORD)).rejects.toBeInstanceOf(InvalidCredentials);
    core.clock.advanceMinutes(14);
    await expect(attempt(PASSWORD)).rejects.toBeInstanceOf(InvalidCredentials);
    core.clock.advanceMinutes(1);
    await expectSignedIn(core, attempt(PASSWORD), accountId);
    expect(core.database.loginCounter('email-address:ada@example.com|192.0.2.1')).toBeUndefined();
  });

  it('counts failures in a window: 4 failures, 15 minutes apart from the next, never lock', async () => {
    const { core, accountId } = await withAccount();
    const attempt = (password: string) =>
      core.logIn.execute({ email: 'ada@example.com', password, clientAddress: ADDRESS, deviceStamp: null });
    for (let failure = 0; failure < 4; failure++)
      await expect(attempt('wrong')).rejects.toBeInstanceOf(InvalidCredentials);
    core.clock.advanceMinutes(15);
    for (let failure = 0; failure < 4; failure++)
      await expect(attempt('wrong')).rejects.toBeInstanceOf(InvalidCredentials);
    await expectSignedIn(core, attempt(PASSWORD), accountId);
  });

  it('keeps the owner at another address signing in while guesses from one address are locked', async () => {
    const { core, accountId } = await withAccount();
    const from = (clientAddress: string, password: string) =>
      core.logIn.execute({ email: 'ada@example.com', password, clientAddress, deviceStamp: null });
    for (let failure = 0; failure < 6; failure++)
      await expect(from('203.0.113.9', 'wrong')).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(from('203.0.113.9', PASSWORD)).rejects.toBeInstanceOf(InvalidCredentials);

    await expectSignedIn(core, from(ADDRESS, PASSWORD), accountId);
  });

  it('backs off unknown browsers after 50 failures in an hour from anywhere, not known ones', async () => {
    const { core, accountId } = await withAccount();
    // The account's stamp: a browser that signed in to it before, since its last password change.
    const attempt = (clientAddress: string, password: string, known = false) =>
      core.logIn.execute({ email: 'ada@example.com', password, clientAddress, deviceStamp: known ? 0 : null });
    // 49 guesses from ten addresses: none meets its own lock.
    for (let failure = 0; failure < 49; failure++)
      await expect(attempt(`203.0.113.${failure % 10}`, 'wrong')).rejects.toBeInstanceOf(InvalidCredentials);
    // A known browser's guesses are not counted against the account.
    await expect(attempt(ADDRESS, 'wrong', true)).rejects.toBeInstanceOf(InvalidCredentials);
    await expectSignedIn(core, attempt('198.51.100.1', PASSWORD), accountId);

    // The 50th guess is still evaluated; past it an unknown browser waits an hour, a known one does not.
    await expect(attempt('203.0.113.99', 'wrong')).rejects.toBeInstanceOf(InvalidCredentials);
    await expect(attempt('198.51.100.3', PASSWORD)).rejects.toBeInstanceOf(InvalidCredentials);
    await expectSignedIn(core, attempt(ADDRESS, PASSWORD, true), accountId);
    core.clock.advanceMinutes(59);
    await expect(attempt('198.51.100.3', PASSWORD)).rejects.toBeInstanceOf(InvalidCredentials);
    core.clock.advanceMinutes(1);
    await expectSignedIn(core, attempt('198.51.100.3', PASSWORD), accountId);
  });

  it("runs its password work in its client's turn, ahead only with the account's device stamp", async () => {
    const { core } = await withAccount();
    const waited: number[] = [];
    const signIn = (deviceStamp: number | null) =>
      core.logIn.execute({
        email: 'ada@example.com',
        password: PASSWORD,
        clientAddress: ADDRESS,
        deviceStamp,
        onPasswordWait: (ms) => waited.push(ms),
      });
    const lastTurns = () => [core.hasher.turns.at(-1), core.commonPasswords.turns.at(-1)];

    expect((await signIn(0)).deviceStamp).toBe(0);
    for (const turn of lastTurns()) expect(turn).toMatchObject({ clientAddress: ADDRESS, knownDevice: true });
    for (const stale of [1, null]) {
      await signIn(stale);
      for (const turn of lastTurns()) expect(turn).toMatchObject({ clientAddress: ADDRESS, knownDevice: false });
    }
    // What the pool says of its wait reaches the request.
    core.hasher.turns.at(-1)?.onWait?.(12);
    expect(waited).toEqual([12]);
  });

  it('gives back the attempts the password work refused as busy: retrying uses up no allowance', async () => {
    const { core, accountId } = await withAccount();
    jest.spyOn(core.hasher, 'verifyPassword').mockRejectedValue(new PasswordChecksBusy(3));
    for (let attempt = 0; attempt < 30; attempt++)
      await expect(
        core.logIn.execute({ email: 'ada@example.com', password: PASSWORD, clientAddress: ADDRESS, deviceStamp: null }),
      ).rejects.toBeInstanceOf(PasswordChecksBusy);
    jest.restoreAllMocks();

    await expectSignedIn(
      core,
      core.logIn.execute({ email: 'ada@example.com', password: PASSWORD, clientAddress: ADDRESS, deviceStamp: null }),
      accountId,
    );
  });

  it('locks an address after 20 failures, whatever the emails, but not other addresses', async () => {
    const { core, accountId } = await withAccount();
    for (let failure = 0; failure < 20; failure++) {
      await expect(
        core.logIn.execute({
          email: `guess${failure}@example.com`,
          password: 'x',
          clientAddress: ADDRESS,
          deviceStamp: null,
        }),
      ).rejects.toBeInstanceOf(InvalidCredentials);
    }
    await expect(
      core.logIn.execute({ email: 'ada@example.com', password: PASSWORD, clientAddress: ADDRESS, deviceStamp: null }),
    ).rejects.toBeInstanceOf(InvalidCredentials);
    await expectSignedIn(
      core,
      core.logIn.execute({
        email: 'ada@example.com',
        password: PASSWORD,
        clientAddress: '192.0.2.2',
        deviceStamp: null,
      }),
      accountId,
    );
  });

  it('clears the sessions of the account that ended unseen, revoking their console keys', async () => {
    const { core, accountId } = await withAccount();
    const first = await core.logIn.execute({
      email: 'ada@example.com',
      password: PASSWORD,
      clientAddress: ADDRESS,
      deviceStamp: null,
    });
    core.clock.advanceMinutes(13 * 60);
    await core.logIn.execute({
      email: 'ada@example.com',
      password: PASSWORD,
      clientAddress: ADDRESS,
      deviceStamp: null,
    });

    expect(core.database.sessionsOf(accountId).map((session) => session.id)).not.toContain(first.session.id);
    expect(core.database.apiKey(first.session.consoleKeyId ?? '')?.revokedAt).not.toBeNull();
  });

  it('keeps at most MAX_SESSIONS_PER_ACCOUNT sessions: signing in past it ends the oldest and its key', async () => {
    const { core, accountId } = await withAccount();
    const signIn = () =>
      core.logIn.execute({ email: 'ada@example.com', password: PASSWORD, clientAddress: ADDRESS, deviceStamp: null });
    const opened = [];
    for (let n = 0; n < MAX_SESSIONS_PER_ACCOUNT + 2; n++) {
      opened.push(await signIn());
      core.clock.advanceMinutes(1);
    }

    const kept = core.database.sessionsOf(accountId).map((session) => session.id);
    expect(kept.sort()).toEqual(
      opened
        .slice(2)
        .map((each) => each.session.id)
        .sort(),
    );
    for (const ended of opened.slice(0, 2))
      expect(core.database.apiKey(ended.session.consoleKeyId ?? '')?.revokedAt).toEqual(expect.any(Date));
    for (const live of opened.slice(2))
      expect(core.database.apiKey(live.session.consoleKeyId ?? '')?.revokedAt).toBeNull();
  });
});

describe('LogIn, for a password set under earlier rules', () => {
  /** An account signed up before passwords were normalised and held to today's rule. */
  async function anEarlierAccount(typedPassword: string) {
    const core = createTestCore();
    const account = {
      id: 'acc_early',
      email: 'early@example.com',
      passwordHash: typedHash(typedPassword),
      passwordChangeDue: false,
      deviceStamp: 0,
      createdAt: core.clock.now(),
    };
    await core.transactions.exclusive(account.id, (repos) => repos.accounts.add(account));
    const signIn = (password: string) =>
      core.logIn.execute({ email: account.email, password, clientAddress: ADDRESS, deviceStamp: null });
    const stored = () => core.database.contents().accounts.find((each) => each.id === account.id);
    const signsIn = (password: string) => expectSignedIn(core, signIn(password), account.id);
    return { core, signIn, signsIn, stored };
  }

  it('signs in with the password as typed, then holds it hashed as it normalises', async () => {
    const typed = 'quiet lantern\u200b over the fjord';
    const { signsIn, stored } = await anEarlierAccount(typed);

    await signsIn(typed);
    expect(stored()).toMatchObject({ passwordHash: 'hashed(quiet lantern over the fjord)', passwordChangeDue: false });
    // From now on either spelling is the same password.
    await signsIn('quiet lantern over the fjord');
  });

  it("keeps signing in with a password today's rule refuses, and marks it due to be changed", async () => {
    const { signsIn, stored } = await anEarlierAccount('Password123!');

    await signsIn('Password123!');
    expect(stored()).toMatchObject({ passwordHash: 'hashed(Password123!)', passwordChangeDue: true });
    await signsIn('Password123!');
    expect(stored()?.passwordChangeDue).toBe(true);
  });

  it('changes nothing stored when a wrong password is tried', async () => {
    const { signIn, stored } = await anEarlierAccount('Password123!');
    const before = stored();
    await expect(signIn('Password123?')).rejects.toBeInstanceOf(InvalidCredentials);
    expect(stored()).toEqual(before);
  });
});

it('counts each attempt by its outcome, never by who made it', async () => {
  const { core } = await withAccount();
  const attempt = (password: string) =>
    core.logIn.execute({ email: 'ada@example.com', password, clientAddress: ADDRESS, deviceStamp: null });
  await attempt(PASSWORD);
  for (let failure = 0; failure < 5; failure++)
    await expect(attempt('wrong')).rejects.toBeInstanceOf(InvalidCredentials);
  await expect(attempt(PASSWORD)).rejects.toBeInstanceOf(InvalidCredentials);

  const text = await core.metrics.metrics();
  const count = (outcome: string) => samplesOf(text, 'tns_sign_in_attempts_total', { path: 'sign_in', outcome });
  expect([count('right'), count('wrong'), count('locked')]).toEqual([[1], [5], [1]]);
  expect(text).not.toContain('ada@example.com');
});
