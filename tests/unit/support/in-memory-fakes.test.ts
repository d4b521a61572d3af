import {
  FakeCredentialHasher,
  FrozenWallClock,
  InMemoryDatabase,
  InMemoryTransactionBoundary,
  SequentialIdGenerator,
} from '../../support/in-memory';
import { anEvent } from '../../support/builders/event-builder';
import { anItem } from '../../support/builders/item-builder';
import { aTimeline } from '../../support/builders/timeline-builder';

// The use-case tests trust these fakes to behave like the real adapters. The port contracts they
// share with the Prisma adapters are in in-memory-contracts.test.ts; here, what only a fake needs
// checking (or what a single database connection, as PGlite has, cannot show).

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('InMemoryTransactionBoundary', () => {
  it("does not make one account wait for another's work", async () => {
    const boundary = new InMemoryTransactionBoundary(new InMemoryDatabase());
    const gate = deferred();
    const log: string[] = [];

    const slow = boundary.exclusive('acc_1', async () => {
      await gate.promise;
      log.push('acc_1');
    });
    await boundary.exclusive('acc_2', async () => {
      log.push('acc_2');
    });
    gate.resolve();
    await slow;

    expect(log).toEqual(['acc_2', 'acc_1']);
  });

  it("keeps another account's writes committed meanwhile when undoing", async () => {
    const database = new InMemoryDatabase();
    const boundary = new InMemoryTransactionBoundary(database);
    const gate = deferred();

    const failing = boundary.exclusive('acc_1', async (repos) => {
      await repos.timelines.add(aTimeline().withId('tml_1').build());
      await gate.promise;
      throw new Error('refused');
    });
    await boundary.exclusive('acc_2', (repos) =>
      repos.timelines.add(aTimeline().ofAccount('acc_2').withId('tml_9').build()),
    );
    gate.resolve();
    await expect(failing).rejects.toThrow('refused');

    expect(database.contents().timelines.map((timeline) => timeline.id)).toEqual(['tml_9']);
  });
});

describe('in-memory repositories', () => {
  it('refuse to save a row that was never added', async () => {
    const repos = new InMemoryDatabase().repositories();
    await expect(repos.timelines.save(aTimeline().build())).rejects.toThrow();
    await expect(repos.items.save(anItem())).rejects.toThrow();
  });

  it('refuse to add an event twice or to save one never added', async () => {
    const repos = new InMemoryDatabase().repositories();
    await repos.events.add(anEvent());
    await expect(repos.events.add(anEvent())).rejects.toThrow();
    await expect(repos.events.save(anEvent({ id: 'evt_404' }))).rejects.toThrow();
  });

  it('find, of several same items, the earliest registered', async () => {
    const found = {
      timelineId: 'tml_1',
      description: 'A moon rock',
      location: 'Sea of Tranquility',
      foundAt: new Date('1969-07-20T21:00:00Z'),
    };
    const repos = new InMemoryDatabase().repositories();
    await repos.items.add(anItem({ id: 'itm_2', ...found, registeredAt: new Date('2030-01-01T12:06:00Z') }));
    await repos.items.add(anItem({ id: 'itm_1', ...found, registeredAt: new Date('2030-01-01T12:05:00Z') }));

    expect((await repos.items.findSame('acc_1', { ...found, foundAt: new Date(found.foundAt.getTime()) }))?.id).toBe(
      'itm_1',
    );
  });
});

describe('FrozenWallClock', () => {
  it('moves only when told to', () => {
    const clock = new FrozenWallClock('2030-01-01T12:00:00Z');
    expect(clock.now()).toEqual(new Date('2030-01-01T12:00:00Z'));
    clock.advanceMinutes(90);
    expect(clock.now()).toEqual(new Date('2030-01-01T13:30:00Z'));
    clock.set('1999-12-31T23:59:59Z');
    expect(clock.now()).toEqual(new Date('1999-12-31T23:59:59Z'));
  });
});

describe('SequentialIdGenerator', () => {
  it('numbers ids per prefix and gives distinct keys', () => {
    const ids = new SequentialIdGenerator();
    expect([ids.newId('tml'), ids.newId('itm'), ids.newId('tml')]).toEqual(['tml_1', 'itm_1', 'tml_2']);
    const first = ids.newApiKey('tns_');
    const second = ids.newApiKey('tns_');
    expect(first.key).not.toBe(second.key);
    expect(first.key.startsWith(first.prefix)).toBe(true);
    expect(first.prefix).not.toBe(second.prefix);
  });
});

describe('FakeCredentialHasher', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const hasher = new FakeCredentialHasher();
    const turn = { clientAddress: '192.0.2.1', knownDevice: false };
    const hash = await hasher.hashPassword('s3cret-enough-for-now', turn);
    const presented = (password: string) => ({ typed: password, normalised: password });
    expect(await hasher.verifyPassword(presented('s3cret-enough-for-now'), hash, turn)).toEqual({
      matches: true,
      outdated: false,
    });
    expect((await hasher.verifyPassword(presented('S3cret-enough-for-now'), hash, turn)).matches).toBe(false);
  });
});
