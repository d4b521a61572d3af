import { EventEmitter } from 'node:events';
import { type Admitted, LeftTheQueue } from '../../../../src/interfaces/http/admission/admission-gate';
import { AdmissionServer, ClusterAdmission } from '../../../../src/interfaces/http/admission/cluster-admission';
import { LocalAdmission } from '../../../../src/interfaces/http/admission/local-admission';
import { Problem } from '../../../../src/interfaces/http/problem';
import type { FairShareLimits } from '../../../../src/interfaces/http/admission/fair-share';
import { LoopRoom } from '../../../../src/interfaces/http/admission/loop-room';

/** An ordinary request; and an instance with room for all of them, so that only the account's limits hold. */
const ORDINARY = { cost: 1, weight: 1 };
const ROOMY: FairShareLimits = { running: 100, queued: 100 };

/**
 * Workers and their primary joined as node:cluster joins them, each message delivered on a later
 * turn of the event loop (IPC is asynchronous).
 */
function cluster(
  workerCount: number,
  limits: { running: number; queued: number; startsPerSecond?: number },
  share: FairShareLimits = ROOMY,
  room?: LoopRoom,
) {
  const channels = new Map<number, EventEmitter & { send: (message: unknown) => boolean }>();
  const primaryEnds = new Map<
    number,
    { id: number; send: (message: unknown) => boolean; isConnected: () => boolean }
  >();
  const server = new AdmissionServer(limits, share, (id) => primaryEnds.get(id));
  const gates = Array.from({ length: workerCount }, (_, index) => {
    const id = index + 1;
    const channel = Object.assign(new EventEmitter(), {
      send: (message: unknown) => {
        setImmediate(() => server.heard(primaryEnd, message));
        return true;
      },
    });
    const primaryEnd = {
      id,
      isConnected: () => primaryEnds.has(id),
      send: (message: unknown) => {
        setImmediate(() => channel.emit('message', message));
        return true;
      },
    };
    channels.set(id, channel);
    primaryEnds.set(id, primaryEnd);
    return new ClusterAdmission(limits, channel, room);
  });
  const exit = (id: number) => {
    primaryEnds.delete(id);
    server.exited(id);
  };
  return { gates, exit, channels, server, primaryEnds };
}

/** Who holds a place in order: a request's state as the test sees it. */
function track(entering: Promise<Admitted>) {
  const state: { admitted: boolean; refused: unknown; leave: (() => void) | null; pacedMs: number } = {
    admitted: false,
    refused: null,
    leave: null,
    pacedMs: 0,
  };
  entering.then(
    ({ leave, pacedMs }) => Object.assign(state, { admitted: true, leave, pacedMs }),
    (error: unknown) => Object.assign(state, { refused: error }),
  );
  return state;
}

/**
 * Lets every message in flight arrive: each hop is a setImmediate, so a few turns of the event loop
 * deliver them whatever the machine's pace. A 20 ms timer lost the race once on a busy machine: its
 * turn came before the second hop's.
 */
const settle = async () => {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
};
const never = () => undefined;

describe('requests in flight across the workers of a cluster', () => {
  it('counts one account over every worker: the limit holds for the instance, not once per worker', async () => {
    const { gates } = cluster(2, { running: 1, queued: 1 });
    const [one, two] = gates;
    if (!one || !two) throw new Error('two workers');
    const first = track(one.enter('acc_a', never, ORDINARY));
    await settle();
    const second = track(two.enter('acc_a', never, ORDINARY));
    await settle();
    const third = track(one.enter('acc_a', never, ORDINARY));
    const other = track(two.enter('acc_b', never, ORDINARY));
    await settle();

    expect([first.admitted, second.admitted, third.admitted, other.admitted]).toEqual([true, false, false, true]);
    expect(third.refused).toBeInstanceOf(Problem);
    expect(third.refused).toMatchObject({ status: 429, code: 'too_many_requests_in_flight' });

    // The first done, on worker one: the one waiting on worker two runs.
    first.leave?.();
    await settle();
    expect(second.admitted).toBe(true);
  });

  it("shares the instance's work over every worker: one worker's request holds it, another's is shed", async () => {
    const { gates } = cluster(2, { running: 8, queued: 8 }, { running: 1, queued: 1 });
    const [one, two] = gates;
    if (!one || !two) throw new Error('two workers');
    const running = track(one.enter('acc_a', never, ORDINARY));
    await settle();
    const waiting = track(two.enter('acc_b', never, ORDINARY));
    await settle();
    const shed = track(one.enter('acc_c', never, ORDINARY));
    await settle();
    expect([running.admitted, waiting.admitted]).toEqual([true, false]);
    expect(shed.refused).toMatchObject({ status: 503, code: 'server_busy' });
    expect(one.waits.shed.get('light')).toBe(1);
    running.leave?.();
    await settle();
    expect(waiting.admitted).toBe(true);
  });

  it("gives the instance's work back when a heavy request's client goes while it waits for its loop", async () => {
    const busyLoop = { utilization: () => 1, onReading: () => () => undefined };
    const { gates, server } = cluster(
      2,
      { running: 8, queued: 8 },
      { running: 9, queued: 1 },
      new LoopRoom(0.6, () => busyLoop),
    );
    const [one, two] = gates;
    if (!one || !two) throw new Error('two workers');
    let goAway = () => undefined as void;
    const held = track(one.enter('acc_a', (listener) => (goAway = listener), { cost: 1, weight: 9 }));
    await settle();
    const next = track(two.enter('acc_b', never, { cost: 1, weight: 9 }));
    await settle();
    // The primary counts the held request as running: the next heavy one waits for it.
    expect(server.load).toEqual({ runningWeight: 9, queued: 1 });
    expect([held.admitted, next.admitted]).toEqual([false, false]);
    goAway();
    await settle();
    expect(held.refused).toBeInstanceOf(LeftTheQueue);
    expect(server.load).toEqual({ runningWeight: 9, queued: 0 });
  });

  it("gives a worker's places to another's waiting requests when it exits", async () => {
    const { gates, exit } = cluster(2, { running: 1, queued: 1 });
    const [one, two] = gates;
    if (!one || !two) throw new Error('two workers');
    track(one.enter('acc_a', never, ORDINARY));
    await settle();
    const waiting = track(two.enter('acc_a', never, ORDINARY));
    await settle();
    expect(waiting.admitted).toBe(false);
    exit(1);
    await settle();
    expect(waiting.admitted).toBe(true);
  });

  it('ignores what an exited worker still says: it takes no place for ever', async () => {
    const { gates, server } = cluster(2, { running: 1, queued: 1 });
    const [, two] = gates;
    if (!two) throw new Error('two workers');
    // Worker one's last message arrives after its exit.
    server.exited(1);
    server.heard(
      { id: 1, send: () => true, isConnected: () => false },
      { type: 'admission', op: 'enter', id: 0, accountId: 'acc_a', cost: ORDINARY },
    );
    const next = track(two.enter('acc_a', never, ORDINARY));
    await settle();
    expect(next.admitted).toBe(true);
  });

  it('answers 503 to the requests waiting when the primary goes away', async () => {
    const { gates, channels } = cluster(1, { running: 1, queued: 1 });
    const [gate] = gates;
    if (!gate) throw new Error('one worker');
    track(gate.enter('acc_a', never, ORDINARY));
    await settle();
    const waiting = track(gate.enter('acc_a', never, ORDINARY));
    await settle();
    channels.get(1)?.emit('disconnect');
    await settle();
    expect(waiting.refused).toMatchObject({ status: 503, code: 'service_unavailable' });
  });

  it('lets a request whose client went away leave the queue, and no one is held up by it', async () => {
    const { gates } = cluster(1, { running: 1, queued: 2 });
    const [gate] = gates;
    if (!gate) throw new Error('one worker');
    const running = track(gate.enter('acc_a', never, ORDINARY));
    await settle();
    let goAway = () => undefined as void;
    const gone = track(gate.enter('acc_a', (listener) => (goAway = listener), ORDINARY));
    const next = track(gate.enter('acc_a', never, ORDINARY));
    await settle();
    goAway();
    await settle();
    expect(gone.refused).toBeInstanceOf(LeftTheQueue);
    running.leave?.();
    await settle();
    expect(next.admitted).toBe(true);
  });
});

describe('requests in flight in a process serving alone', () => {
  it('runs the limit, queues the next, refuses the rest, and wakes the next in order', async () => {
    const gate = new LocalAdmission({ running: 1, queued: 1 }, ROOMY);
    const first = track(gate.enter('acc_a', never, ORDINARY));
    const second = track(gate.enter('acc_a', never, ORDINARY));
    const third = track(gate.enter('acc_a', never, ORDINARY));
    await settle();
    expect([first.admitted, second.admitted]).toEqual([true, false]);
    expect(third.refused).toMatchObject({ status: 429, code: 'too_many_requests_in_flight' });
    first.leave?.();
    await settle();
    expect(second.admitted).toBe(true);
  });
});

describe("an account's pace", () => {
  // 20 starts a second: one every 50 ms once the first (running: 1) has started. The pace's clock
  // and its timers are Jest's; the messages (setImmediate) still travel.
  const limits = { running: 1, queued: 2, startsPerSecond: 20 };
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('starts a request that comes while another runs no sooner than its pace allows', async () => {
    const gate = new LocalAdmission(limits, ROOMY);
    const first = track(gate.enter('acc_a', never, ORDINARY));
    const second = track(gate.enter('acc_a', never, ORDINARY));
    await settle();
    expect([first.admitted, second.admitted]).toEqual([true, false]);
    jest.advanceTimersByTime(10);
    first.leave?.();
    await settle();
    // Its place is free after 10 ms, and its pace not come until 50 ms after the first started.
    expect(second.admitted).toBe(false);
    jest.advanceTimersByTime(39);
    await settle();
    expect(second.admitted).toBe(false);
    jest.advanceTimersByTime(1);
    await settle();
    expect(second.admitted).toBe(true);
    expect(second.pacedMs).toBe(40);
    expect(gate.waits.waited.get('pace/light')).toEqual({ requests: 1, seconds: 0.04 });
    expect(gate.waits.waited.get('in_flight/light')).toEqual({ requests: 1, seconds: 0.01 });
    // Another account's request is not held by this one's pace.
    const other = track(gate.enter('acc_b', never, ORDINARY));
    await settle();
    expect(other.admitted).toBe(true);
  });

  it.each([
    ['in a process serving alone', () => [new LocalAdmission(limits, ROOMY)]],
    ['in a cluster, the next on another worker', () => cluster(2, limits).gates],
  ])('lets a request whose client went away during its pace leave, its turn to the next, %s', async (_, gatesOf) => {
    const [one, two = one] = gatesOf();
    if (!one || !two) throw new Error('a gate');
    const first = track(one.enter('acc_a', never, ORDINARY));
    await settle();
    let goAway = () => undefined as void;
    const gone = track(one.enter('acc_a', (listener) => (goAway = listener), ORDINARY));
    const next = track(two.enter('acc_a', never, ORDINARY));
    await settle();
    first.leave?.();
    await settle();
    goAway();
    await settle();
    expect(gone.refused).toBeInstanceOf(LeftTheQueue);
    // The next took its place and its turn: it starts when the gone one would have, not 50 ms later.
    jest.advanceTimersByTime(50);
    await settle();
    expect(next.admitted).toBe(true);
    expect(next.pacedMs).toBe(50);
  });

  it("is kept by the cluster's primary for every worker, which waits the delay it is told", async () => {
    const { gates } = cluster(2, limits);
    const [one, two] = gates;
    if (!one || !two) throw new Error('two workers');
    const first = track(one.enter('acc_a', never, ORDINARY));
    await settle();
    const second = track(two.enter('acc_a', never, ORDINARY));
    await settle();
    first.leave?.();
    await settle();
    expect(second.admitted).toBe(false);
    jest.advanceTimersByTime(50);
    await settle();
    expect(second.admitted).toBe(true);
    expect(second.pacedMs).toBe(50);
    expect(two.waits.waited.get('pace/light')?.requests).toBe(1);
  });

  it('holds no one when the pace is a million a second', async () => {
    const gate = new LocalAdmission({ running: 1, queued: 5, startsPerSecond: 1_000_000 }, ROOMY);
    const entered = Array.from({ length: 5 }, () => track(gate.enter('acc_a', never, ORDINARY)));
    await settle();
    for (const request of entered) {
      expect(request.admitted).toBe(true);
      request.leave?.();
      await settle();
    }
    expect(gate.waits.waited.get('pace/light')).toBeUndefined();
  });
});
