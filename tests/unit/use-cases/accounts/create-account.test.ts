import {
  BlankPassword,
  CommonPassword,
  EmailAlreadyRegistered,
  ShortPassword,
} from '../../../../src/core/domain/errors';
import { Timeline } from '../../../../src/core/domain/timeline';
import { Traveller } from '../../../../src/core/domain/traveller';
import { CLIENT, createTestCore, PRESENT } from '../../../support/builders/test-core';

describe('CreateAccount', () => {
  it('opens the account with a hashed password and a lower-cased email', async () => {
    const core = createTestCore();
    // Typed with a zero-width space and a full-width letter: held as it normalises (password.ts).
    const typed = 's3cret-enough-for-\u200bnow\uff01';
    const { account } = await core.createAccount.execute({
      email: '  Ada@Example.COM ',
      password: typed,
      clientAddress: CLIENT,
    });

    const turn = { clientAddress: CLIENT, knownDevice: false };
    expect(account).toEqual({
      id: 'acc_1',
      email: 'ada@example.com',
      passwordHash: await core.hasher.hashPassword('s3cret-enough-for-now!', turn),
      passwordChangeDue: false,
      deviceStamp: 0,
      createdAt: new Date(PRESENT),
    });
    const presented = { typed, normalised: 's3cret-enough-for-now!' };
    expect((await core.hasher.verifyPassword(presented, account.passwordHash, turn)).matches).toBe(true);
    expect(core.database.contents().accounts).toEqual([account]);
  });

  it("checks and hashes the password in its client's turn, known to no browser yet", async () => {
    const core = createTestCore();
    await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    expect([...core.commonPasswords.turns, ...core.hasher.turns]).toEqual([
      { clientAddress: CLIENT, knownDevice: false, onWait: undefined },
      { clientAddress: CLIENT, knownDevice: false, onWait: undefined },
    ]);
  });

  it('creates the primary timeline and a traveller at home with a running clock', async () => {
    const core = createTestCore();
    const { account } = await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });

    expect(core.database.timeline(account.id, 'primary')).toEqual(Timeline.primary(account.id, new Date(PRESENT)));
    expect(core.database.traveller(account.id)).toEqual(Traveller.newcomer(account.id, new Date(PRESENT)));
    expect(core.database.contents().timelines).toHaveLength(1);
  });

  it('returns the whole API key once and stores only its digest and prefix', async () => {
    const core = createTestCore();
    const { account, apiKey } = await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });

    expect(core.database.apiKeysOf(account.id)).toEqual([
      {
        id: 'key_1',
        accountId: account.id,
        prefix: apiKey.slice(0, 12),
        digest: core.hasher.digestApiKey(apiKey),
        name: null,
        createdAt: new Date(PRESENT),
        lastUsedAt: null,
        revokedAt: null,
        expiresAt: null,
        permissions: null,
      },
    ]);
    expect(JSON.stringify(core.database.contents())).not.toContain(`"${apiKey}"`);
  });

  it.each([
    ['the same spelling', 'ada@example.com'],
    ['a different case', 'ADA@Example.com'],
    ['surrounding white space', '  ada@example.com  '],
  ])('refuses an email already registered, in %s, and changes nothing', async (_label, email) => {
    const core = createTestCore();
    await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    const before = core.database.contents();

    await expect(
      core.createAccount.execute({ email, password: 'another-secret-of-ada', clientAddress: CLIENT }),
    ).rejects.toBeInstanceOf(EmailAlreadyRegistered);
    expect(core.database.contents()).toEqual(before);
  });

  it('gives two accounts separate keys, travellers and primary timelines', async () => {
    const core = createTestCore();
    const first = await core.createAccount.execute({
      email: 'ada@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });
    const second = await core.createAccount.execute({
      email: 'grace@example.com',
      password: 's3cret-enough-for-now',
      clientAddress: CLIENT,
    });

    expect(second.account.id).not.toBe(first.account.id);
    expect(second.apiKey).not.toBe(first.apiKey);
    expect(core.database.contents().timelines.map((timeline) => [timeline.accountId, timeline.id])).toEqual([
      [first.account.id, 'primary'],
      [second.account.id, 'primary'],
    ]);
    expect(core.database.contents().travellers).toHaveLength(2);
  });

  it.each([
    ['passwordpassword', CommonPassword],
    ['1234567812345678', CommonPassword],
    ['QwertyuiopQwertyuiop', CommonPassword],
    ['ada@example.com!!', CommonPassword],
    ['password', ShortPassword],
    ['        ', BlankPassword],
  ])('refuses the password %j with %p, and stores nothing', async (password, refusal) => {
    const core = createTestCore();

    await expect(
      core.createAccount.execute({ email: 'ada@example.com', password, clientAddress: CLIENT }),
    ).rejects.toBeInstanceOf(refusal);
    expect(core.database.contents().accounts).toEqual([]);
    expect(core.database.contents().timelines).toEqual([]);
  });
});
