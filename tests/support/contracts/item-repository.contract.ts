import type { Item } from '../../../src/core/domain/item';
import { anItem } from '../builders/item-builder';
import { at, givenAccounts, idsOf, type MakeRepositories, useRepositories } from './subject';

type Found = Pick<Item, 'timelineId' | 'description' | 'location' | 'foundAt'>;

/** ItemRepository: items by id for their account; `findSame` tells a repeated registration. */
export function itemRepositoryContract(name: string, makeRepositories: MakeRepositories): void {
  describe(`${name}: ItemRepository contract`, () => {
    const subject = useRepositories(makeRepositories);

    beforeEach(async () => {
      await givenAccounts(subject.current.repos, 'acc_1', 'acc_2');
    });

    const sorted = (items: readonly Item[]) => idsOf(items).sort();

    it('finds added items by id, every field intact, nulls included', async () => {
      const { items } = subject.current.repos;
      const waiting = anItem({
        id: 'itm_1',
        registeredAt: at('2030-01-01T12:05:00.001Z'),
        foundAt: at('1969-07-20T21:00:00.999Z'),
      });
      const carried = anItem({ id: 'itm_2', carriedHomeBy: 'trv_7' });
      await items.add(waiting);
      await items.add(carried);

      const found = await items.findManyForAccount('acc_1', ['itm_1', 'itm_2']);
      expect(found).toHaveLength(2);
      expect(found.find((item) => item.id === 'itm_1')).toEqual(waiting);
      expect(found.find((item) => item.id === 'itm_2')).toEqual(carried);
    });

    it("saves an item's changes, for its own account only", async () => {
      const { items } = subject.current.repos;
      await items.add(anItem({ id: 'itm_1' }));
      await items.add(anItem({ accountId: 'acc_2', id: 'itm_1' }));

      await items.save(anItem({ id: 'itm_1', carriedHomeBy: 'trv_1' }));

      expect(await items.findManyForAccount('acc_1', ['itm_1'])).toEqual([
        anItem({ id: 'itm_1', carriedHomeBy: 'trv_1' }),
      ]);
      expect(await items.findManyForAccount('acc_2', ['itm_1'])).toEqual([anItem({ accountId: 'acc_2', id: 'itm_1' })]);
    });

    it("leaves out unknown ids and another account's items, and answers an empty list with none", async () => {
      const { items } = subject.current.repos;
      await items.add(anItem({ id: 'itm_1' }));
      await items.add(anItem({ id: 'itm_2' }));
      await items.add(anItem({ accountId: 'acc_2', id: 'itm_9' }));

      expect(sorted(await items.findManyForAccount('acc_1', ['itm_2', 'itm_404', 'itm_9', 'itm_1']))).toEqual([
        'itm_1',
        'itm_2',
      ]);
      expect(await items.findManyForAccount('acc_2', ['itm_1', 'itm_2'])).toEqual([]);
      expect(await items.findManyForAccount('acc_1', [])).toEqual([]);
    });

    describe('findSame', () => {
      const found: Found = {
        timelineId: 'tml_1',
        description: 'A moon rock',
        location: 'Sea of Tranquility',
        foundAt: at('1969-07-20T21:00:00.250Z'),
      };

      async function given(...stored: Item[]): Promise<void> {
        for (const item of stored) await subject.current.repos.items.add(item);
      }

      const findSame = (accountId: string, item: Found) => subject.current.repos.items.findSame(accountId, item);

      it('finds the item with the same description, place, time and timeline', async () => {
        await given(anItem({ id: 'itm_1', ...found }));

        expect(await findSame('acc_1', { ...found, foundAt: at('1969-07-20T21:00:00.250Z') })).toEqual(
          anItem({ id: 'itm_1', ...found }),
        );
      });

      it('finds the same item whatever the letter case of its description and place', async () => {
        await given(anItem({ id: 'itm_1', ...found }));

        expect(
          (await findSame('acc_1', { ...found, description: 'A MOON ROCK', location: 'sea of tranquility' }))?.id,
        ).toBe('itm_1');
      });

      it('finds the same item whatever the letter case of letters beyond ASCII', async () => {
        await given(anItem({ id: 'itm_1', ...found, description: 'Ölgemälde', location: 'Île de la Cité' }));

        expect((await findSame('acc_1', { ...found, description: 'ÖLGEMÄLDE', location: 'île DE LA CITÉ' }))?.id).toBe(
          'itm_1',
        );
      });

      it.each<[string, Partial<Found>]>([
        ['another description', { description: 'A flag' }],
        ['a description that only begins the same', { description: 'A moon' }],
        ['another place', { location: 'Tranquility Base' }],
        ['a time one millisecond later', { foundAt: at('1969-07-20T21:00:00.251Z') }],
        ['another timeline', { timelineId: 'tml_2' }],
      ])('finds nothing for %s', async (_label, difference) => {
        await given(anItem({ id: 'itm_1', ...found }));

        expect(await findSame('acc_1', { ...found, ...difference })).toBeNull();
      });

      it("finds nothing of another account's", async () => {
        await given(anItem({ id: 'itm_1', ...found }));

        expect(await findSame('acc_2', found)).toBeNull();
      });

      it.each<[string, Partial<Found>]>([
        ['% in the description', { description: 'A moon%' }],
        ['% for the whole description', { description: '%' }],
        ['_ in the description', { description: 'A_moon rock' }],
        ['% in the place', { location: 'Sea of %' }],
        ['_ in the place', { location: 'Sea_of_Tranquility' }],
        ['a backslash in the place', { location: 'Sea of Tranquility\\' }],
      ])('takes %s literally, not as a pattern', async (_label, pattern) => {
        await given(anItem({ id: 'itm_1', ...found }));

        expect(await findSame('acc_1', { ...found, ...pattern })).toBeNull();
      });

      it('finds an item whose description and place hold %, _ and \\, given exactly those characters', async () => {
        const odd: Found = { ...found, description: '100% pure_gold \\o/', location: 'Vault_7 (50%)' };
        await given(anItem({ id: 'itm_1', ...odd }));

        expect((await findSame('acc_1', odd))?.id).toBe('itm_1');
        expect((await findSame('acc_1', { ...odd, description: '100% PURE_GOLD \\O/' }))?.id).toBe('itm_1');
        expect(await findSame('acc_1', { ...odd, description: '100x pure-gold \\o/' })).toBeNull();
      });
    });
  });
}
