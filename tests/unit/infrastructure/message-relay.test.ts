// The relay's loop (message-relay.ts), its statement stubbed: the statement itself is tested on the
// databases in webhook-recording.test.ts, and the whole path from a write to its delivery in
// tests/integration/webhooks/.
import {
  BUSY,
  MessageRelay,
  type RelayParts,
  type RelaySettings,
} from '../../../src/infrastructure/job-queue/message-relay';
import { serviceLog } from '../../support/service-log';
import { startInMemoryTracing } from '../../support/telemetry/in-memory-tracing';
import { waitFor } from '../../support/wait-for';

const SETTINGS: RelaySettings = { everyMs: 10, busyEveryMs: 1, perEndpoint: 8, atMost: 3 };

function aRelay(answers: Array<number | Error>, more: Partial<RelayParts> = {}, settings: RelaySettings = SETTINGS) {
  const asked: Array<[number, number]> = [];
  const relayed: number[] = [];
  const log = serviceLog();
  const relay = new MessageRelay(
    {
      relay: async (perEndpoint, atMost) => {
        asked.push([perEndpoint, atMost]);
        const answer = answers.shift() ?? 0;
        if (answer instanceof Error) throw answer;
        return answer;
      },
      relayed: (count) => relayed.push(count),
      log: log.logger,
      ...more,
    },
    settings,
  );
  return { relay, asked, relayed, log };
}

it('moves batch after batch while they come back full, and stops at the first that is not', async () => {
  const { relay, asked, relayed } = aRelay([3, 3, 1, 3]);
  expect(await relay.look()).toBe(7);

  expect(asked).toEqual([
    [8, 3],
    [8, 3],
    [8, 3],
  ]);
  expect(relayed).toEqual([3, 3, 1]);
});

it('tells of nothing, and makes no span, when nothing waits', async () => {
  const tracing = startInMemoryTracing();
  try {
    const { relay, relayed } = aRelay([0], { tracer: tracing.tracer });
    await relay.look();
    expect(relayed).toEqual([]);
    expect(tracing.spans()).toEqual([]);
  } finally {
    await tracing.close();
  }
});

it('makes a PRODUCER span of each batch moved, a root, with its count', async () => {
  const tracing = startInMemoryTracing();
  try {
    const { relay } = aRelay([3, 2], { tracer: tracing.tracer });
    await relay.look();
    const spans = tracing.named('send webhook-delivery');
    expect(spans.map((span) => span.attributes['messaging.batch.message_count'])).toEqual([3, 2]);
    expect(spans.every((span) => span.parentSpanContext === undefined)).toBe(true);
    expect(spans[0]?.attributes).toMatchObject({
      'messaging.system': 'pg-boss',
      'messaging.operation.type': 'send',
      'messaging.destination.name': 'webhook-delivery',
    });
  } finally {
    await tracing.close();
  }
});

it('logs a failing statement once a minute at most, and looks again', async () => {
  let now = 0;
  const away = new Error('the database went away');
  const { relay, log, relayed } = aRelay([away, away, away, 2], { now: () => now });
  await relay.look();
  now += 1_000;
  await relay.look();
  now += 60_000;
  await relay.look();
  await relay.look();

  const failures = log.lines.filter((line) => String(line.msg).startsWith('webhook relay failed'));
  expect(failures.map((line) => line.failed_looks)).toEqual([1, 3]);
  expect(failures.map((line) => line.level)).toEqual([50, 50]);
  expect(relayed).toEqual([2]);
});

it('logs a database away or read-only as a warning: the outage is reported where outages are', async () => {
  let now = 0;
  const timedOut = Object.assign(new Error('connect ETIMEDOUT 10.0.0.5:5432'), { code: 'ETIMEDOUT' });
  const readOnly = Object.assign(new Error('cannot execute UPDATE in a read-only transaction'), {
    severity: 'ERROR',
    code: '25006',
  });
  const { relay, log } = aRelay([timedOut, readOnly], { now: () => now });
  await relay.look();
  now += 60_000;
  await relay.look();

  const failures = log.lines.filter((line) => String(line.msg).startsWith('webhook relay failed'));
  expect(failures.map((line) => [line.level, (line.err as { message?: string } | undefined)?.message])).toEqual([
    [40, timedOut.message],
    [40, readOnly.message],
  ]);
});

it('looks at once when started, again soon after a look that moved messages, and no more once stopped', async () => {
  // Idle looks a minute apart: each look here but the first comes of the one before moving a message.
  const { relay, asked } = aRelay([1, 1, 1, 0], {}, { ...SETTINGS, everyMs: 60_000 });
  relay.start();
  await waitFor(() => asked.length >= 4, { what: 'four looks' });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(asked.length).toBe(4);
  await relay.stop();
});

it('looks no more once stopped', async () => {
  const { relay, asked } = aRelay([1, 1, 1, 1, 1, 1]);
  relay.start();
  await waitFor(() => asked.length >= 2, { what: 'two looks' });
  await relay.stop();
  const looks = asked.length;
  await new Promise((resolve) => setTimeout(resolve, 5 * SETTINGS.everyMs));
  expect(asked.length).toBe(looks);
});

/** Settings under which only what a test does makes a look: untold looks an hour apart. */
const TOLD_ONLY: RelaySettings = { ...SETTINGS, everyMs: 3_600_000, busyEveryMs: 20 };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('looks at once when told, not at its next look untold', async () => {
  const { relay, asked, relayed } = aRelay([0, 2], {}, TOLD_ONLY);
  relay.start();
  await waitFor(() => asked.length === 1, { what: 'the look at the start' });
  await pause(TOLD_ONLY.busyEveryMs + 10);
  relay.soon();
  await waitFor(() => relayed.length === 1, { what: 'the look told of' });
  expect(relayed).toEqual([2]);
  await relay.stop();
});

it('looks once for many tellings close together, and once more for those during a look', async () => {
  let finish: (count: number) => void = () => undefined;
  const asked: number[] = [];
  const relay = new MessageRelay(
    {
      relay: () => {
        asked.push(Date.now());
        // The second look hangs until the test lets it end, to be told of more meanwhile.
        return asked.length === 2 ? new Promise<number>((resolve) => (finish = resolve)) : Promise.resolve(0);
      },
      relayed: () => undefined,
      log: serviceLog().logger,
    },
    TOLD_ONLY,
  );
  relay.start();
  await waitFor(() => asked.length === 1, { what: 'the look at the start' });
  await pause(TOLD_ONLY.busyEveryMs + 10);
  for (let told = 0; told < 5; told++) relay.soon();
  await waitFor(() => asked.length === 2, { what: 'one look for the five' });
  relay.soon();
  relay.soon();
  finish(0);
  await waitFor(() => asked.length === 3, { what: 'one look for those told during it' });
  await pause(5 * TOLD_ONLY.busyEveryMs);
  expect(asked).toHaveLength(3);
  // Told during a look, the next waits its busyEveryMs after it.
  expect((asked[2] as number) - (asked[1] as number)).toBeGreaterThanOrEqual(TOLD_ONLY.busyEveryMs - 1);
  await relay.stop();
});

it('looks again soon while another relay is at work, and tells of it as nothing moved', async () => {
  const { relay, asked, relayed } = aRelay([BUSY, BUSY, 1, 0], {}, TOLD_ONLY);
  expect(await relay.look()).toBe(BUSY);
  relay.start();
  await waitFor(() => asked.length === 4, { what: 'looks until the other relay is done, and one after a move' });
  await pause(5 * TOLD_ONLY.busyEveryMs);
  expect(asked).toHaveLength(4);
  expect(relayed).toEqual([1]);
  await relay.stop();
});

it('is told of nothing once stopped', async () => {
  const { relay, asked } = aRelay([0, 1], {}, TOLD_ONLY);
  relay.start();
  await waitFor(() => asked.length === 1, { what: 'the look at the start' });
  await relay.stop();
  relay.soon();
  await pause(5 * TOLD_ONLY.busyEveryMs);
  expect(asked).toHaveLength(1);
});
