import { EmailAlreadyRegistered } from '../../../src/core/domain/errors';
import {
  FakeCredentialHasher,
  FrozenWallClock,
  InMemoryDatabase,
  InMemoryTransactionBoundary,
  SequentialIdGenerator,
} from '../../support/in-memory';
import { anItem } from '../../support/builders/item-builder';
import { aTimeline } from '../../support/builders/timeline-builder';

// The use-case tests trust these fakes to behave like the real adapters; these tests earn that trust.

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('InMemoryTransactionBoundary', () => {
  it("runs one account's exclusive work strictly one after another", async () => {
    const boundary = new InMemoryTransactionBoundary(new InMemoryDatabase());
    const log: string[] = [];
    const gate = deferred();

    const first = boundary.exclusive('acc_1', async () => {
      log.push('first starts');
      await gate.promise;
      log.push('first ends');
    });
    const second = boundary.exclusive('acc_1', async () => {
      log.push('second runs');
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['first starts']);

    gate.resolve();
    await Promise.all([first, second]);
    expect(log).toEqual(['first starts', 'first ends', 'second runs']);
  });

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

  it('undoes the writes of exclusive work that throws, and runs the next work of the account', async () => {
    const database = new InMemoryDatabase();
    const boundary = new InMemoryTransactionBoundary(database);
    await boundary.atomic((repos) => repos.timelines.add(aTimeline().withId('tml_1').build()));
    const before = database.contents();

    await expect(
      boundary.exclusive('acc_1', async (repos) => {
        await repos.timelines.save(aTimeline().withId('tml_1').withStatus('active').build());
        await repos.timelines.add(aTimeline().withId('tml_2').build());
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(database.contents()).toEqual(before);

    await boundary.exclusive('acc_1', (repos) => repos.timelines.add(aTimeline().withId('tml_3').build()));
    expect(database.contents().timelines.map((timeline) => timeline.id)).toEqual(['tml_1', 'tml_3']);
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

  it('undoes the writes of atomic work that throws', async () => {
    const database = new InMemoryDatabase();
    const boundary = new InMemoryTransactionBoundary(database);

    await expect(
      boundary.atomic(async (repos) => {
        await repos.items.add(anItem());
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');

    expect(database.contents().items).toEqual([]);
  });

  it('runs read work and returns its result', async () => {
    const database = new InMemoryDatabase();
    const boundary = new InMemoryTransactionBoundary(database);
    await boundary.atomic((repos) => repos.items.add(anItem({ id: 'itm_1' })));

    expect(await boundary.read((repos) => repos.items.findManyForAccount('acc_1', ['itm_1']))).toEqual([
      anItem({ id: 'itm_1' }),
    ]);
  });
});

describe('in-memory repositories', () => {
  const repositories = () => new InMemoryDatabase().repositories();

  it('refuse a second account with the same email', async () => {
    const repos = repositories();
    const account = { id: 'acc_1', email: 'ada@example.com', passwordHash: 'h', createdAt: new Date(0) };
    await repos.accounts.add(account);

    await expect(repos.accounts.add({ ...account, id: 'acc_2' })).rejects.toBeInstanceOf(EmailAlreadyRegistered);
    expect(await repos.accounts.findByEmail('ada@example.com')).toEqual(account);
  });

  it("do not find another account's timeline, anchor or item by id", async () => {
    const repos = repositories();
    await repos.timelines.add(aTimeline().withId('tml_1').build());
    await repos.items.add(anItem({ id: 'itm_1' }));

    expect(await repos.timelines.findForAccount('acc_2', 'tml_1')).toBeNull();
    expect(await repos.anchors.findForAccount('acc_2', 'anc_1')).toBeNull();
    expect(await repos.items.findManyForAccount('acc_2', ['itm_1'])).toEqual([]);
    expect(await repos.timelines.findForAccount('acc_1', 'tml_1')).not.toBeNull();
  });

  it('refuse to save a row that was never added', async () => {
    const repos = repositories();
    await expect(repos.timelines.save(aTimeline().build())).rejects.toThrow();
    await expect(repos.items.save(anItem())).rejects.toThrow();
  });

  it('list timelines by creation then id, after the cursor, up to the limit', async () => {
    const repos = repositories();
    await repos.timelines.add(aTimeline().withId('tml_c').createdAt('2030-01-01T12:00:00Z').build());
    await repos.timelines.add(aTimeline().withId('tml_b').createdAt('2030-01-01T12:00:00Z').build());
    await repos.timelines.add(aTimeline().withId('tml_a').createdAt('2030-01-01T12:05:00Z').build());
    await repos.timelines.add(aTimeline().withId('tml_0').createdAt('2030-01-01T11:00:00Z').build());

    const ids = async (page: Parameters<typeof repos.timelines.listForAccount>[1]) =>
      (await repos.timelines.listForAccount('acc_1', page)).map((timeline) => timeline.id);

    expect(await ids({ limit: 10, after: null })).toEqual(['tml_0', 'tml_b', 'tml_c', 'tml_a']);
    expect(await ids({ limit: 2, after: null })).toEqual(['tml_0', 'tml_b']);
    expect(await ids({ limit: 10, after: { createdAt: new Date('2030-01-01T12:00:00Z'), id: 'tml_b' } })).toEqual([
      'tml_c',
      'tml_a',
    ]);
    expect(await repos.timelines.listForAccount('acc_2', { limit: 10, after: null })).toEqual([]);
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
    const first = ids.newApiKey();
    const second = ids.newApiKey();
    expect(first.key).not.toBe(second.key);
    expect(first.key.startsWith(first.prefix)).toBe(true);
    expect(first.prefix).not.toBe(second.prefix);
  });
});

describe('FakeCredentialHasher', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const hasher = new FakeCredentialHasher();
    const hash = await hasher.hashPassword('s3cret-enough');
    expect(await hasher.verifyPassword('s3cret-enough', hash)).toBe(true);
    expect(await hasher.verifyPassword('S3cret-enough', hash)).toBe(false);
  });
});
