import { EmailAlreadyRegistered } from '../../../src/core/domain/errors';
import { anAccountRecord, at, type MakeRepositories, useRepositories } from './subject';

/** AccountRepository: accounts found by email and id; one account per email, even under a race. */
export function accountRepositoryContract(name: string, makeRepositories: MakeRepositories): void {
  describe(`${name}: AccountRepository contract`, () => {
    const subject = useRepositories(makeRepositories);

    it('finds an added account by email and by id, every field intact', async () => {
      const { accounts } = subject.current.repos;
      const account = anAccountRecord('acc_1', { email: 'ada@example.com', createdAt: at('2030-01-01T12:34:56.789Z') });
      await accounts.add(account);

      expect(await accounts.findByEmail('ada@example.com')).toEqual(account);
      expect(await accounts.findById('acc_1')).toEqual(account);
      expect((await accounts.findById('acc_1'))?.createdAt.getTime()).toBe(Date.parse('2030-01-01T12:34:56.789Z'));
    });

    it("replaces an account's stored password, its change-due mark and its device stamp together", async () => {
      const { tx } = subject.current;
      await tx.exclusive('acc_1', (repos) =>
        repos.accounts.add(anAccountRecord('acc_1', { email: 'ada@example.com' })),
      );
      const stored = { passwordHash: 'a new hash', passwordChangeDue: true, deviceStamp: 3 };
      await tx.exclusive('acc_1', (repos) => repos.accounts.updatePassword('acc_1', stored));

      expect(await subject.current.repos.accounts.findById('acc_1')).toEqual(
        anAccountRecord('acc_1', { email: 'ada@example.com', ...stored }),
      );
    });

    it('finds nothing for an unknown email or id', async () => {
      const { accounts } = subject.current.repos;
      await accounts.add(anAccountRecord('acc_1', { email: 'ada@example.com' }));

      expect(await accounts.findByEmail('grace@example.com')).toBeNull();
      expect(await accounts.findById('acc_2')).toBeNull();
    });

    it('refuses a second account with the same email with EmailAlreadyRegistered, keeping the first', async () => {
      const { accounts } = subject.current.repos;
      const first = anAccountRecord('acc_1', { email: 'ada@example.com' });
      await accounts.add(first);

      await expect(accounts.add(anAccountRecord('acc_2', { email: 'ada@example.com' }))).rejects.toBeInstanceOf(
        EmailAlreadyRegistered,
      );
      expect(await accounts.findByEmail('ada@example.com')).toEqual(first);
      expect(await accounts.findById('acc_2')).toBeNull();
    });

    it('lets one of two concurrent sign-ups with one email win; the other gets EmailAlreadyRegistered', async () => {
      const { tx } = subject.current;
      const signUp = (id: string) =>
        tx.exclusive(id, (repos) => repos.accounts.add(anAccountRecord(id, { email: 'ada@example.com' })));

      const outcomes = await Promise.allSettled([signUp('acc_1'), signUp('acc_2')]);

      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
      expect(refused).toHaveLength(1);
      expect(refused[0]).toBeInstanceOf(EmailAlreadyRegistered);
    });
  });
}
