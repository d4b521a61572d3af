import { anAnchor } from '../builders/anchor-builder';
import { at, givenAccounts, type MakeRepositories, useRepositories } from './subject';

/** AnchorRepository: anchors found by id, by their own account only. */
export function anchorRepositoryContract(name: string, makeRepositories: MakeRepositories): void {
  describe(`${name}: AnchorRepository contract`, () => {
    const subject = useRepositories(makeRepositories);

    beforeEach(async () => {
      await givenAccounts(subject.current.repos, 'acc_1', 'acc_2');
    });

    it('finds an added anchor, every field intact', async () => {
      const { anchors } = subject.current.repos;
      const anchor = anAnchor({ timestamp: at('1969-07-20T20:17:40.001Z'), createdAt: at('2030-01-01T11:00:00.999Z') });
      await anchors.add(anchor);

      expect(await anchors.findForAccount('acc_1', 'anc_1')).toEqual(anchor);
    });

    it("does not find another account's anchor; two accounts may use one id", async () => {
      const { anchors } = subject.current.repos;
      await anchors.add(anAnchor({ id: 'anc_1', description: 'Mine' }));
      await anchors.add(anAnchor({ id: 'anc_2' }));
      await anchors.add(anAnchor({ accountId: 'acc_2', id: 'anc_1', description: 'Theirs' }));

      expect(await anchors.findForAccount('acc_2', 'anc_2')).toBeNull();
      expect((await anchors.findForAccount('acc_2', 'anc_1'))?.description).toBe('Theirs');
      expect((await anchors.findForAccount('acc_1', 'anc_1'))?.description).toBe('Mine');
      expect(await anchors.findForAccount('acc_1', 'anc_404')).toBeNull();
    });
  });
}
