import { Clock } from '../../../src/core/domain/clock';
import { Traveller } from '../../../src/core/domain/traveller';
import type { KeyedAnswer, StoredResponse } from '../../../src/core/ports/idempotency-store';
import type { Repositories } from '../../../src/core/ports/repositories';
import { UnitOfWorkMisuse } from '../../../src/core/ports/transaction-boundary';
import { anEvent } from '../builders/event-builder';
import { anItem } from '../builders/item-builder';
import { aTimeline } from '../builders/timeline-builder';
import { signal } from '../wait-for';
import { anAccountRecord, at, givenAccounts, type MakeRepositories, useRepositories } from './subject';

const MINUTE = 60_000;
const NOW = at('2030-01-01T12:00:00.000Z');

/** A paused clock, so its reading is exact and only explicit shifts move it. */
function aPausedTraveller(accountId: string): Traveller {
  return Traveller.restore({
    accountId,
    clock: Clock.restore({ reading: at('1969-07-20T20:17:40.123Z'), readAt: NOW, paused: true }),
    timelineId: 'primary',
    location: 'home',
    journeyTravelId: null,
  });
}

/**
 * A window for the account's other writers to act in. It stays a fixed time: a boundary that
 * serialises them holds them back without a sign, so no event can mark the window's end.
 */
function yieldToOthers(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Until `other` work has settled, or for `ms` if the boundary holds it back (see yieldToOthers). */
async function letFinish(other: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const window = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  // Only its end matters here; its failure is for the test to see where it awaits it.
  await Promise.race([
    other.then(
      () => undefined,
      () => undefined,
    ),
    window,
  ]);
  clearTimeout(timer);
}

/** Everything one account's exclusive work may change, read back through the ports. */
async function stateOf(repos: Repositories, accountId: string) {
  return {
    traveller: await repos.travellers.getForAccount(accountId),
    timelines: await repos.timelines.listForAccount(accountId, { limit: 100, after: null }),
    items: await repos.items.findManyForAccount(accountId, ['itm_1', 'itm_2']),
    events: [
      await repos.events.findForAccount(accountId, 'evt_1'),
      await repos.events.findForAccount(accountId, 'evt_2'),
    ],
    manipulations: await repos.events.manipulationsOf(accountId, 'evt_1', 10),
  };
}

/** TransactionBoundary: one account's exclusive work one at a time, whole or not at all. */
export function transactionBoundaryContract(name: string, makeRepositories: MakeRepositories): void {
  describe(`${name}: TransactionBoundary contract`, () => {
    const subject = useRepositories(makeRepositories);

    beforeEach(async () => {
      const { repos } = subject.current;
      await givenAccounts(repos, 'acc_1', 'acc_2');
      await repos.travellers.add(aPausedTraveller('acc_1'));
      await repos.travellers.add(aPausedTraveller('acc_2'));
    });

    it("serialises one account's writers: ten concurrent read-modify-writes of its clock lose no update", async () => {
      const { tx, repos } = subject.current;

      await Promise.all(
        Array.from({ length: 10 }, () =>
          tx.exclusive('acc_1', async (inside) => {
            const traveller = await inside.travellers.getForAccount('acc_1');
            await yieldToOthers(5);
            await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
          }),
        ),
      );

      const shifted = await repos.travellers.getForAccount('acc_1');
      expect(shifted.clock.reading).toEqual(at('1969-07-20T20:27:40.123Z'));
      expect((await repos.travellers.getForAccount('acc_2')).clock.reading).toEqual(at('1969-07-20T20:17:40.123Z'));
    });

    it("lets one account's exclusive work see another's writes whole or not at all", async () => {
      const { tx, repos } = subject.current;
      const gate = signal();
      const firstWaits = signal();

      const first = tx.exclusive('acc_1', async (inside) => {
        const traveller = await inside.travellers.getForAccount('acc_1');
        await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
        await inside.timelines.add(aTimeline().withId('tml_1').build());
        firstWaits.resolve();
        await gate.promise;
      });
      await firstWaits.promise;
      const second = tx.exclusive('acc_1', async (inside) => ({
        reading: (await inside.travellers.getForAccount('acc_1')).clock.reading,
        timeline: (await inside.timelines.findForAccount('acc_1', 'tml_1'))?.id ?? null,
      }));
      await letFinish(second, 50);
      gate.resolve();
      const [, seen] = await Promise.all([first, second]);

      expect([
        { reading: at('1969-07-20T20:17:40.123Z'), timeline: null },
        { reading: at('1969-07-20T20:18:40.123Z'), timeline: 'tml_1' },
      ]).toContainEqual(seen);
      expect((await repos.travellers.getForAccount('acc_1')).clock.reading).toEqual(at('1969-07-20T20:18:40.123Z'));
    });

    it('applies once, on the new state, the writes of work whose read state another writer changed', async () => {
      const { tx, repos } = subject.current;
      const firstRead = signal();
      const secondSettled = signal();

      const first = tx.exclusive('acc_1', async (inside) => {
        const traveller = await inside.travellers.getForAccount('acc_1');
        firstRead.resolve();
        await letFinish(secondSettled.promise, 50);
        await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
        await inside.events.add(anEvent({ id: 'evt_1' }));
      });
      await firstRead.promise;
      const second = tx.exclusive('acc_1', async (inside) => {
        await inside.travellers.save((await inside.travellers.getForAccount('acc_1')).shiftBy(MINUTE, NOW));
      });
      void second.then(secondSettled.resolve, () => secondSettled.resolve());
      await Promise.all([first, second]);

      expect((await repos.travellers.getForAccount('acc_1')).clock.reading).toEqual(at('1969-07-20T20:19:40.123Z'));
      expect(await repos.events.findForAccount('acc_1', 'evt_1')).toEqual(anEvent({ id: 'evt_1' }));
    });

    it('returns the result of the work', async () => {
      const { tx } = subject.current;

      expect(
        await tx.exclusive('acc_1', async (repos) => (await repos.travellers.getForAccount('acc_1')).location),
      ).toBe('home');
      expect(await tx.snapshot('acc_2', async (repos) => (await repos.accounts.findById('acc_2'))?.email)).toBe(
        'acc_2@example.com',
      );
      expect(await tx.read(async (repos) => (await repos.travellers.getForAccount('acc_2')).timelineId)).toBe(
        'primary',
      );
    });

    it('rolls back every write of exclusive work that throws, and runs the next work of the account', async () => {
      const { tx, repos } = subject.current;
      await repos.timelines.add(aTimeline().withId('tml_1').build());
      await repos.items.add(anItem({ id: 'itm_1' }));
      await repos.events.add(anEvent({ id: 'evt_1' }));
      const before = await stateOf(repos, 'acc_1');

      await expect(
        tx.exclusive('acc_1', async (inside) => {
          const traveller = await inside.travellers.getForAccount('acc_1');
          await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
          await inside.timelines.save(aTimeline().withId('tml_1').withStatus('active').build());
          await inside.timelines.add(aTimeline().withId('tml_2').build());
          await inside.items.save(anItem({ id: 'itm_1', carriedHomeBy: 'trv_1' }));
          await inside.items.add(anItem({ id: 'itm_2' }));
          await inside.events.save(anEvent({ id: 'evt_1', time: at('1969-07-20T22:00:00Z'), revision: 1 }));
          await inside.events.addManipulation({
            accountId: 'acc_1',
            id: 'man_1',
            eventId: 'evt_1',
            action: 'Delay',
            fromTime: at('1969-07-20T21:00:00Z'),
            toTime: at('1969-07-20T22:00:00Z'),
            appliedAt: NOW,
            revision: 1,
          });
          await inside.events.add(anEvent({ id: 'evt_2', kind: 'manipulation', subjectId: null }));
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');

      expect(await stateOf(repos, 'acc_1')).toEqual(before);

      await tx.exclusive('acc_1', (inside) => inside.timelines.add(aTimeline().withId('tml_3').build()));
      expect(
        (await repos.timelines.listForAccount('acc_1', { limit: 10, after: null })).map((timeline) => timeline.id),
      ).toEqual(['tml_1', 'tml_3']);
    });

    it('refuses a read after a write in exclusive work, which would not see it, and writes nothing', async () => {
      const { tx, repos } = subject.current;

      await expect(
        tx.exclusive('acc_1', async (inside) => {
          await inside.items.add(anItem({ id: 'itm_1' }));
          return inside.items.findManyForAccount('acc_1', ['itm_1']);
        }),
      ).rejects.toBeInstanceOf(UnitOfWorkMisuse);
      await expect(
        tx.exclusive('acc_1', async (inside) => {
          const traveller = await inside.travellers.getForAccount('acc_1');
          await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
          return inside.events.findForAccount('acc_1', 'evt_1');
        }),
      ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

      expect(await repos.items.findManyForAccount('acc_1', ['itm_1'])).toEqual([]);
      expect(await repos.travellers.getForAccount('acc_1')).toEqual(aPausedTraveller('acc_1'));
    });

    it('writes nothing of work that opens an account and throws', async () => {
      const { tx, repos } = subject.current;

      await expect(
        tx.exclusive('acc_3', async (inside) => {
          await inside.accounts.add(anAccountRecord('acc_3', { email: 'new@example.com' }));
          await inside.travellers.add(aPausedTraveller('acc_3'));
          await inside.timelines.add(aTimeline().ofAccount('acc_3').withId('primary').build());
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');

      expect(await repos.accounts.findByEmail('new@example.com')).toBeNull();
      expect(await repos.accounts.findById('acc_3')).toBeNull();
      await expect(repos.travellers.getForAccount('acc_3')).rejects.toThrow();
      expect(await repos.timelines.findForAccount('acc_3', 'primary')).toBeNull();
    });

    describe('a keyed request (its answer kept with its writes)', () => {
      const answer: StoredResponse = { status: 201, body: { done: true }, headers: {} };
      const keepEvery = () => Promise.resolve(null);
      const keyed = (key: string, produce: () => Promise<unknown>): Promise<KeyedAnswer> =>
        subject.current.keys.answerOnce(
          'acc_1',
          key,
          'digest',
          async () => {
            await produce();
            return answer;
          },
          keepEvery,
        );
      const addTimeline = (id: string) =>
        subject.current.tx.exclusive('acc_1', (inside) => inside.timelines.add(aTimeline().withId(id).build()));
      const timelines = async () =>
        (await subject.current.repos.timelines.listForAccount('acc_1', { limit: 10, after: null })).map(
          (timeline) => timeline.id,
        );

      it('runs reads and units that write nothing, then one writing unit, kept with its answer', async () => {
        const { tx } = subject.current;

        const keptAnswer = await keyed('k-one', async () => {
          await tx.read((repos) => repos.timelines.findForAccount('acc_1', 'tml_1'));
          await tx.exclusive('acc_1', (inside) => inside.travellers.getForAccount('acc_1'));
          await addTimeline('tml_1');
        });

        expect(keptAnswer).toEqual({
          outcome: 'answered',
          response: { status: 201, json: '{"done":true}', headers: {} },
        });
        expect(await timelines()).toEqual(['tml_1']);
        // A retry is answered the same and writes nothing.
        expect(await keyed('k-one', () => addTimeline('tml_2'))).toMatchObject({ outcome: 'replay' });
        expect(await timelines()).toEqual(['tml_1']);
      });

      it('refuses a second unit after the writing one (it would not see its writes), writing nothing', async () => {
        await expect(
          keyed('k-two', async () => {
            await addTimeline('tml_1');
            await addTimeline('tml_2');
          }),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

        expect(await timelines()).toEqual([]);
        // Nothing was claimed: the key acts for the next request.
        expect(await keyed('k-two', () => addTimeline('tml_3'))).toMatchObject({ outcome: 'answered' });
        expect(await timelines()).toEqual(['tml_3']);
      });

      it('refuses a read or a count after the writing unit, and writes nothing', async () => {
        const { tx } = subject.current;

        await expect(
          keyed('k-read', async () => {
            await addTimeline('tml_1');
            await tx.read((repos) => repos.timelines.findForAccount('acc_1', 'tml_1'));
          }),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);
        await expect(
          keyed('k-snapshot', async () => {
            await addTimeline('tml_1');
            await tx.snapshot('acc_1', (repos) => repos.timelines.findForAccount('acc_1', 'tml_1'));
          }),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);
        await expect(
          keyed('k-count', async () => {
            await addTimeline('tml_1');
            await tx.count((counters) => counters.keyUses.record('key_1', NOW, NOW));
          }),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

        expect(await timelines()).toEqual([]);
      });

      it('refuses two units at once', async () => {
        await expect(
          keyed('k-both', () => Promise.all([addTimeline('tml_1'), addTimeline('tml_2')])),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

        // Let the unit that did start settle before reading what stayed.
        await subject.current.tx.exclusive('acc_1', async () => undefined);
        expect(await timelines()).toEqual([]);
      });
    });

    it('opens an account: work on an account without a traveller creates it, whole', async () => {
      const { tx, repos } = subject.current;

      await tx.exclusive('acc_3', async (inside) => {
        await inside.accounts.add(anAccountRecord('acc_3'));
        await inside.travellers.add(aPausedTraveller('acc_3'));
      });

      expect(await repos.accounts.findById('acc_3')).toEqual(anAccountRecord('acc_3'));
      expect(await repos.travellers.getForAccount('acc_3')).toEqual(aPausedTraveller('acc_3'));
    });
  });
}
