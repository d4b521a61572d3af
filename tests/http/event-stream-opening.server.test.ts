// A write whose statement ran before a stream took its slot, and that commits while the stream
// opens: the database announced nothing to it, so the stream must read it (docs/decisions.md,
// "Event streams"). Needs DATABASE_URL: the embedded database runs one transaction at a time, so
// a write cannot stay uncommitted there while a stream opens.
import { asAccount } from '../support/http/as-account';
import { openStream, serveOnLoopback } from '../support/http/event-stream-client';
import { startTestApp, type TestApp } from '../support/http/test-app';
import { waitFor } from '../support/wait-for';

const PLACE = 'Globe Theatre';
const DAY_1600 = '1600-01-01T00:00:00Z/1600-01-02T00:00:00Z';

describe('an event stream opening while a write commits', () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveOnLoopback>>;

  beforeAll(async () => {
    t = await startTestApp({ eventStreams: { perProcess: 4, perAccount: 2, heartbeatMs: 1_000, retryMs: 100 } });
    served = await serveOnLoopback(t.app);
  });
  afterAll(async () => {
    await served?.close();
    await t?.close();
  });

  it('sends the write, though its statement ran before the stream took its slot', async () => {
    const a = asAccount(t, await t.signUp());
    await a.post('/v1/pause-time');
    const arrived = await a.post('/api/v1/travel', { destination_time: '1600-01-01T02:00:00Z', location: PLACE });
    expect(arrived.status).toBe(200);
    const accountId = a.account.id;
    const url = `${served.url}/v1/monitor-events?${new URLSearchParams({ location: PLACE, time_range: DAY_1600 })}`;

    let stream: ReturnType<typeof openStream> | undefined;
    try {
      // A unit of work's writes, as its statement makes them (the traveller's version moved on, the
      // event moved and stamped with it), left uncommitted until the stream has opened as far as
      // it can: caught up, or waiting for this write to commit.
      await t.prisma.$transaction(
        async (tx) => {
          const [{ pid }] = await tx.$queryRaw<Array<{ pid: number }>>`SELECT pg_backend_pid() AS "pid"`;
          await tx.$executeRaw`
            WITH "moved_on" AS (
              UPDATE "travellers" SET "version" = "version" + 1 WHERE "account_id" = ${accountId} RETURNING "version"
            )
            UPDATE "events" SET "time" = '1600-01-01T03:00:00Z', "revision" = "revision" + 1,
                   "account_version" = (SELECT "version" FROM "moved_on")
             WHERE "account_id" = ${accountId} AND "kind" = 'arrival'`;
          stream = openStream(url, a.account.auth);
          const opening = stream;
          await waitFor(async () => opening.received.length > 0 || (await waitsFor(t, pid)), {
            what: 'the stream to catch up or to wait for the write',
          });
        },
        { timeout: 15_000 },
      );
      const opened = stream;
      if (!opened) throw new Error('no stream opened');
      // The stream opened once the write committed, so it has the event as moved. Before, it said
      // caught-up with the arrival at 02:00, and heard of the move only at its 10 s sweep.
      const messages = await opened.waitFor(2);
      expect(messages.map(({ type, data }) => [type, data.time])).toEqual([
        ['recorded', '1600-01-01T03:00:00Z'],
        ['caught-up', undefined],
      ]);
    } finally {
      stream?.close();
    }
  });
});

/** A session waits for a lock the writing transaction's session `pid` holds: the stream's slot. */
async function waitsFor(t: TestApp, pid: number): Promise<boolean> {
  const [waiting] = await t.prisma.$queryRaw<Array<{ count: bigint }>>`
    SELECT count(*) AS "count" FROM "pg_stat_activity" WHERE ${pid}::int = ANY(pg_blocking_pids("pid"))`;
  return (waiting?.count ?? 0n) > 0n;
}
