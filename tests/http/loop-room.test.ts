// Room on the event loop (HEAVY_WORK_LOOP_PERCENT): a heavier request whose turn has come waits
// while its process's loop is busy past the bound, and ordinary requests go by. The loop here is a
// fake whose utilization the test sets, so the wait is the test's to end.
import pino from 'pino';
import request from 'supertest';
import { type LoopLoad, LoopRoom } from '../../src/interfaces/http/admission/loop-room';
import { startInMemoryTracing, type InMemoryTracing } from '../support/telemetry/in-memory-tracing';
import { startTestApp, type TestApp } from '../support/http/test-app';

describe('room on the event loop for heavier requests', () => {
  const listeners = new Set<() => void>();
  const loop: LoopLoad & { now: number } = {
    now: 1,
    utilization: () => loop.now,
    onReading: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
  };
  const room = new LoopRoom(0.6, () => loop);
  const logLines: Array<Record<string, unknown>> = [];
  let t: TestApp;
  let tracing: InMemoryTracing;
  beforeAll(async () => {
    tracing = startInMemoryTracing();
    t = await startTestApp({
      loopRoom: room,
      tracer: tracing.tracer,
      logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) }),
    });
  });
  afterAll(async () => {
    await t.close();
    await tracing.close();
  });

  it('holds a 100-name check while the loop is busy, answers a plain read meanwhile, then runs the check', async () => {
    const me = await t.signUp();
    const timeline = await request(t.app)
      .post('/v1/timelines')
      .set('Authorization', me.auth)
      .send({ name: 'Busy', destination_time: '1969-07-20T20:17:00Z' });
    const names = Array.from({ length: 100 }, (_, index) => ({
      event: `Event ${index}`,
      time: '1969-07-20T20:17:00Z',
    }));
    let checked: request.Response | null = null;
    const check = request(t.app)
      .post('/v1/paradox-checks')
      .set('Authorization', me.auth)
      .send({ timeline_id: timeline.body.id, proposed_changes: names })
      .then((answer) => (checked = answer));
    const until = Date.now() + 10_000;
    while (room.holding === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(room.holding).toBe(1);

    const read = await request(t.app).get('/timelines').set('Authorization', me.auth);
    expect(read.status).toBe(200);
    expect(checked).toBeNull();

    await new Promise((resolve) => setTimeout(resolve, 20));
    loop.now = 0.2;
    listeners.forEach((listener) => listener());
    const answer = await check;
    expect(answer.status).toBe(200);
    expect(answer.body.is_stable).toBe(true);
    expect(t.admission?.waits.waited.get('loop/heavy')?.requests).toBe(1);
    expect(t.admission?.waits.waited.get('loop/light')).toBeUndefined();
    const line = logLines.find((each) => (each.req as { path?: string } | undefined)?.path === '/v1/paradox-checks');
    expect(line?.turn_wait_ms).toBeGreaterThanOrEqual(20);
    const waited = tracing
      .named('POST /v1/paradox-checks')
      .flatMap((span) => span.events.filter((event) => event.name === 'waited for its turn'));
    expect(waited.map((event) => Number(event.attributes?.loop_ms))).toEqual([expect.any(Number)]);
    expect(Number(waited[0]?.attributes?.loop_ms)).toBeGreaterThanOrEqual(20);
    expect(waited[0]?.attributes?.weight).toBe(9);
    expect(t.takeLoggedErrors()).toEqual([]);
  });
});
