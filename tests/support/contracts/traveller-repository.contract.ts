import { Clock } from '../../../src/core/domain/clock';
import { Traveller } from '../../../src/core/domain/traveller';
import { at, givenAccounts, type MakeRepositories, useRepositories } from './subject';

function aTraveller(
  accountId: string,
  overrides: { paused?: boolean; journeyTravelId?: string | null } = {},
): Traveller {
  return Traveller.restore({
    accountId,
    clock: Clock.restore({
      reading: at('1969-07-20T20:17:40.123Z'),
      readAt: at('2030-01-01T12:00:00.456Z'),
      paused: overrides.paused ?? false,
    }),
    timelineId: 'tml_1',
    location: 'Sea of Tranquility',
    journeyTravelId: overrides.journeyTravelId === undefined ? 'trv_1' : overrides.journeyTravelId,
  });
}

/** TravellerRepository: one traveller per account, its clock kept to the millisecond. */
export function travellerRepositoryContract(name: string, makeRepositories: MakeRepositories): void {
  describe(`${name}: TravellerRepository contract`, () => {
    const subject = useRepositories(makeRepositories);

    beforeEach(async () => {
      await givenAccounts(subject.current.repos, 'acc_1', 'acc_2');
    });

    it('gets an added traveller back, clock to the millisecond', async () => {
      const { travellers } = subject.current.repos;
      const away = aTraveller('acc_1');
      await travellers.add(away);

      const stored = await travellers.getForAccount('acc_1');
      expect(stored).toEqual(away);
      expect(stored.clock.reading.getTime()).toBe(Date.parse('1969-07-20T20:17:40.123Z'));
    });

    it('keeps a null journey and a newcomer as they are', async () => {
      const { travellers } = subject.current.repos;
      const newcomer = Traveller.newcomer('acc_1', at('2030-01-01T12:00:00.999Z'));
      await travellers.add(newcomer);

      expect(await travellers.getForAccount('acc_1')).toEqual(newcomer);
    });

    it("saves every field of the account's traveller and leaves other accounts' alone", async () => {
      const { travellers } = subject.current.repos;
      await travellers.add(aTraveller('acc_1'));
      await travellers.add(aTraveller('acc_2'));
      const home = Traveller.restore({
        accountId: 'acc_1',
        clock: Clock.restore({
          reading: at('2030-01-01T12:30:00.001Z'),
          readAt: at('2030-01-01T12:31:00.002Z'),
          paused: true,
        }),
        timelineId: 'primary',
        location: 'home',
        journeyTravelId: null,
      });

      await travellers.save(home);

      expect(await travellers.getForAccount('acc_1')).toEqual(home);
      expect(await travellers.getForAccount('acc_2')).toEqual(aTraveller('acc_2'));
    });

    it('has no traveller for an account that was given none', async () => {
      await expect(subject.current.repos.travellers.getForAccount('acc_2')).rejects.toThrow();
    });
  });
}
