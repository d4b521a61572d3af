import { EmailAlreadyRegistered } from '../../../src/core/domain/errors';
import {
  FakeCredentialHasher,
  FrozenWallClock,
  InMemoryDatabase,
  InMemoryTransactionBoundary,
  SequentialIdGenerator,
} from '../../support/in-memory';
import { TimeRange } from '../../../src/core/domain/time-range';
import type { EventManipulation } from '../../../src/core/domain/timeline-event';
import { anEvent } from '../../support/builders/event-builder';
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

  it('undoes the event and manipulation writes of work that throws', async () => {
    const database = new InMemoryDatabase();
    const boundary = new InMemoryTransactionBoundary(database);
    await boundary.atomic((repos) => repos.events.add(anEvent({ id: 'evt_1' })));
    const before = database.contents();

    await expect(
      boundary.exclusive('acc_1', async (repos) => {
        await repos.events.save(anEvent({ id: 'evt_1', time: new Date('1969-07-20T22:00:00Z'), revision: 1 }));
        await repos.events.addManipulation(aManipulation());
        await repos.events.add(anEvent({ id: 'evt_2', kind: 'manipulation', subjectId: null }));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');

    expect(database.contents()).toEqual(before);
    expect(database.contents().events).toEqual([anEvent({ id: 'evt_1' })]);
    expect(database.contents().manipulations).toEqual([]);
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

function aManipulation(overrides: Partial<EventManipulation> = {}): EventManipulation {
  return {
    accountId: 'acc_1',
    id: 'man_1',
    eventId: 'evt_1',
    action: 'Delay the find',
    fromTime: new Date('1969-07-20T21:00:00Z'),
    toTime: new Date('1969-07-20T22:00:00Z'),
    appliedAt: new Date('2030-01-01T12:10:00Z'),
    revision: 1,
    ...overrides,
  };
}

describe('in-memory item repository findSame', () => {
  const found = { timelineId: 'tml_1', description: 'A moon rock', location: 'Sea of Tranquility', foundAt: new Date('1969-07-20T21:00:00Z') };

  it('finds the earliest registered item with the same description, place, time and timeline', async () => {
    const repos = new InMemoryDatabase().repositories();
    await repos.items.add(anItem({ id: 'itm_2', ...found, registeredAt: new Date('2030-01-01T12:06:00Z') }));
    await repos.items.add(anItem({ id: 'itm_1', ...found, registeredAt: new Date('2030-01-01T12:05:00Z') }));

    expect((await repos.items.findSame('acc_1', { ...found, foundAt: new Date(found.foundAt.getTime()) }))?.id).toBe('itm_1');
  });

  it('finds the item whatever the letter case of its description and place', async () => {
    const repos = new InMemoryDatabase().repositories();
    await repos.items.add(anItem(found));

    expect((await repos.items.findSame('acc_1', { ...found, description: 'A MOON ROCK', location: 'sea of tranquility' }))?.id).toBe('itm_1');
  });

  it.each([
    ['another timeline', { timelineId: 'tml_2' }],
    ['another description', { description: 'A flag' }],
    ['another place', { location: 'Tranquility Base' }],
    ['another time', { foundAt: new Date('1969-07-20T21:00:01Z') }],
  ])('finds nothing for %s', async (_label, difference) => {
    const repos = new InMemoryDatabase().repositories();
    await repos.items.add(anItem(found));

    expect(await repos.items.findSame('acc_1', { ...found, ...difference })).toBeNull();
  });

  it("finds nothing of another account's", async () => {
    const repos = new InMemoryDatabase().repositories();
    await repos.items.add(anItem(found));

    expect(await repos.items.findSame('acc_2', found)).toBeNull();
  });
});

describe('in-memory event repository', () => {
  const at = (time: string) => ({ time: new Date(time), originalTime: new Date(time) });
  const ids = (events: readonly { id: string }[]) => events.map((event) => event.id);

  async function someEvents() {
    const repos = new InMemoryDatabase().repositories();
    await repos.events.add(anEvent({ id: 'evt_c', location: 'Waterloo', description: 'Cannon fire', ...at('1815-06-18T11:30:00Z') }));
    await repos.events.add(anEvent({ id: 'evt_b', location: 'waterloo ', description: 'Rain', ...at('1815-06-18T11:30:00Z') }));
    await repos.events.add(anEvent({ id: 'evt_a', location: 'Waterloo', description: 'Charge', ...at('1815-06-18T18:00:00Z') }));
    await repos.events.add(anEvent({ id: 'evt_d', location: 'Brussels', description: 'WATERLOO', ...at('1815-06-18T12:00:00Z') }));
    await repos.events.add(anEvent({ id: 'evt_e', location: 'Waterloo', description: 'Too early', ...at('1815-06-17T23:59:59Z') }));
    await repos.events.add(anEvent({ id: 'evt_other_timeline', timelineId: 'tml_2', location: 'Waterloo', ...at('1815-06-18T12:00:00Z') }));
    await repos.events.add(anEvent({ id: 'evt_other_account', accountId: 'acc_2', location: 'Waterloo', ...at('1815-06-18T12:00:00Z') }));
    return repos;
  }

  const day = TimeRange.parse('1815-06-18T00:00:00Z/1815-06-18T18:00:00Z');
  const query = { timelineId: 'tml_1', place: 'WATERLOO', range: day, after: null, limit: 10 };

  it('lists the events of the timeline at a location or so named, within the range (inclusive), by time then id', async () => {
    const repos = await someEvents();
    expect(ids(await repos.events.listAt('acc_1', query))).toEqual(['evt_b', 'evt_c', 'evt_d', 'evt_a']);
  });

  it('lists after the cursor, up to the limit', async () => {
    const repos = await someEvents();
    expect(ids(await repos.events.listAt('acc_1', { ...query, limit: 2 }))).toEqual(['evt_b', 'evt_c']);
    expect(ids(await repos.events.listAt('acc_1', { ...query, after: { time: new Date('1815-06-18T11:30:00Z'), id: 'evt_b' } }))).toEqual([
      'evt_c',
      'evt_d',
      'evt_a',
    ]);
    expect(await repos.events.listAt('acc_1', { ...query, limit: 0 })).toEqual([]);
  });

  it("never lists another account's events", async () => {
    const repos = await someEvents();
    expect(ids(await repos.events.listAt('acc_2', query))).toEqual(['evt_other_account']);
    expect(await repos.events.findForAccount('acc_2', 'evt_a')).toBeNull();
  });

  it('finds events by name on one timeline, optionally within a range on the current or the original time', async () => {
    const repos = await someEvents();
    await repos.events.add(anEvent({ id: 'evt_moved', description: 'Rain', time: new Date('1815-06-19T12:00:00Z'), originalTime: new Date('1815-06-18T08:00:00Z') }));
    const morning = TimeRange.parse('1815-06-18T07:00:00Z/1815-06-18T09:00:00Z');
    const nextDay = TimeRange.parse('1815-06-19T00:00:00Z/1815-06-19T23:59:59Z');

    expect(ids(await repos.events.findNamed('acc_1', 'tml_1', [' RAIN ', 'charge']))).toEqual(['evt_b', 'evt_a', 'evt_moved']);
    expect(ids(await repos.events.findNamed('acc_1', 'tml_1', ['Rain'], morning))).toEqual(['evt_moved']);
    expect(ids(await repos.events.findNamed('acc_1', 'tml_1', ['Rain'], nextDay))).toEqual(['evt_moved']);
    expect(ids(await repos.events.findNamed('acc_1', 'tml_1', ['Rain'], day))).toEqual(['evt_b', 'evt_moved']);
    expect(ids(await repos.events.findNamed('acc_1', 'tml_1', ['Rain'], TimeRange.parse('1815-06-18T11:00:00Z/1815-06-18T12:00:00Z')))).toEqual(['evt_b']);
    expect(await repos.events.findNamed('acc_1', 'tml_2', ['Rain'])).toEqual([]);
  });

  it('finds manipulated events (revision above 0), optionally within a range on the current or the original time', async () => {
    const repos = await someEvents();
    const moved = anEvent({ id: 'evt_b', location: 'waterloo ', description: 'Rain', time: new Date('1815-06-19T12:00:00Z'), originalTime: new Date('1815-06-18T11:30:00Z'), revision: 1 });
    await repos.events.save(moved);
    await repos.events.save(anEvent({ id: 'evt_a', location: 'Waterloo', description: 'Charge', ...at('1815-06-18T18:00:00Z'), revision: 2 }));

    expect(ids(await repos.events.findManipulated('acc_1', 'tml_1'))).toEqual(['evt_a', 'evt_b']);
    expect(ids(await repos.events.findManipulated('acc_1', 'tml_1', TimeRange.parse('1815-06-18T11:00:00Z/1815-06-18T12:00:00Z')))).toEqual(['evt_b']);
    expect(ids(await repos.events.findManipulated('acc_1', 'tml_1', TimeRange.parse('1815-06-19T00:00:00Z/1815-06-19T23:59:59Z')))).toEqual(['evt_b']);
    expect(await repos.events.findManipulated('acc_1', 'tml_1', TimeRange.parse('1815-06-20T00:00:00Z/1815-06-20T23:59:59Z'))).toEqual([]);
    expect(await repos.events.findManipulated('acc_2', 'tml_1')).toEqual([]);
  });

  it("lists an event's manipulations by revision, and only the account's own", async () => {
    const repos = new InMemoryDatabase().repositories();
    await repos.events.addManipulation(aManipulation({ id: 'man_2', revision: 2 }));
    await repos.events.addManipulation(aManipulation({ id: 'man_1', revision: 1 }));
    await repos.events.addManipulation(aManipulation({ id: 'man_3', eventId: 'evt_2', revision: 1 }));
    await repos.events.addManipulation(aManipulation({ id: 'man_4', accountId: 'acc_2', revision: 3 }));

    expect(ids(await repos.events.manipulationsOf('acc_1', 'evt_1'))).toEqual(['man_1', 'man_2']);
  });

  it('refuses to add an event twice or to save one never added', async () => {
    const repos = new InMemoryDatabase().repositories();
    await repos.events.add(anEvent());
    await expect(repos.events.add(anEvent())).rejects.toThrow();
    await expect(repos.events.save(anEvent({ id: 'evt_404' }))).rejects.toThrow();
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
