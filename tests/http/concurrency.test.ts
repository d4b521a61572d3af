import type { Server } from 'node:http';
import request from 'supertest';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { startServiceProcess } from '../support/service-process';

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
      Array.from({ length: 100 }, () => request(server).post('/v1/fast-forward').set('Authorization', me.auth).send({ duration: '1m' })),
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
      Array.from({ length: 100 }, () => request(server).post('/v1/fast-forward').set('Authorization', me.auth).send({ duration: '1m' })),
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
  if (process.env.DATABASE_URL) {
    it('also when two service processes share one database server', twoProcesses, 90_000);
  }

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
