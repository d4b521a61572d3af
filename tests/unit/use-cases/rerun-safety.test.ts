import { Duration } from '../../../src/core/domain/duration';
import { UnitOfWorkMisuse } from '../../../src/core/ports/transaction-boundary';
import { anAccount } from '../../support/builders/account-mother';
import { CLIENT, createTestCore, PRESENT, type TestCore } from '../../support/builders/test-core';

const PASSWORD = 'correct horse battery staple';

/** Runs a use case as one request of the API runs it (keyed or not). */
type AsRequest = <T>(produce: () => Promise<T>) => Promise<T>;

/**
 * Every writing use case once, in an order that gives each something to change: what each answered
 * and what the database holds after. Those that a POST of the API runs go through `asRequest`.
 */
async function journey(core: TestCore, asRequest: AsRequest = (produce) => produce()) {
  const accountId = await anAccount(core, 'rerun@example.com');
  const answers: unknown[] = [];
  const timeline = await asRequest(() =>
    core.createTimeline.execute({
      accountId,
      name: 'Apollo',
      destinationTime: new Date('1969-07-20T20:17:40Z'),
    }),
  );
  answers.push(timeline);
  answers.push(await asRequest(() => core.createAnchor.execute({ accountId, description: 'Before leaving' })));
  answers.push(await asRequest(() => core.travel.execute({ accountId, destination: timeline.id })));
  const item = await asRequest(() => core.registerItem.execute({ accountId, description: 'Moon rock' }));
  answers.push(item);
  answers.push(await asRequest(() => core.pauseTime.execute({ accountId })));
  answers.push(
    await asRequest(() => core.shiftTime.execute({ accountId, duration: Duration.parse('5m'), direction: 'forward' })),
  );
  answers.push(await asRequest(() => core.resumeTime.execute({ accountId })));
  answers.push(
    await asRequest(() =>
      core.travelToMoment.execute({
        accountId,
        destinationTime: new Date('1969-07-21T02:56:15Z'),
        location: 'Tranquility',
      }),
    ),
  );
  const [event] = core.database.eventsOf(accountId);
  answers.push(
    await asRequest(() =>
      core.manipulateEvent.execute({
        accountId,
        eventId: event!.id,
        action: 'Delay',
        time: new Date('1969-07-21T03:00:00Z'),
      }),
    ),
  );
  answers.push(
    await asRequest(() => core.travel.execute({ accountId, destination: 'primary', itemsTransported: [item.item.id] })),
  );
  const key = await core.createApiKey.execute({ accountId, name: 'second', permissions: null });
  answers.push(key);
  const rolled = await core.rollApiKey.execute({ accountId, keyId: key.key.id });
  answers.push(rolled);
  answers.push(await core.revokeApiKey.execute({ accountId, keyId: rolled.key.id }));
  const endpoint = await asRequest(() =>
    core.createWebhookEndpoint.execute({
      accountId,
      url: 'https://example.com/hooks',
      eventTypes: ['event.recorded', 'event.updated'],
      description: 'Production',
    }),
  );
  answers.push(endpoint);
  const removed = await asRequest(() =>
    core.createWebhookEndpoint.execute({
      accountId,
      url: 'https://example.com/old',
      eventTypes: ['timeline.window_closed'],
      description: null,
    }),
  );
  const ofEndpoint = { accountId, endpointId: endpoint.id };
  answers.push(await asRequest(() => core.rollWebhookSecret.execute(ofEndpoint)));
  answers.push(await asRequest(() => core.disableWebhookEndpoint.execute(ofEndpoint)));
  answers.push(await asRequest(() => core.enableWebhookEndpoint.execute(ofEndpoint)));
  // A DELETE, which takes no Idempotency-Key.
  await core.deleteWebhookEndpoint.execute({ accountId, endpointId: removed.id });
  answers.push(
    await core.logIn.execute({
      email: 'rerun@example.com',
      password: PASSWORD,
      clientAddress: CLIENT,
      deviceStamp: null,
    }),
  );
  return { answers, contents: core.database.contents() };
}

/**
 * What is drawn at random each time (a key's or an endpoint's secret, a session's token), so differs
 * between any two runs.
 */
const RANDOM = new Set(['secret', 'previousSecret', 'prefix', 'digest', 'token', 'tokenDigest']);

/**
 * `value` as JSON with every generated id (`acc_1`, `tml_2`, ...) replaced by the order it first
 * appears in, and what is random left out: a rerun draws new ids for what it writes again, and that
 * is all it may change.
 */
function idsInOrder(value: unknown): string {
  const seen = new Map<string, string>();
  const json = JSON.stringify(value, (name, field: unknown) => (RANDOM.has(name) ? 'random' : field));
  return json.replace(/\b[a-z]{3}_[0-9]+\b/g, (id) => {
    if (!seen.has(id)) seen.set(id, `#${seen.size}`);
    return seen.get(id)!;
  });
}

describe('Every use case is safe to run again, as the PostgreSQL boundary may run its exclusive work', () => {
  it('answers and stores the same, ids aside, when each exclusive work runs twice', async () => {
    const once = await journey(createTestCore(PRESENT));
    const twice = await journey(createTestCore(PRESENT, { runEachUnitTwice: true }));

    expect(JSON.parse(idsInOrder(twice))).toEqual(JSON.parse(idsInOrder(once)));
  });

  it('runs the work twice when asked, the first run left no trace, so the check above can fail', async () => {
    const core = createTestCore(PRESENT, { runEachUnitTwice: true });
    const accountId = await anAccount(core);
    const sideEffects: string[] = [];

    await core.transactions.exclusive(accountId, async (repos) => {
      sideEffects.push('ran');
      await repos.anchors.add({
        accountId,
        id: `anc_${sideEffects.length}`,
        timestamp: new Date(PRESENT),
        description: 'Counted',
        timelineId: 'primary',
        location: 'home',
        createdAt: new Date(PRESENT),
      });
    });

    expect(sideEffects).toEqual(['ran', 'ran']);
    expect(core.database.anchor(accountId, 'anc_1')).toBeUndefined();
    expect(core.database.anchor(accountId, 'anc_2')?.description).toBe('Counted');
  });
});

/** Runs each request as a keyed one (Idempotency-Key), a new key each time, and answers what it produced. */
function keyedOn(core: TestCore, accountOf: () => string): AsRequest {
  let requests = 0;
  return async <T>(produce: () => Promise<T>): Promise<T> => {
    requests += 1;
    const produced: { value?: T } = {};
    const keyed = await core.keys.answerOnce(
      accountOf(),
      `key-${requests}`,
      `request-${requests}`,
      async () => {
        produced.value = await produce();
        return { status: 200, body: null, headers: {} };
      },
      () => Promise.resolve(null),
    );
    if (keyed.outcome !== 'answered' || !('value' in produced))
      throw new Error(`keyed request ${requests}: ${keyed.outcome}`);
    return produced.value as T;
  };
}

describe('Every use case that a POST of the API runs keeps the rules of a keyed request', () => {
  it('answers and stores the same, ids aside, when each such request is keyed', async () => {
    const unkeyed = await journey(createTestCore(PRESENT));
    const core = createTestCore(PRESENT);
    const keyed = await journey(
      core,
      keyedOn(core, () => core.database.contents().accounts[0]!.id),
    );

    expect(JSON.parse(idsInOrder(keyed))).toEqual(JSON.parse(idsInOrder(unkeyed)));
  });

  it('refuses, in the fakes as on PostgreSQL, a keyed request that reads after its writes', async () => {
    const core = createTestCore(PRESENT);
    const accountId = await anAccount(core);
    const asKeyed = keyedOn(core, () => accountId);

    await expect(
      asKeyed(async () => {
        await core.createAnchor.execute({ accountId, description: 'Written' });
        return core.listTimelines.execute({ accountId });
      }),
    ).rejects.toBeInstanceOf(UnitOfWorkMisuse);
    expect(core.database.contents().anchors).toEqual([]);
  });
});
