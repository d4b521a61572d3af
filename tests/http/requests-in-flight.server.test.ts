// An account's requests in flight (ACCOUNT_REQUESTS_RUNNING, ACCOUNT_REQUESTS_QUEUED): one account's
// slow requests wait behind each other, not in front of everyone's. Its writes are held slow by a
// lock on its traveller, taken outside the service: a PostgreSQL server's, which the embedded
// database (one connection) cannot hold while others are served.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { LeftTheQueue } from '../../src/interfaces/http/admission/admission-gate';
import { holdTable, holdWrites } from '../support/hold-writes';
import { serverOnly } from '../support/server-only';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { waitFor, within } from '../support/wait-for';

serverOnly(() =>
  describe('requests in flight per account', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({ accountRequests: { running: 2, queued: 2 } });
    });
    afterAll(() => t.close());

    const holdWritesOf = (account: TestAccount) => holdWrites(t.prisma, account.id);
    const setAnchor = (account: TestAccount, description: string) =>
      request(t.app)
        .post('/v1/anchors')
        .set('Authorization', account.auth)
        .send({ description })
        .then((answer) => answer);
    const anchors = (account: TestAccount) => t.prisma.anchor.count({ where: { accountId: account.id } });

    it("runs an account's limit at once, queues the next, refuses the rest, and serves others meanwhile", async () => {
      const [noisy, quiet] = [await t.signUp(), await t.signUp()];
      const release = await holdWritesOf(noisy);
      const sent = Array.from({ length: 5 }, (_, n) => setAnchor(noisy, `Held ${n}`));
      // Two run (and wait for the lock), two wait their turn: the fifth is refused at once.
      const first = await Promise.race([
        ...sent,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000)),
      ]);
      expect(first?.status).toBe(429);
      expect(first?.headers['retry-after']).toBe('1');
      expect(first?.headers['content-type']).toContain('application/problem+json');
      expect(first?.body).toMatchObject({ code: 'too_many_requests_in_flight', limit: 4 });

      // Another account is served in full while the noisy one's wait.
      expect((await request(t.app).get('/timelines').set('Authorization', quiet.auth)).status).toBe(200);
      expect((await setAnchor(quiet, 'Quiet home')).status).toBe(201);

      await release();
      const statuses = (await Promise.all(sent)).map((answer) => answer.status).sort();
      expect(statuses).toEqual([201, 201, 201, 201, 429]);
      expect(await anchors(noisy)).toBe(4);
    }, 30_000);

    it('drops a waiting request whose client left: it does nothing, holds no place, and the next runs', async () => {
      const account = await t.signUp();
      const admission = t.admission;
      if (!admission) throw new Error('the app admits no requests');
      const release = await holdWritesOf(account);
      const running = [setAnchor(account, 'Running 1'), setAnchor(account, 'Running 2')];
      // Both run: one waits for the lock, the other behind it in the process's queue of the account's writes.
      await waitFor(() => admission.load.runningWeight === 2, { what: 'both requests to run' });
      const entering = jest.spyOn(admission, 'enter');

      const server = t.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const body = JSON.stringify({ description: 'Never set' });
        const leaving = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/anchors',
          agent: false,
          headers: { Authorization: account.auth, 'Content-Type': 'application/json', 'Content-Length': body.length },
        });
        leaving.on('error', () => undefined);
        leaving.end(body);
        // Queued behind the two running once it asked for its turn. Then the client leaves, and the
        // request leaves the queue.
        const { turn } = await waitFor(() => entering.mock.results[0] && { turn: entering.mock.results[0].value }, {
          what: 'the request to ask for its turn',
        });
        leaving.destroy();
        const left = await within(
          turn.catch((error: unknown) => error),
          { what: 'the request to leave the queue' },
        );
        expect(left).toBeInstanceOf(LeftTheQueue);
      } finally {
        entering.mockRestore();
        await new Promise((resolve) => server.close(resolve));
      }
      const next = setAnchor(account, 'After');
      await release();
      expect((await Promise.all([...running, next])).map((answer) => answer.status)).toEqual([201, 201, 201]);
      const set = await t.prisma.anchor.findMany({ where: { accountId: account.id }, select: { description: true } });
      expect(set.map((anchor) => anchor.description).sort()).toEqual(['After', 'Running 1', 'Running 2']);
      // The request that left holds no place: once the others are done, nothing runs.
      await waitFor(() => admission.load.runningWeight === 0, { what: 'every request to give its place back' });
      expect(t.takeLoggedErrors()).toEqual([]);
    }, 30_000);
  }),
);

serverOnly(() =>
  describe('event streams among the requests in flight', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({ accountRequests: { running: 1, queued: 0 } });
    });
    afterAll(() => t.close());

    it('counts a stream while it opens, and not once it is open', async () => {
      const account = await t.signUp();
      const streamPath = '/v1/monitor-events?location=Here&time_range=1600-01-01T00:00:00Z/1600-01-02T00:00:00Z';
      // Its one request that runs reads its timelines, held back by a lock on their table (a write of
      // its own would hold its traveller, which a stream's opening waits for too, before its turn).
      const release = await holdTable(t.prisma, 'timelines');
      const listed = request(t.app)
        .get('/timelines')
        .set('Authorization', account.auth)
        .then((answer) => answer);
      await waitForLockWaiters(t, 1);

      // Opening a stream is one more, refused before it streams.
      const refused = await request(t.app)
        .get(streamPath)
        .set('Authorization', account.auth)
        .set('Accept', 'text/event-stream');
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'too_many_requests_in_flight' });
      await release();
      expect((await listed).status).toBe(200);

      // Open, it holds no turn: the account's requests run beside it.
      const server = t.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const opened = await firstBytesOf(port, streamPath, account.auth);
        expect(opened.status).toBe(200);
        expect(opened.text).toContain('event: caught-up');
        expect((await request(t.app).get('/timelines').set('Authorization', account.auth)).status).toBe(200);
        opened.close();
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      expect(t.takeLoggedErrors()).toEqual([]);
    }, 30_000);
  }),
);

/** A stream's status and what it sent until its `caught-up`, left open until `close()`. */
function firstBytesOf(port: number, path: string, auth: string) {
  return new Promise<{ status: number; text: string; close: () => void }>((resolve, reject) => {
    const asked = httpRequest(
      { host: '127.0.0.1', port, path, agent: false, headers: { Authorization: auth, Accept: 'text/event-stream' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('event: caught-up'))
            resolve({ status: res.statusCode ?? 0, text, close: () => asked.destroy() });
        });
      },
    );
    asked.on('error', reject);
    asked.end();
  });
}

/** Until `count` statements wait for a lock: the account's requests that run. */
async function waitForLockWaiters(t: TestApp, count: number): Promise<void> {
  for (let tries = 0; tries < 200; tries += 1) {
    const [row] = await t.prisma.$queryRaw<{ waiting: number }[]>`
      SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    if ((row?.waiting ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${count} statements never waited for the lock`);
}
