import {
  PasswordChecksBusy,
  CommonPassword,
  InvalidCredentials,
  ShortPassword,
  WrongCurrentPassword,
} from '../../../../src/core/domain/errors';
import { createTestCore } from '../../../support/builders/test-core';
import { typedHash } from '../../../support/in-memory/fake-credential-hasher';
import { samplesOf } from '../../../support/metrics/exposition';
import { expectSignedIn } from '../../../support/signed-in';

const PASSWORD = 's3cret-enough-for-now';
const NEW_PASSWORD = 'a quiet lantern over the fjord';
const ADDRESS = '192.0.2.1';

async function signedIn() {
  const core = createTestCore();
  const { account } = await core.createAccount.execute({
    email: 'ada@example.com',
    password: PASSWORD,
    clientAddress: ADDRESS,
  });
  const signIn = (password: string) =>
    core.logIn.execute({ email: 'ada@example.com', password, clientAddress: ADDRESS, deviceStamp: null });
  const [here, elsewhere] = [await signIn(PASSWORD), await signIn(PASSWORD)];
  const changing = (currentPassword: string, newPassword: string) =>
    core.changePassword.execute({
      accountId: account.id,
      sessionId: here.session.id,
      currentPassword,
      newPassword,
      clientAddress: ADDRESS,
      deviceStamp: null,
    });
  return { core, account, here, elsewhere, signIn, changing };
}

it('replaces the password, keeps the session asking and ends the others with their console keys', async () => {
  const { core, account, here, elsewhere, signIn, changing } = await signedIn();
  await core.transactions.exclusive(account.id, (repos) =>
    repos.accounts.updatePassword(account.id, {
      passwordHash: account.passwordHash,
      passwordChangeDue: true,
      deviceStamp: 0,
    }),
  );

  await changing(PASSWORD, NEW_PASSWORD);

  expect(core.database.sessionsOf(account.id).map((session) => session.id)).toEqual([here.session.id]);
  expect(core.database.apiKey(elsewhere.session.consoleKeyId ?? '')?.revokedAt).not.toBeNull();
  expect(core.database.contents().accounts[0]).toMatchObject({
    passwordHash: `hashed(${NEW_PASSWORD})`,
    passwordChangeDue: false,
  });
  await expectSignedIn(core, signIn(NEW_PASSWORD), account.id);
  await expect(signIn(PASSWORD)).rejects.toThrow();
});

it.each([
  ['a short new password', 'too short', ShortPassword],
  ['a common new password', 'passwordpassword', CommonPassword],
])('refuses %s and changes nothing', async (_label, newPassword, refusal) => {
  const { core, changing } = await signedIn();
  const before = core.database.contents();
  await expect(changing(PASSWORD, newPassword)).rejects.toBeInstanceOf(refusal);
  expect(core.database.contents()).toEqual(before);
});

it('refuses a wrong current password, and pauses after 5 from one address, the right one too', async () => {
  const { core, changing } = await signedIn();
  const before = core.database.contents().accounts;
  for (let failure = 0; failure < 5; failure++)
    await expect(changing('not it at all, sorry', NEW_PASSWORD)).rejects.toBeInstanceOf(WrongCurrentPassword);
  await expect(changing(PASSWORD, NEW_PASSWORD)).rejects.toBeInstanceOf(WrongCurrentPassword);
  expect(core.database.contents().accounts).toEqual(before);
  core.clock.advanceMinutes(15);
  await expect(changing(PASSWORD, NEW_PASSWORD)).resolves.toEqual({ deviceStamp: 1 });
});

it('gives back an attempt whose current password the busy password work never verified', async () => {
  const { core, changing } = await signedIn();
  jest.spyOn(core.hasher, 'verifyPassword').mockRejectedValue(new PasswordChecksBusy(2));
  for (let attempt = 0; attempt < 6; attempt++)
    await expect(changing(PASSWORD, NEW_PASSWORD)).rejects.toBeInstanceOf(PasswordChecksBusy);
  jest.restoreAllMocks();
  await expect(changing(PASSWORD, NEW_PASSWORD)).resolves.toEqual({ deviceStamp: 1 });
});

it('is held back by the account-wide back-off as a sign-in is, unless the browser is known', async () => {
  const { core, account, here } = await signedIn();
  for (let failure = 0; failure < 50; failure++)
    await expect(
      core.logIn.execute({
        email: 'ada@example.com',
        password: 'wrong',
        clientAddress: `203.0.113.${failure % 10}`,
        deviceStamp: null,
      }),
    ).rejects.toBeInstanceOf(InvalidCredentials);
  const changing = (deviceStamp: number | null) =>
    core.changePassword.execute({
      accountId: account.id,
      sessionId: here.session.id,
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      clientAddress: '198.51.100.5',
      deviceStamp,
    });

  await expect(changing(null)).rejects.toBeInstanceOf(WrongCurrentPassword);
  await expect(changing(here.deviceStamp + 1)).rejects.toBeInstanceOf(WrongCurrentPassword);
  await expect(changing(here.deviceStamp)).resolves.toEqual({ deviceStamp: here.deviceStamp + 1 });
});

it("moves the account's device stamp on: only the browser that changed the password stays known", async () => {
  const { core, account, here } = await signedIn();
  const { deviceStamp } = await core.changePassword.execute({
    accountId: account.id,
    sessionId: here.session.id,
    currentPassword: PASSWORD,
    newPassword: NEW_PASSWORD,
    clientAddress: ADDRESS,
    deviceStamp: here.deviceStamp,
  });

  expect(deviceStamp).toBe(here.deviceStamp + 1);
  expect(core.database.contents().accounts.find((each) => each.id === account.id)?.deviceStamp).toBe(deviceStamp);
  // Its new cookie's stamp goes ahead in the password work's pool; the one of before does not.
  const signIn = (stamp: number) =>
    core.logIn.execute({
      email: 'ada@example.com',
      password: NEW_PASSWORD,
      clientAddress: ADDRESS,
      deviceStamp: stamp,
    });
  await signIn(here.deviceStamp);
  expect(core.hasher.turns.at(-1)?.knownDevice).toBe(false);
  await signIn(deviceStamp);
  expect(core.hasher.turns.at(-1)?.knownDevice).toBe(true);
});

describe('a password change racing a sign-in with the old password', () => {
  /** Holds the next verification of `password` until `release` is called. */
  function holdVerificationOf(core: ReturnType<typeof createTestCore>, password: string) {
    const verify = core.hasher.verifyPassword.bind(core.hasher);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    let reached: () => void = () => undefined;
    const heldThere = new Promise<void>((resolve) => (reached = resolve));
    jest.spyOn(core.hasher, 'verifyPassword').mockImplementation(async (presented, hash, turn) => {
      const check = await verify(presented, hash, turn);
      if (!held && presented.typed === password) {
        held = true;
        reached();
        await released;
      }
      return check;
    });
    return { heldThere, release };
  }

  afterEach(() => jest.restoreAllMocks());

  it('neither opens a session nor writes the old password back once the change is made', async () => {
    const { core, account, here, changing } = await signedIn();
    // An earlier hash: the sign-in would hash the old password again on success.
    await core.transactions.exclusive(account.id, (repos) =>
      repos.accounts.updatePassword(account.id, {
        passwordHash: typedHash(PASSWORD),
        passwordChangeDue: false,
        deviceStamp: 0,
      }),
    );
    const hold = holdVerificationOf(core, PASSWORD);
    const attacker = core.logIn.execute({
      email: 'ada@example.com',
      password: PASSWORD,
      clientAddress: '203.0.113.9',
      deviceStamp: null,
    });
    await hold.heldThere;

    jest.restoreAllMocks();
    await changing(PASSWORD, NEW_PASSWORD);
    hold.release();

    await expect(attacker).rejects.toBeInstanceOf(InvalidCredentials);
    expect(core.database.contents().accounts[0]?.passwordHash).toBe(`hashed(${NEW_PASSWORD})`);
    expect(core.database.sessionsOf(account.id).map((session) => session.id)).toEqual([here.session.id]);
  });

  it('refuses the second of two changes made with the same current password', async () => {
    const { core, changing } = await signedIn();
    const hold = holdVerificationOf(core, PASSWORD);
    const first = changing(PASSWORD, NEW_PASSWORD);
    await hold.heldThere;
    jest.restoreAllMocks();
    await changing(PASSWORD, 'another quiet lantern by the sea');
    hold.release();

    await expect(first).rejects.toBeInstanceOf(WrongCurrentPassword);
    expect(core.database.contents().accounts[0]?.passwordHash).toBe('hashed(another quiet lantern by the sea)');
    // The one that lost the race is counted as such, once: not as a wrong password, nor as nothing.
    const text = await core.metrics.metrics();
    const count = (outcome: string) =>
      samplesOf(text, 'tns_sign_in_attempts_total', { path: 'password_change', outcome });
    expect([count('right'), count('superseded'), count('wrong')]).toEqual([[1], [1], []]);
  });
});
