import { Clock } from '../../../src/core/domain/clock';
import type { ApiKey } from '../../../src/core/domain/account';
import { Traveller } from '../../../src/core/domain/traveller';
import type { KeyedAnswer, StoredResponse } from '../../../src/core/ports/idempotency-store';
import type { Repositories, StoredPassword } from '../../../src/core/ports/repositories';
import { UnitOfWorkMisuse } from '../../../src/core/ports/transaction-boundary';
import { anEvent } from '../builders/event-builder';
import { anItem } from '../builders/item-builder';
import { aTimeline } from '../builders/timeline-builder';
import { signal } from '../wait-for';
import { anAccountRecord, at, givenAccounts, type MakeRepositories, useRepositories } from './subject';

const MINUTE = 60_000;
const NOW = at('2030-01-01T12:00:00.000Z');
const PASSWORD: StoredPassword = { passwordHash: 'hash', passwordChangeDue: false, deviceStamp: 1 };

function anApiKey(id: string): ApiKey {
  return {
    id,
    accountId: 'acc_1',
    prefix: 'tns_000009_t',
    digest: `digest-of-${id}`,
    name: null,
    createdAt: NOW,
    lastUsedAt: null,
    revokedAt: null,
    expiresAt: null,
    permissions: null,
  };
}

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

/** A turn of the event loop: every other work ready to run gets to (a read answered, a write sent). */
function letOthersRun(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** How work ended: refused as a misuse, or what else happened, so a failure names each case. */
function outcomeOf(work: Promise<unknown>): Promise<string> {
  return work.then(
    () => 'done',
    (error: unknown) => (error instanceof UnitOfWorkMisuse ? 'refused' : `failed: ${String(error)}`),
  );
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

    it('loses no update of ten concurrent read-modify-writes of a clock, from one process or two', async () => {
      const { tx, repos } = subject.current;
      const other = subject.current.anotherProcess();

      await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          (index % 2 === 0 ? tx : other).exclusive('acc_1', async (inside) => {
            const traveller = await inside.travellers.getForAccount('acc_1');
            await letOthersRun();
            await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
          }),
        ),
      );

      const shifted = await repos.travellers.getForAccount('acc_1');
      expect(shifted.clock.reading).toEqual(at('1969-07-20T20:27:40.123Z'));
      expect((await repos.travellers.getForAccount('acc_2')).clock.reading).toEqual(at('1969-07-20T20:17:40.123Z'));
    });

    it("shows another process none of exclusive work's writes before they apply, and all of them after", async () => {
      const { tx } = subject.current;
      const other = subject.current.anotherProcess();
      const gate = signal();
      const firstWrote = signal();
      const seen = () =>
        other.exclusive('acc_1', async (inside) => ({
          reading: (await inside.travellers.getForAccount('acc_1')).clock.reading,
          timeline: (await inside.timelines.findForAccount('acc_1', 'tml_1'))?.id ?? null,
        }));

      const first = tx.exclusive('acc_1', async (inside) => {
        const traveller = await inside.travellers.getForAccount('acc_1');
        await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
        await inside.timelines.add(aTimeline().withId('tml_1').build());
        firstWrote.resolve();
        await gate.promise;
      });
      await firstWrote.promise;
      const before = await seen();
      gate.resolve();
      await first;

      expect(before).toEqual({ reading: at('1969-07-20T20:17:40.123Z'), timeline: null });
      expect(await seen()).toEqual({ reading: at('1969-07-20T20:18:40.123Z'), timeline: 'tml_1' });
    });

    it('runs work again, on the new state, when another process wrote the account after it read', async () => {
      const { tx, repos } = subject.current;
      const firstRead = signal();
      const otherWrote = signal();
      let runs = 0;

      const first = tx.exclusive('acc_1', async (inside) => {
        runs += 1;
        const traveller = await inside.travellers.getForAccount('acc_1');
        if (runs === 1) {
          firstRead.resolve();
          await otherWrote.promise;
        }
        await inside.travellers.save(traveller.shiftBy(MINUTE, NOW));
        await inside.events.add(anEvent({ id: `evt_${runs}` }));
      });
      await firstRead.promise;
      await subject.current.anotherProcess().exclusive('acc_1', async (inside) => {
        await inside.travellers.save((await inside.travellers.getForAccount('acc_1')).shiftBy(MINUTE, NOW));
      });
      otherWrote.resolve();
      await first;

      expect(runs).toBe(2);
      expect((await repos.travellers.getForAccount('acc_1')).clock.reading).toEqual(at('1969-07-20T20:19:40.123Z'));
      // The first run's writes were never applied; the second run's were, once.
      expect(await repos.events.findForAccount('acc_1', 'evt_1')).toBeNull();
      expect(await repos.events.findForAccount('acc_1', 'evt_2')).toEqual(anEvent({ id: 'evt_2' }));
    });

    it('runs a refusal again when another process moved what it read, and the second run decides', async () => {
      const { tx } = subject.current;
      let runs = 0;

      const found = await tx.exclusive('acc_1', async (inside) => {
        runs += 1;
        const timeline = await inside.timelines.findForAccount('acc_1', 'tml_2');
        if (runs === 1)
          await subject.current
            .anotherProcess()
            .exclusive('acc_1', (other) => other.timelines.add(aTimeline().withId('tml_2').build()));
        if (!timeline) throw new Error('no timeline tml_2');
        return timeline.id;
      });

      expect(found).toBe('tml_2');
      expect(runs).toBe(2);
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

    it('refuses a read, a consistent read, a count or a second unit inside exclusive work', async () => {
      const { tx, repos } = subject.current;
      const asked: Record<string, () => Promise<unknown>> = {
        read: () => tx.read((reads) => reads.timelines.findForAccount('acc_1', 'tml_1')),
        snapshot: () => tx.snapshot('acc_1', (reads) => reads.timelines.findForAccount('acc_1', 'tml_1')),
        count: () => tx.count((counters) => counters.keyUses.record('key_1', NOW, NOW)),
        // Another account's: the account's own would wait behind this unit for ever.
        unit: () => tx.exclusive('acc_2', (inside) => inside.timelines.add(aTimeline().ofAccount('acc_2').build())),
      };

      const outcomes: Record<string, string> = {};
      for (const [what, ask] of Object.entries(asked)) {
        outcomes[what] = await outcomeOf(
          tx.exclusive('acc_1', async (inside) => {
            await inside.timelines.findForAccount('acc_1', 'tml_1');
            await ask();
            await inside.timelines.add(aTimeline().withId(`tml_${what}`).build());
          }),
        );
      }

      expect(outcomes).toEqual({ read: 'refused', snapshot: 'refused', count: 'refused', unit: 'refused' });
      expect(await repos.timelines.listForAccount('acc_1', { limit: 10, after: null })).toEqual([]);
      expect(await repos.timelines.listForAccount('acc_2', { limit: 10, after: null })).toEqual([]);
    });

    describe("refuses a traveller that is not the unit's own, writing nothing", () => {
      it("another account's, to get or to save", async () => {
        const { tx, repos } = subject.current;

        await expect(
          tx.exclusive('acc_1', (inside) => inside.travellers.getForAccount('acc_2')),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);
        await expect(
          tx.exclusive('acc_1', async (inside) => {
            const other = aPausedTraveller('acc_2').shiftBy(MINUTE, NOW);
            await inside.travellers.save(other);
          }),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

        expect(await repos.travellers.getForAccount('acc_2')).toEqual(aPausedTraveller('acc_2'));
      });

      it("another account's, added by the unit opening an account", async () => {
        const { tx, repos } = subject.current;
        await givenAccounts(repos, 'acc_3', 'acc_4');

        await expect(
          tx.exclusive('acc_3', (inside) => inside.travellers.add(aPausedTraveller('acc_4'))),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

        await expect(repos.travellers.getForAccount('acc_4')).rejects.toThrow();
        await expect(repos.travellers.getForAccount('acc_3')).rejects.toThrow();
      });

      it('saved by a unit that did not start from one (the account had none)', async () => {
        const { tx, repos } = subject.current;
        await givenAccounts(repos, 'acc_3');

        await expect(
          tx.exclusive('acc_3', (inside) => inside.travellers.save(aPausedTraveller('acc_3'))),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

        await expect(repos.travellers.getForAccount('acc_3')).rejects.toThrow();
      });

      it('added to an account that has one, or added twice', async () => {
        const { tx, repos } = subject.current;
        await givenAccounts(repos, 'acc_3');

        await expect(
          tx.exclusive('acc_1', (inside) => inside.travellers.add(aPausedTraveller('acc_1').shiftBy(MINUTE, NOW))),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);
        await expect(
          tx.exclusive('acc_3', async (inside) => {
            await inside.travellers.add(aPausedTraveller('acc_3'));
            await inside.travellers.add(aPausedTraveller('acc_3').shiftBy(MINUTE, NOW));
          }),
        ).rejects.toBeInstanceOf(UnitOfWorkMisuse);

        expect(await repos.travellers.getForAccount('acc_1')).toEqual(aPausedTraveller('acc_1'));
        await expect(repos.travellers.getForAccount('acc_3')).rejects.toThrow();
      });
    });

    it('refuses to save a row that was never added, writing nothing of the work', async () => {
      const { tx, repos } = subject.current;
      const session = {
        id: 'ses_1',
        accountId: 'acc_1',
        tokenDigest: 'digest',
        consoleKeyId: null,
        createdAt: NOW,
        lastSeenAt: NOW,
        expiresAt: NOW,
      };
      const saves: Record<string, (inside: Repositories) => Promise<void>> = {
        timeline: (inside) => inside.timelines.save(aTimeline().withId('tml_9').build()),
        item: (inside) => inside.items.save(anItem({ id: 'itm_9' })),
        event: (inside) => inside.events.save(anEvent({ id: 'evt_9', revision: 1 })),
        session: (inside) => inside.sessions.save(session),
        'API key': (inside) => inside.apiKeys.save(anApiKey('key_9')),
        password: (inside) => inside.accounts.updatePassword('acc_9', PASSWORD),
      };

      const outcomes: Record<string, string> = {};
      for (const [what, save] of Object.entries(saves)) {
        outcomes[what] = await outcomeOf(
          tx.exclusive('acc_1', async (inside) => {
            await inside.timelines.add(aTimeline().withId(`tml_${what}`).build());
            await save(inside);
          }),
        );
      }

      expect(outcomes).toEqual(Object.fromEntries(Object.keys(saves).map((what) => [what, 'refused'])));
      expect(await repos.timelines.listForAccount('acc_1', { limit: 10, after: null })).toEqual([]);
    });

    it('gives reads and consistent reads no way to write, at run time too', async () => {
      const { tx, repos } = subject.current;
      const timeline = aTimeline().withId('tml_1').build();

      // Only by a cast can the work reach a write: what it is given has none.
      await expect(tx.read((reads) => (reads as Repositories).timelines.add(timeline))).rejects.toThrow(TypeError);
      await expect(tx.snapshot('acc_1', (reads) => (reads as Repositories).timelines.add(timeline))).rejects.toThrow(
        TypeError,
      );
      await expect(
        tx.read((reads) => (reads as Repositories).travellers.save(aPausedTraveller('acc_1').shiftBy(MINUTE, NOW))),
      ).rejects.toThrow(TypeError);

      expect(await repos.timelines.findForAccount('acc_1', 'tml_1')).toBeNull();
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
