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
        instanceWork: { running: 2, queued: 2 },
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
    /** Waits until the instance's load shows `count`, as the requests sent reach their turns. */
    const loadReaches = async (measure: 'queued' | 'runningWeight', count: number) => {
      const until = Date.now() + 10_000;
      while (t.admission?.load[measure] !== count && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(t.admission?.load[measure]).toBe(count);
    };
    const waitingForTheInstance = (count: number) => loadReaches('queued', count);
    const runningOnTheInstance = (count: number) => loadReaches('runningWeight', count);

    it("serves a quiet account before a busy one, sheds the busiest's newest, and acts on nothing shed", async () => {
      const [noisy, other, quiet] = [await t.signUp(), await t.signUp(), await t.signUp()];
      const releaseNoisy = await holdWrites(t.prisma, noisy.id);
      const releaseOther = await holdWrites(t.prisma, other.id);
      // Each holds one of the instance's two places (their writes wait for the locks); two more of
      // the noisy account's wait for a place.
      const otherSent = setAnchor(other, 'Other 1');
      const noisySent = [setAnchor(noisy, 'Noisy 1')];
      await runningOnTheInstance(2);
      noisySent.push(setAnchor(noisy, 'Noisy 2'));
      await waitingForTheInstance(1);
      noisySent.push(setAnchor(noisy, 'Noisy 3'));
      await waitingForTheInstance(2);

      // The queue is full: the quiet account's read takes the place of the noisy account's newest.
      let quietAnswered = false;
      const quietRead = request(t.app)
        .get('/timelines')
        .set('Authorization', quiet.auth)
        .then((answer) => {
          quietAnswered = true;
          return answer;
        });
      const shed = await noisySent[2];
      expect(shed?.body).toMatchObject({ code: 'server_busy' });
      expect(shed?.status).toBe(503);
      expect(shed?.headers['retry-after']).toBe('1');
      expect(shed?.headers['content-type']).toContain('application/problem+json');

      // A place frees: the quiet account, with nothing running, goes before the noisy one's waiting
      // write, which stays waiting (the noisy account's lock is still held).
      await releaseOther();
      expect((await otherSent).status).toBe(201);
      expect((await quietRead).status).toBe(200);
      expect(quietAnswered).toBe(true);
      expect(t.admission?.load).toEqual({ runningWeight: 2, queued: 0 });

      await releaseNoisy();
      const [first, second] = await Promise.all(noisySent.slice(0, 2));
      expect([first?.status, second?.status]).toEqual([201, 201]);
      const set = await t.prisma.anchor.findMany({ where: { accountId: noisy.id }, select: { description: true } });
      expect(set.map((anchor) => anchor.description).sort()).toEqual(['Noisy 1', 'Noisy 2']);

      // The quiet read waited its turn for the instance, and its log line says how long.
      const pathOf = (line: Record<string, unknown>) => (line.req as { path?: string }).path;
      const quietLine = logLines.find((line) => pathOf(line) === '/timelines' && line.account_id !== undefined);
      expect(quietLine?.turn_wait_ms).toEqual(expect.any(Number));
      expect(logLines.filter((line) => line.code === 'server_busy')).toHaveLength(1);
      expect(t.takeLoggedErrors()).toEqual([]);
    }, 30_000);
  }),
);
