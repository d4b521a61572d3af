// An account's requests start spread over the second at its rate limit (docs/decisions.md, "Paced
// starts"): past its first ACCOUNT_REQUESTS_RUNNING at once, one per second ÷ RATE_LIMIT_PER_SECOND.
import pino from 'pino';
import request from 'supertest';
import { startInMemoryTracing, type InMemoryTracing } from '../support/telemetry/in-memory-tracing';
import { startTestApp, type TestApp } from '../support/http/test-app';

describe("an account's paced starts", () => {
  let t: TestApp;
  let tracing: InMemoryTracing;
  const logLines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    tracing = startInMemoryTracing();
    t = await startTestApp({
      // Two starts a second, two of them at once: a pace of 500 ms, far longer than the requests
      // take to arrive together or to run, so what waits is the pace and not the machine.
      accountRequests: { running: 2, queued: 10, startsPerSecond: 2 },
      rateLimit: { perAccountPerSecond: 20 },
      logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) }),
      tracer: tracing.tracer,
    });
  });
  afterAll(async () => {
    await t.close();
    await tracing.close();
  });

  /** The log lines of GET /timelines, by the account that sent them (the log names accounts by their internal id). */
  const listingsByAccount = () => {
    const lines = new Map<unknown, Array<Record<string, unknown>>>();
    for (const line of logLines)
      if ((line.req as { path?: string } | undefined)?.path === '/timelines')
        lines.set(line.account_id, [...(lines.get(line.account_id) ?? []), line]);
    return [...lines.values()].sort((a, b) => b.length - a.length);
  };

  it('serves a burst within the rate limit in full, its requests past the first two one per pace', async () => {
    const [bursting, quiet] = [await t.signUp(), await t.signUp()];
    // Frozen at the start of a window a minute ahead: the burst falls in one second of the rate limit.
    t.clock.freezeAt(new Date((Math.floor(Date.now() / 60_000) + 1) * 60_000));
    const burst = Array.from({ length: 5 }, () =>
      request(t.app)
        .get('/timelines')
        .set('Authorization', bursting.auth)
        .then((answer) => answer),
    );
    const beside = await request(t.app).get('/timelines').set('Authorization', quiet.auth);
    const answers = await Promise.all(burst);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(beside.status).toBe(200);
    // Two at once; the third, fourth and fifth each one pace (500 ms) after the one before it, the
    // last some 1,500 ms after it was sent.
    const [burstLines = [], besideLines = []] = listingsByAccount();
    expect([burstLines.length, besideLines.length]).toEqual([5, 1]);
    const waits = burstLines
      .map((line) => line.turn_wait_ms)
      .filter((wait): wait is number => typeof wait === 'number')
      .sort((a, b) => a - b);
    expect(waits).toHaveLength(3);
    expect(waits[2]).toBeGreaterThanOrEqual(1_000);
    // The other account's request was not held by the first one's pace.
    expect(besideLines.map((line) => line.turn_wait_ms)).toEqual([undefined]);

    const paced = tracing
      .named('GET /timelines')
      .flatMap((span) => span.events.filter((event) => event.name === 'waited for its turn'));
    expect(paced).toHaveLength(3);
    // The last waited two paces from its turn among the running ones, less what the one before took.
    expect(Math.max(...paced.map((event) => Number(event.attributes?.paced_ms)))).toBeGreaterThanOrEqual(700);
    expect(t.takeLoggedErrors()).toEqual([]);
  }, 30_000);
});
