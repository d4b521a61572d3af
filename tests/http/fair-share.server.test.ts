// The instance's work at once (INSTANCE_WORK_RUNNING, INSTANCE_REQUESTS_QUEUED): once it is full,
// waiting requests are served by account in turn, and past its queue the newest request of the
// account with the most waiting is shed with 503 server_busy. The instance is held full by one
// account's write waiting on a lock taken outside the service (a PostgreSQL server's: the embedded
// database's one connection would hold every request).
import pino from 'pino';
import request from 'supertest';
import { holdWrites } from '../support/hold-writes';
import { serverOnly } from '../support/server-only';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

serverOnly(() =>
  describe("the instance's fair share", () => {
    let t: TestApp;
    const logLines: Array<Record<string, unknown>> = [];

    beforeAll(async () => {
      t = await startTestApp({
        instanceWork: { running: 1, queued: 2 },
        logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) }),
      });
    });
    afterAll(() => t.close());

    const setAnchor = (account: TestAccount, description: string) =>
      request(t.app)
        .post('/v1/anchors')
        .set('Authorization', account.auth)
        .send({ description })
        .then((answer) => answer);
    const waitingForTheInstance = async (count: number) => {
      const until = Date.now() + 10_000;
      while (t.admission?.load.queued !== count && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(t.admission?.load.queued).toBe(count);
    };

    it("sheds the busiest account's newest request, serves the quiet one, and acts on nothing shed", async () => {
      const [noisy, quiet] = [await t.signUp(), await t.signUp()];
      const release = await holdWrites(t.prisma, noisy.id);
      // The first holds the instance (its write waits for the lock); two more wait for it.
      const noisySent = [setAnchor(noisy, 'Noisy 1')];
      await new Promise((resolve) => setTimeout(resolve, 200));
      noisySent.push(setAnchor(noisy, 'Noisy 2'), setAnchor(noisy, 'Noisy 3'));
      await waitingForTheInstance(2);

      // The queue is full: the quiet account's read takes the place of the noisy account's newest.
      const quietRead = request(t.app)
        .get('/timelines')
        .set('Authorization', quiet.auth)
        .then((answer) => answer);
      const shed = await noisySent[2];
      expect(shed?.body).toMatchObject({ code: 'server_busy' });
      expect(shed?.status).toBe(503);
      expect(shed?.headers['retry-after']).toBe('1');
      expect(shed?.headers['content-type']).toContain('application/problem+json');
      expect(shed?.body).toMatchObject({ code: 'server_busy' });

      await release();
      const [first, second] = await Promise.all(noisySent.slice(0, 2));
      expect([first?.status, second?.status, (await quietRead).status]).toEqual([201, 201, 200]);
      const set = await t.prisma.anchor.findMany({ where: { accountId: noisy.id }, select: { description: true } });
      expect(set.map((anchor) => anchor.description).sort()).toEqual(['Noisy 1', 'Noisy 2']);

      // The quiet read went before the noisy account's waiting write, and its log line says how long it waited.
      const pathOf = (line: Record<string, unknown>) => (line.req as { path?: string }).path;
      const statusOf = (line: Record<string, unknown>) => (line.res as { status?: number }).status;
      const quietAt = logLines.findIndex((line) => pathOf(line) === '/timelines' && statusOf(line) === 200);
      const written = logLines.flatMap((line, at) =>
        pathOf(line) === '/v1/anchors' && statusOf(line) === 201 ? [at] : [],
      );
      expect(written).toHaveLength(2);
      expect(quietAt).toBeGreaterThan(written[0] ?? Infinity);
      expect(quietAt).toBeLessThan(written[1] ?? -1);
      expect(logLines[quietAt]?.turn_wait_ms).toEqual(expect.any(Number));
      expect(logLines.filter((line) => line.code === 'server_busy')).toHaveLength(1);
      expect(t.takeLoggedErrors()).toEqual([]);
    }, 30_000);
  }),
);
