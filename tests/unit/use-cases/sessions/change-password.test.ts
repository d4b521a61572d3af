import { CommonPassword, ShortPassword, WrongCurrentPassword } from '../../../../src/core/domain/errors';
import { ChangePassword } from '../../../../src/core/use-cases/sessions/change-password';
import { ZxcvbnCommonPasswords } from '../../../../src/infrastructure/passwords/zxcvbn-common-passwords';
import { createTestCore } from '../../../support/builders/test-core';

const PASSWORD = 's3cret-enough-for-now';
const NEW_PASSWORD = 'a quiet lantern over the fjord';
const ADDRESS = '192.0.2.1';

async function signedIn() {
  const core = createTestCore();
  const { account } = await core.createAccount.execute({ email: 'ada@example.com', password: PASSWORD });
  const signIn = (password: string) =>
    core.logIn.execute({ email: 'ada@example.com', password, clientAddress: ADDRESS, knownDevice: false });
  const [here, elsewhere] = [await signIn(PASSWORD), await signIn(PASSWORD)];
  const change = new ChangePassword(core.transactions, core.hasher, core.clock, new ZxcvbnCommonPasswords());
  const changing = (currentPassword: string, newPassword: string) =>
    change.execute({
      accountId: account.id,
      sessionId: here.session.id,
      currentPassword,
      newPassword,
      clientAddress: ADDRESS,
    });
  return { core, account, here, elsewhere, signIn, changing };
}

it('replaces the password, keeps the session asking and ends the others with their console keys', async () => {
  const { core, account, here, elsewhere, signIn, changing } = await signedIn();
  await core.transactions.exclusive(account.id, (repos) =>
    repos.accounts.updatePassword(account.id, { passwordHash: account.passwordHash, passwordChangeDue: true }),
  );

  await changing(PASSWORD, NEW_PASSWORD);

  expect(core.database.sessionsOf(account.id).map((session) => session.id)).toEqual([here.session.id]);
  expect(core.database.apiKey(elsewhere.session.consoleKeyId ?? '')?.revokedAt).not.toBeNull();
  expect(core.database.contents().accounts[0]).toMatchObject({
    passwordHash: `hashed(${NEW_PASSWORD})`,
    passwordChangeDue: false,
  });
  await expect(signIn(NEW_PASSWORD)).resolves.toBeDefined();
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
  await expect(changing(PASSWORD, NEW_PASSWORD)).resolves.toBeUndefined();
});
