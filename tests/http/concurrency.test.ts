import type { Server } from 'node:http';
import request from 'supertest';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { halfWrites } from '../support/consistency';
import { call, signUpThrough } from '../support/process-client';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { serverOnly } from '../support/server-only';
import { provisionTestDatabase, type TestDatabase } from '../support/test-database';
import {
  anchorLane,
  clockLane,
  createdId,
  fastForwardLane,
  itemLane,
  journeyLane,
  WriteLoad,
  type Route,
  type WriteKind,
} from '../support/write-load';

const MINUTE = 60_000;

/** The account's clock as stored; paused, so its reading is exact. */
async function storedClock(t: TestApp, account: TestAccount): Promise<Date> {
  const traveller = await t.prisma.traveller.findUniqueOrThrow({ where: { accountId: account.id } });
  expect(traveller.clockPaused).toBe(true);
  return traveller.clockReading;
}

describe('no update is lost under concurrent requests', () => {
  let t: TestApp;
  let server: Server;
  beforeAll(async () => {
    t = await startTestApp();
    server = t.app.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  it('moves the clock by exactly 100 minutes for 100 concurrent fast-forwards of 1m', async () => {
    const me = await t.signUp();
    await request(server).post('/v1/pause-time').set('Authorization', me.auth).expect(200);
    const before = await storedClock(t, me);

    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        request(server).post('/v1/fast-forward').set('Authorization', me.auth).send({ duration: '1m' }),
      ),
    );

    expect(answers.map((answer) => answer.status)).toEqual(Array(100).fill(200));
    const newTimes = answers.map((answer) => Date.parse(answer.body.new_time)).sort((a, b) => a - b);
    // Each request saw the one before it: the answers are exactly the 100 successive minutes.
    const wholeSeconds = (ms: number) => Math.floor(ms / 1000) * 1000; // answers are to the second
    expect(newTimes).toEqual(Array.from({ length: 100 }, (_, n) => wholeSeconds(before.getTime() + (n + 1) * MINUTE)));
    expect((await storedClock(t, me)).getTime()).toBe(before.getTime() + 100 * MINUTE);
  });

  it('keeps a running clock running with the wall clock under concurrent fast-forwards', async () => {
    const me = await t.signUp();
    const before = await t.prisma.traveller.findUniqueOrThrow({ where: { accountId: me.id } });
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        request(server).post('/v1/fast-forward').set('Authorization', me.auth).send({ duration: '1m' }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(100).fill(200));
    const after = await t.prisma.traveller.findUniqueOrThrow({ where: { accountId: me.id } });
    // To the millisecond: the 100 minutes plus exactly the wall time between the two readings.
    const wallTime = after.clockReadAt.getTime() - before.clockReadAt.getTime();
    expect(after.clockPaused).toBe(false);
    expect(after.clockReading.getTime()).toBe(before.clockReading.getTime() + wallTime + 100 * MINUTE);
  });

  // Several processes share a PostgreSQL server; the embedded database belongs to one process only
  // (a second one is refused on its data folder, see tests/integration/database), so this case
  // exists only when the tests run on a server (as CI does).
  serverOnly(() => {
    it('also when two service processes share one database server', twoProcesses, 90_000);
  });

  async function twoProcesses(): Promise<void> {
    const other = await startServiceProcess({ DATABASE_URL: t.connectionString });
    try {
      const me = await t.signUp();
      await request(server).post('/v1/pause-time').set('Authorization', me.auth).expect(200);
      const before = await storedClock(t, me);

      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, n) =>
          request(n % 2 === 0 ? server : other.url)
            .post('/v1/fast-forward')
            .set('Authorization', me.auth)
            .send({ duration: '1m' }),
        ),
      );

      expect(answers.map((answer) => answer.status)).toEqual(Array(100).fill(200));
      expect((await storedClock(t, me)).getTime()).toBe(before.getTime() + 100 * MINUTE);
    } finally {
      expect(await other.stop()).toBe(0);
    }
  }
});

// Two service processes, each with its own connection pool, on one PostgreSQL database: what one
// process writes for an account, the other sees and builds on. As above, only on a server.
serverOnly(() => {
  describe('two service processes on one database under a mixed load', () => {
    let database: TestDatabase;
    let first: ServiceProcess;
    let second: ServiceProcess;
    /** Alternates the processes request by request, so each lane's requests go to both. */
    const both: Route = (n) => (n % 2 === 0 ? first.url : second.url);
    beforeAll(async () => {
      database = await provisionTestDatabase();
      const env = {
        DATABASE_URL: database.connectionString,
        LOG_LEVEL: 'silent',
        RATE_LIMIT_PER_SECOND: '0',
        RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0',
      };
      [first, second] = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    }, 120_000);
    afterAll(async () => {
      const exits = await Promise.all([first?.stop(), second?.stop()]);
      await database?.close();
      expect(exits).toEqual([0, 0]);
    }, 60_000);

    it('applies every write of every account once, losing none, and leaves other accounts alone', async () => {
      const bystander = await signUpThrough(first.url, 'bystander');
      expect(
        (await call(first.url, 'POST', '/v1/anchors', { auth: bystander.auth, body: { description: 'Mine' } })).status,
      ).toBe(201);
      expect(
        (
          await call(second.url, 'POST', '/v1/timelines', {
            auth: bystander.auth,
            body: { name: 'Mine', destination_time: '1969-07-20T20:17:40Z' },
          })
        ).status,
      ).toBe(201);
      const untouched = await rowsOf(database, bystander.id);

      const clock = await signUpThrough(first.url, 'pair-clock');
      expect((await call(second.url, 'POST', '/v1/pause-time', { auth: clock.auth })).status).toBe(200);
      const clockBefore = await pausedClock(database, clock.id);
      const accounts = [
        await signUpThrough(first.url, 'pair-a'),
        await signUpThrough(second.url, 'pair-b'),
        await signUpThrough(first.url, 'pair-c'),
      ];

      const load = new WriteLoad(both);
      await Promise.all([
        ...[0, 1, 2, 3].map((lane) => fastForwardLane(load, clock, `ff-${lane}`, 25)),
        ...accounts.flatMap((account, n) => [
          anchorLane(load, account, `anchor-${n}`, 30),
          anchorLane(load, account, `anchor-more-${n}`, 30),
          itemLane(load, account, `item-${n}`, 30),
          journeyLane(load, account, `journey-${n}`, 6),
          clockLane(load, account, `clock-${n}`, 6),
        ]),
      ]);

      expect(load.refused()).toEqual([]);
      expect(load.unanswered()).toEqual([]);
      // Exactly the 100 acknowledged minutes on the clock both processes moved.
      expect((await pausedClock(database, clock.id)) - clockBefore).toBe(100 * MINUTE);
      for (const account of accounts) {
        const rows = await rowsOf(database, account.id);
        const created = (...kinds: WriteKind[]) =>
          kinds.flatMap((kind) => load.answered({ kind, accountId: account.id }).map(createdId)).sort();
        // One row per acknowledged write, under the id its answer gave, none twice.
        expect(rows.anchors.map((row) => row.id).sort()).toEqual(created('anchor'));
        expect(rows.items.map((row) => row.id).sort()).toEqual(created('item'));
        expect(rows.travels.map((row) => row.id).sort()).toEqual(created('travel', 'moment'));
        expect(
          rows.timelines
            .map((row) => row.id)
            .filter((id) => id !== 'primary')
            .sort(),
        ).toEqual(created('timeline'));
        // Every journey ended at home with its item carried, by whichever process.
        expect(rows.timelines.filter((row) => row.id !== 'primary').map((row) => row.status)).toEqual(
          Array(6).fill('completed'),
        );
        expect(rows.items.filter((row) => row.carriedHomeBy !== null)).toHaveLength(6);
        expect(rows.traveller).toMatchObject({ timelineId: 'primary', journeyTravelId: null, clockPaused: false });
      }
      expect(
        await halfWrites(
          database.prisma,
          [clock, ...accounts].map((account) => account.id),
        ),
      ).toEqual([]);
      expect(await rowsOf(database, bystander.id)).toEqual(untouched);
    }, 180_000);

    it('pauses or resumes a clock once when both processes are asked at the same moment', async () => {
      const me = await signUpThrough(first.url, 'pair-pause');
      const all = (path: string) =>
        Promise.all(
          Array.from({ length: 10 }, (_, n) =>
            call(both(n), 'POST', path, { auth: me.auth }).then((answer) => answer.body.code ?? answer.status),
          ),
        );
      const pauses = await all('/v1/pause-time');
      expect(pauses.sort()).toEqual([200, ...Array(9).fill('clock_already_paused')].sort());
      const resumes = await all('/v1/resume-time');
      expect(resumes.sort()).toEqual([200, ...Array(9).fill('clock_already_running')].sort());
      expect((await rowsOf(database, me.id)).traveller).toMatchObject({ clockPaused: false });
    }, 60_000);

    it('acts once per Idempotency-Key when retries reach both processes at once', async () => {
      const [me, other] = [
        await signUpThrough(first.url, 'pair-keys'),
        await signUpThrough(second.url, 'pair-keys-other'),
      ];
      expect((await call(first.url, 'POST', '/v1/pause-time', { auth: me.auth })).status).toBe(200);
      const clockBefore = await pausedClock(database, me.id);
      const requests: { path: string; body: unknown; key: string }[] = Array.from({ length: 8 }, (_, n) => [
        { path: '/v1/anchors', body: { description: `Keyed anchor ${n}` }, key: `anchor-${n}` },
        { path: '/v1/items', body: { description: `Keyed item ${n}` }, key: `item-${n}` },
        {
          path: '/v1/timelines',
          body: { name: `Keyed ${n}`, destination_time: '1969-07-20T20:17:40Z' },
          key: `timeline-${n}`,
        },
        { path: '/v1/fast-forward', body: { duration: '1m' }, key: `forward-${n}` },
      ]).flat();

      // Each request six times at once, three copies to each process; the other account uses the same keys.
      const copies = await Promise.all(
        requests.map(async (sent, index) => ({
          sent,
          mine: await Promise.all(
            Array.from({ length: 6 }, (_, n) =>
              call(both(n), 'POST', sent.path, { auth: me.auth, body: sent.body, idempotencyKey: sent.key }),
            ),
          ),
          theirs: await call(both(index + 1), 'POST', sent.path, {
            auth: other.auth,
            body: sent.body,
            idempotencyKey: sent.key,
          }),
        })),
      );

      for (const [index, { sent, mine, theirs }] of copies.entries()) {
        const acted = mine.filter(
          (answer) => answer.status < 300 && answer.headers['idempotent-replayed'] === undefined,
        );
        expect({ key: sent.key, acted: acted.length }).toEqual({ key: sent.key, acted: 1 });
        for (const answer of mine)
          expect({ status: answer.status, body: answer.body }).toEqual({
            status: acted[0].status,
            body: acted[0].body,
          });
        // Once the first answer is kept, any retry, to either process, gets it.
        const retry = await call(both(index), 'POST', sent.path, {
          auth: me.auth,
          body: sent.body,
          idempotencyKey: sent.key,
        });
        expect(retry).toMatchObject({
          status: acted[0].status,
          body: acted[0].body,
          headers: { 'idempotent-replayed': 'true' },
        });
        // The same key of another account is its own: it acted there too, for that account.
        expect(theirs.headers['idempotent-replayed']).toBeUndefined();
        expect(theirs.status).toBe(acted[0].status);
      }

      const rows = await rowsOf(database, me.id);
      expect(rows.anchors).toHaveLength(8);
      expect(rows.items).toHaveLength(8);
      expect(rows.timelines).toHaveLength(1 + 8);
      expect((await pausedClock(database, me.id)) - clockBefore).toBe(8 * MINUTE);
      expect((await rowsOf(database, other.id)).anchors).toHaveLength(8);
      expect(await halfWrites(database.prisma, [me.id, other.id])).toEqual([]);
    }, 120_000);
  });
});

/** The stored clock of a paused account, in epoch milliseconds. */
async function pausedClock(database: TestDatabase, accountId: string): Promise<number> {
  const traveller = await database.prisma.traveller.findUniqueOrThrow({ where: { accountId } });
  expect(traveller.clockPaused).toBe(true);
  return traveller.clockReading.getTime();
}

/** Everything stored for an account, in a stable order. */
async function rowsOf(database: TestDatabase, accountId: string) {
  const where = { accountId };
  const byId = { id: 'asc' } as const;
  return {
    traveller: await database.prisma.traveller.findUniqueOrThrow({ where }),
    anchors: await database.prisma.anchor.findMany({ where, orderBy: byId }),
    items: await database.prisma.item.findMany({ where, orderBy: byId }),
    travels: await database.prisma.travel.findMany({ where, orderBy: byId }),
    timelines: await database.prisma.timeline.findMany({ where, orderBy: byId }),
    events: await database.prisma.event.findMany({ where, orderBy: byId }),
  };
}
